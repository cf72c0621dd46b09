"""The HTML note's case explorer at scale: a 20,000-case suite with about 6,000 changed cases per candidate, the
note's size, the time to write it, and the explorer's load and search times in headless Chromium.

The suite (seeded, cached in --workdir) has a case table (category, difficulty, an input of 10-25 words, a
reference of 5-15 words) and per release an answer of 40-120 words and a grader's reason of 15-40 words, drawn
from a 3,000-word vocabulary so that they compress as prose does rather than as repeats. Each candidate changes
--changed of the cases' outcomes (half broken, half fixed); it rewrites a fifth of the changed answers whole and
edits a tenth of the words of the rest, and leaves most unchanged cases' answers as they were.

Measured: ``releasegate report -o note.html`` as a child process (wall s); the explorer's data in process (rows,
JSON bytes, gzip bytes, seconds to build it); the note's bytes with the data compressed (the default above
render/explorer_page.COMPRESS_ABOVE) and as plain JSON; then in Chromium (the system's, through Playwright, every
request but the file refused), for each: the time from navigation to the explorer's ready mark, and per search
the time from the input event to the list drawn again (two animation frames after the count changed; the
search waits 40 ms for typing to pause, included), median of --repeats. Beside each wall time, the CPU time of
the page's main thread over the same span (Chrome's own ThreadTime metric, DevTools protocol): on a machine
shared with other work the wall time is mostly waiting for a core, and the CPU time is what the page itself
costs. Results print and go between the explorer markers of bench/RESULTS.md.

    python bench/explorer.py                         # 20,000 cases, 1 candidate, 6,000 changed
    python bench/explorer.py --all                   # and 2 candidates (12,000 rows), and 30,000 rows (the limit)
    python bench/explorer.py --cases 50000 --changed 15000 --candidates 2 --no-write
"""

from __future__ import annotations

import argparse
import base64
import csv
import gzip
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from scaling import write_results  # bench/ is this script's folder, first on the path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
START, END = "<!-- explorer:start -->", "<!-- explorer:end -->"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]
QUERIES = ("refund", "card blocked", "zzzz-no-such-word", "the")  # and the id of one changed case
MIB = 1024 * 1024


def _words(rng: np.random.Generator, vocabulary: np.ndarray, low: int, high: int) -> str:
    return " ".join(vocabulary[rng.integers(0, len(vocabulary), rng.integers(low, high + 1))]) + "."


def _edited(rng: np.random.Generator, vocabulary: np.ndarray, text: str, share: float) -> str:
    words = text.split(" ")
    for k in np.flatnonzero(rng.random(len(words)) < share):
        words[k] = vocabulary[rng.integers(0, len(vocabulary))]
    return " ".join(words)


def suite(workdir: Path, n_cases: int, n_changed: int, n_candidates: int, seed: int = 20261206) -> tuple[Path, Path]:
    """The results and case files (cached by their parameters)."""
    stem = f"explorer-{n_cases}-{n_changed}-{n_candidates}-{seed}"
    results, cases = workdir / f"{stem}-results.csv", workdir / f"{stem}-cases.csv"
    if results.exists() and cases.exists():
        return results, cases
    rng = np.random.default_rng(seed)
    syllables = ["ka", "lo", "mi", "ren", "to", "sa", "vel", "dor", "pi", "an", "qu", "es", "tri", "mon", "zu"]
    vocabulary = np.array(sorted({"".join(rng.choice(syllables, rng.integers(1, 4))) for _ in range(6000)})[:3000]
                          + ["refund", "card", "blocked", "the", "account", "transfer", "fee", "fraud"])
    ids = [f"C{i:07d}" for i in range(n_cases)]
    categories = [f"Category {k:02d}" for k in rng.integers(1, 21, n_cases)]
    with open(cases, "w", newline="", encoding="utf-8") as handle:
        out = csv.writer(handle)
        out.writerow(["case_id", "category", "difficulty", "input", "target"])
        for i in range(n_cases):
            out.writerow([ids[i], categories[i], ("easy", "medium", "hard")[i % 3], _words(rng, vocabulary, 10, 25),
                          _words(rng, vocabulary, 5, 15)])
    base_pass = rng.random(n_cases) < 0.7
    base_answer = [_words(rng, vocabulary, 40, 120) for _ in range(n_cases)]
    base_reason = [_words(rng, vocabulary, 15, 40) for _ in range(n_cases)]
    with open(results, "w", newline="", encoding="utf-8") as handle:
        out = csv.writer(handle)
        out.writerow(["case_id", "release", "passed", "latency_ms", "input_tokens", "output_tokens", "output",
                      "reason"])
        for i in range(n_cases):
            out.writerow([ids[i], "r1-live", int(base_pass[i]), round(float(rng.lognormal(6.8, 0.4)), 1),
                          int(rng.integers(200, 900)), int(rng.integers(20, 400)), base_answer[i], base_reason[i]])
        for c in range(n_candidates):
            # Half the changed cases broken (from the baseline's passes), half fixed (from its failures).
            passes, fails = np.flatnonzero(base_pass), np.flatnonzero(~base_pass)
            broken = set(rng.choice(passes, n_changed // 2, replace=False).tolist())
            fixed = set(rng.choice(fails, n_changed - n_changed // 2, replace=False).tolist())
            for i in range(n_cases):
                changed = i in broken or i in fixed
                passed = (not base_pass[i]) if changed else base_pass[i]
                if changed and rng.random() < 0.2:
                    answer = _words(rng, vocabulary, 40, 120)
                elif changed or rng.random() < 0.3:
                    answer = _edited(rng, vocabulary, base_answer[i], 0.1)
                else:
                    answer = base_answer[i]
                reason = _edited(rng, vocabulary, base_reason[i], 0.3) if changed else base_reason[i]
                out.writerow([ids[i], f"r{c + 2}-candidate", int(passed), round(float(rng.lognormal(6.75, 0.4)), 1),
                              int(rng.integers(200, 900)), int(rng.integers(20, 400)), answer, reason])
    return results, cases


def write_note(results: Path, cases: Path, out: Path) -> float:
    """``releasegate report`` as a user runs it; its wall seconds."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]),
           "SOURCE_DATE_EPOCH": "1796000000"}
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "releasegate", "report", str(results), "--cases", str(cases),
                           "--baseline", "r1-live", "-o", str(out)], env=env, capture_output=True, text=True)
    if done.returncode not in (0, 1, 3):
        raise SystemExit(done.stderr)
    return time.perf_counter() - started


def in_process(results: Path, cases: Path, plain_note: Path) -> dict:
    """The explorer's data built in this process, and the note written once more with the data as plain JSON."""
    sys.path.insert(0, str(ROOT / "src"))
    os.environ["SOURCE_DATE_EPOCH"] = "1796000000"
    from releasegate.load import Source
    from releasegate.pipeline import run
    from releasegate.policy import make_policy
    from releasegate.render import explorer_page
    from releasegate.render.explorer import build_explorer, explorer_data
    from releasegate.render.html import render_html
    from releasegate.render.json_text import dumps_compact

    report = run([Source(results)], make_policy(baseline="r1-live"), cases=cases)
    started = time.perf_counter()
    explorer = build_explorer(report)
    text = dumps_compact(explorer_data(explorer)).encode("utf-8")
    built = time.perf_counter() - started
    started = time.perf_counter()
    packed = base64.b64encode(gzip.compress(text, compresslevel=explorer_page.GZIP_LEVEL, mtime=0))
    packing = time.perf_counter() - started
    in_note = explorer_page.explorer_view(report).rows
    default = explorer_page.COMPRESS_ABOVE
    explorer_page.COMPRESS_ABOVE = 1 << 40  # the same note with its data as plain JSON, for comparison
    try:
        plain_note.write_text(render_html(report), encoding="utf-8")
        in_plain = explorer_page.explorer_view(report).rows
    finally:
        explorer_page.COMPRESS_ABOVE = default
    changed = sum(len(c.broken_cases) + len(c.fixed_cases) for c in report.analysis.candidates)
    return {"rows": len(explorer.rows), "changed": changed, "json": len(text), "packed": len(packed),
            "build_s": built, "pack_s": packing, "in_note": in_note, "in_plain": in_plain,
            "case_id": explorer.rows[len(explorer.rows) // 2].case.case_id}


SEARCH = """async (q) => {
  const box = document.getElementById('x-search'), list = document.getElementById('x-list');
  const count = document.getElementById('x-count');
  const started = performance.now();
  box.value = q;
  box.dispatchEvent(new Event('input'));
  await new Promise(done => { const wait = () => list.hasAttribute('data-pending') ? setTimeout(wait, 1) : done(); wait(); });
  await new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)));
  return [performance.now() - started, count.textContent];
}"""


def _thread_time(cdp) -> float:
    return next(m["value"] for m in cdp.send("Performance.getMetrics")["metrics"] if m["name"] == "ThreadTime")


def browse(note: Path, repeats: int, case_id: str) -> dict:
    """Load and search times (wall s, main-thread CPU s) of the note's explorer in Chromium."""
    from playwright.sync_api import sync_playwright

    out: dict = {"searches": {}}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        loads = []
        for _ in range(repeats):
            context = browser.new_context(viewport={"width": 1280, "height": 900})
            foreign: list[str] = []
            context.route("**/*", lambda route: route.continue_() if route.request.url == note.as_uri()
                          else (foreign.append(route.request.url), route.abort()))
            page = context.new_page()
            cdp = context.new_cdp_session(page)
            cdp.send("Performance.enable", {"timeDomain": "threadTicks"})
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            started = time.perf_counter()
            page.goto(note.as_uri())
            page.wait_for_selector("#explorer[data-ready]", state="attached", timeout=120_000)
            loads.append((time.perf_counter() - started, _thread_time(cdp)))
            if foreign or errors:
                raise SystemExit(f"requests {foreign} errors {errors}")
            if len(loads) == repeats:
                out["rows_shown"] = page.inner_text("#x-count")
                for query in (*QUERIES, case_id):
                    times, cpu = [], []
                    for _ in range(repeats):
                        page.evaluate(SEARCH, "")
                        before = _thread_time(cdp)
                        elapsed, said = page.evaluate(SEARCH, query)
                        cpu.append(_thread_time(cdp) - before)
                        times.append(elapsed / 1000)
                    out["searches"][query] = (statistics.median(times), max(times), statistics.median(cpu), said)
                page.evaluate(SEARCH, "")
                page.select_option("#x-change", "broken")
                out["broken_shown"] = page.inner_text("#x-count")
            context.close()
        browser.close()
    out["load_s"] = statistics.median(wall for wall, _ in loads)
    out["load_cpu_s"] = statistics.median(cpu for _, cpu in loads)
    return out


ALL = ((20_000, 6_000, 1), (20_000, 6_000, 2), (50_000, 15_000, 2))


def table(config: tuple[int, int, int], repeats: int, measured: dict, packed: dict, plain: dict, note_s: float,
          note: Path, plain_note: Path) -> str:
    cases, changed, candidates = config
    rows = [
        f"### Case explorer: {cases:,} cases, {candidates} candidate(s), {changed:,} changed each",
        "",
        f"bench/explorer.py, {time.strftime('%Y-%m-%d')}, load average {os.getloadavg()[0]:.2f} at the end; headless "
        f"Chromium through Playwright, medians of {repeats} runs (max in brackets). Each search is timed from its "
        "input event to the list drawn again, the explorer's 40 ms typing pause included.",
        "",
        "| figure | value |",
        "|---|---|",
        f"| changed cases (broken + fixed) | {measured['changed']:,} |",
        f"| explorer rows: every changed case / in the note / in the note with plain JSON | {measured['rows']:,} / "
        f"{measured['in_note']:,} / {measured['in_plain']:,} |",
        f"| `releasegate report -o note.html`, wall | {note_s:.1f} s |",
        f"| explorer data built in process (rows, string table, JSON) | {measured['build_s']:.1f} s |",
        f"| every row's data as JSON / gzip + base64 (gzip {measured['pack_s']:.2f} s) | {measured['json'] / MIB:.1f} MiB / "
        f"{measured['packed'] / MIB:.1f} MiB |",
        f"| note, data compressed (the default above 2 MiB) | {note.stat().st_size / MIB:.1f} MiB |",
        f"| note, data as plain JSON | {plain_note.stat().st_size / MIB:.1f} MiB |",
        f"| open to explorer ready, compressed / plain: wall | {packed['load_s']:.2f} s / {plain['load_s']:.2f} s |",
        f"| the same, the page's main-thread CPU | {packed['load_cpu_s']:.2f} s / {plain['load_cpu_s']:.2f} s |",
    ]
    for query, (median, worst, cpu, said) in packed["searches"].items():
        rows.append(f"| search \"{query}\" ({said.split(' rows')[0]} rows): wall (max); main-thread CPU | "
                    f"{median:.3f} s ({worst:.3f}); {cpu:.3f} s |")
    rows += [f"| change = broken | {packed['broken_shown']} |", ""]
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=20_000)
    parser.add_argument("--changed", type=int, default=6_000, help="changed cases per candidate")
    parser.add_argument("--candidates", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()) / "releasegate-bench")
    parser.add_argument("--all", action="store_true", help="the three configurations of RESULTS.md")
    parser.add_argument("--no-write", action="store_true", help="print only; leave RESULTS.md as it is")
    args = parser.parse_args(argv)
    args.workdir.mkdir(parents=True, exist_ok=True)
    tables = []
    for config in ALL if args.all else ((args.cases, args.changed, args.candidates),):
        results, cases = suite(args.workdir, *config)
        note, plain_note = args.workdir / "explorer-note.html", args.workdir / "explorer-note-plain.html"
        note_s = write_note(results, cases, note)
        measured = in_process(results, cases, plain_note)
        packed = browse(note, args.repeats, measured["case_id"])
        plain = browse(plain_note, max(1, args.repeats // 2), measured["case_id"])
        tables.append(table(config, args.repeats, measured, packed, plain, note_s, note, plain_note))
        print(tables[-1], flush=True)
    if not args.no_write:
        write_results("\n".join([START, *tables, END]), start=START, end=END)


if __name__ == "__main__":
    main()
