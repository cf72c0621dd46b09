"""The benchmark: every command timed as a whole process, several runs, against the targets of issue 8.

    python bench/run.py            # 5 runs of each small command, 3 of each large one (a few minutes)
    python bench/run.py --quick    # 3 and 1

Synthetic inputs come from bench/generate.py with a fixed seed and are cached in --workdir. Each row reports
the median, min and max wall time and the peak RSS of the process (``os.wait4``'s rusage); the analysis row
reports the analysis stage timed inside the process (bench/analysis_timer.py). A format or path that this
tree does not have yet is shown as "n/a (not available in this tree)", so the table can be rerun after merges.
The table goes to stdout and to bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
EXAMPLE = ROOT / "src" / "releasegate" / "examples" / "bank-assistant"
PACKAGES = ("releasegate", "numpy", "pandas", "scipy", "pyarrow", "click", "jinja2", "altair", "vl-convert-python",
            "weasyprint")
GIB = 1024 ** 3
BASELINE = "r1-live"  # bench/generate.py's first release
LESSON = "lesson's pandas + scipy script (baseline)"


@dataclass
class Row:
    """One benchmark row: a command (argv after the interpreter) and its target."""

    what: str
    shown: str
    argv: list[str]
    target_s: float | None = None
    target_rss: int | None = None  # bytes
    large: bool = False
    needs: tuple[str, ...] = ()  # modules the tree must have for this row
    in_process: str | None = None  # JSON key printed by the command that holds the timed figure
    outputs: list[Path] = field(default_factory=list)  # removed before every run
    target_ratio: float | None = None  # at most this many times its yardstick, run by run (paired)
    yardstick: bool = False  # a script the ratios are taken against (the lesson's, the hand-written one)
    paired_with: str = LESSON  # the ``what`` of this row's yardstick
    python: str | None = None  # the interpreter (default: this one); the lesson's needs scipy


@dataclass
class Result:
    row: Row
    seconds: list[float] = field(default_factory=list)  # the row's figure per run
    wall: list[float] = field(default_factory=list)  # whole process per run
    rss: list[int] = field(default_factory=list)  # bytes
    cpu: list[float] = field(default_factory=list)  # user + system seconds of the process
    again: list[float] = field(default_factory=list)  # in-process rows: the same stage run a second time
    ratios: list[float] = field(default_factory=list)  # ratio rows: each run's wall time / the lesson's next run
    status: str = "ok"  # "ok", "n/a ...", "failed ..."


def _example_args() -> list[str]:
    return [str(EXAMPLE / "eval_results.csv"), "--cases", str(EXAMPLE / "eval_cases.csv"),
            "--policy", str(EXAMPLE / "releasegate.toml")]


# Placeholders in a row's argv for the generated inputs, filled in only when a selected row needs them.
BIG, BIG_PLAIN, RUNS = "{binary}", "{binary_plain}", "{runs}"
HANDWRITTEN = "hand-written pandas script, 1,000,000 cases x 2 ({} case ids)"


def rows(workdir: Path, lesson_python: str | None = None) -> list[Row]:
    rg = ["-m", "releasegate"]
    out = workdir / "out"

    def report(suffixes: tuple[str, ...], inputs: list[str]) -> tuple[list[str], list[Path]]:
        paths = [out / f"note{s}" for s in suffixes]
        return [*rg, "report", *inputs, *[a for p in paths for a in ("-o", str(p))]], paths

    md, md_out = report((".md",), _example_args())
    js, js_out = report((".json",), _example_args())
    html, html_out = report((".html",), _example_args())
    pdf, pdf_out = report((".pdf",), _example_args())
    million, million_out = report((".json", ".md"), [BIG, "--baseline", BASELINE])
    plain, plain_out = report((".json", ".md"), [BIG_PLAIN, "--baseline", BASELINE])
    handwritten = [HANDWRITTEN.format(style) for style in ("zero-padded", "plain")]
    return [
        Row("Python interpreter alone (the floor)", "python -c pass", ["-c", "pass"]),
        Row("start-up", "releasegate --help", [*rg, "--help"], target_s=0.15),
        Row(LESSON, "python bench/lesson_baseline.py", [str(BENCH / "lesson_baseline.py"), str(EXAMPLE)],
            yardstick=True, python=lesson_python),
        Row("CI gate, bank-assistant example", "releasegate check ...", [*rg, "check", *_example_args()],
            target_s=1.0),
        Row("Markdown report, example", "releasegate report ... -o note.md", md, target_s=1.0, outputs=md_out),
        Row("JSON report, example", "releasegate report ... -o note.json", js, outputs=js_out),
        Row("HTML report, example", "releasegate report ... -o note.html", html, target_ratio=2.0,
            needs=("releasegate.render.html",), outputs=html_out),
        Row("PDF report, example", "releasegate report ... -o note.pdf", pdf, target_ratio=3.0,
            needs=("releasegate.render.pdf",), outputs=pdf_out),
        Row(handwritten[0], "python bench/handwritten.py big.csv", [str(BENCH / "handwritten.py"), BIG],
            yardstick=True, large=True),
        Row("1,000,000 cases x 2 releases, CSV to JSON + Markdown", "releasegate report big.csv -o .json -o .md",
            million, target_ratio=1.5, paired_with=handwritten[0], target_rss=GIB, large=True,
            outputs=million_out),
        Row(handwritten[1], "python bench/handwritten.py plain.csv", [str(BENCH / "handwritten.py"), BIG_PLAIN],
            yardstick=True, large=True),
        Row("the same with plain case ids (`case17`)", "releasegate report plain.csv -o .json -o .md",
            plain, target_ratio=1.5, paired_with=handwritten[1], target_rss=GIB, large=True, outputs=plain_out),
        Row("100,000 cases x 5 runs x 2 releases, 1,000 clusters, 10,000 resamples: analysis stage",
            "python bench/analysis_timer.py runs.csv", [str(BENCH / "analysis_timer.py"), RUNS,
                                                         "--baseline", BASELINE, "--resamples", "10000"],
            target_s=1.0, large=True, needs=("releasegate.analyze.comparisons",), in_process="analysis_s"),
    ]


def generate_inputs(workdir: Path, selected: list[Row]) -> None:
    """Write (or reuse) the synthetic inputs and put their paths into the rows that name them."""
    print(f"generating inputs in {workdir} (once; reused later) ...", file=sys.stderr)
    # In a child process: this runner stays small (no numpy, no pandas), because a forked child's peak RSS
    # counts the parent's pages until it execs.
    made = subprocess.run([sys.executable, str(BENCH / "generate.py"), str(workdir)], capture_output=True,
                          text=True, check=True)
    paths = json.loads(made.stdout)
    for row in selected:
        row.argv = [{BIG: paths["binary"], BIG_PLAIN: paths["binary_plain"], RUNS: paths["runs"]}.get(a, a)
                    for a in row.argv]


def _environment(installed: bool) -> dict[str, str]:
    env = dict(os.environ)
    if not installed:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT / "src"), env.get("PYTHONPATH", "")) if p)
    return env


def available(modules: set[str], env: dict[str, str]) -> set[str]:
    """Which of ``modules`` the tree under test can import (asked of a fresh interpreter with its path)."""
    if not modules:
        return set()
    code = ("import importlib.util, json, sys\n"
            "def has(m):\n"
            "    try:\n        return importlib.util.find_spec(m) is not None\n"
            "    except ImportError:\n        return False\n"
            "print(json.dumps([m for m in sys.argv[1:] if has(m)]))")
    done = subprocess.run([sys.executable, "-c", code, *sorted(modules)], env=env, capture_output=True, text=True,
                          check=True)
    return set(json.loads(done.stdout))


def run_once(row: Row, env: dict[str, str], cwd: Path) -> tuple[float, float, int, str, int, str]:
    """One whole-process run: wall and CPU seconds, peak RSS (bytes), stdout, exit code, last stderr line."""
    for path in row.outputs:
        path.unlink(missing_ok=True)
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen([row.python or sys.executable, *row.argv], stdout=out, stderr=err, env=env,
                                cwd=cwd)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode("utf-8", "replace")
        lines = [line for line in err.read().decode("utf-8", "replace").splitlines() if line.strip()]
    # ru_maxrss is in KiB on Linux (bytes on macOS).
    rss = usage.ru_maxrss * (1 if sys.platform == "darwin" else 1024)
    cpu = usage.ru_utime + usage.ru_stime
    return seconds, cpu, rss, stdout, proc.returncode, lines[-1] if lines else ""


def measure(row: Row, runs: int, env: dict[str, str], cwd: Path, yardstick: Row | None = None,
            warmups: int = 1) -> Result:
    """``runs`` recorded runs of the row after ``warmups`` unrecorded ones (none for a large row); a row with a
    ``target_ratio`` is paired run by run with a run of ``yardstick`` (A B A B ...), so that the ratio holds
    while the machine's speed drifts."""
    result = Result(row)
    # Unrecorded runs first: compiled bytecode and the page cache are then warm for every recorded run.
    skip = 0 if row.large else warmups
    for attempt in range(runs + skip):
        seconds, cpu, rss, stdout, code, last_err = run_once(row, env, cwd)
        # check exits 1 for DON'T SHIP; 2 and above is an error.
        if code not in (0, 1):
            result.status = f"failed (exit {code}: {last_err[:120]})"
            return result
        if attempt < skip:
            continue
        figure = seconds
        if row.in_process:
            stages = json.loads(stdout.strip().splitlines()[-1])
            figure = float(stages[row.in_process])
            result.again.append(float(stages.get(row.in_process.replace("_s", "_again_s"), math.nan)))
        result.seconds.append(figure)
        result.wall.append(seconds)
        result.rss.append(rss)
        result.cpu.append(cpu)
        if row.target_ratio is not None and yardstick is not None:
            result.ratios.append(seconds / run_once(yardstick, env, cwd)[0])
    return result


def machine() -> list[str]:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory = ""
    try:
        kib = int(next(x for x in Path("/proc/meminfo").read_text().splitlines() if x.startswith("MemTotal")).split()[1])
        memory = f", {kib / 1024 ** 2:.0f} GiB RAM"
    except (OSError, StopIteration, ValueError):
        pass
    versions = []
    for name in PACKAGES:
        try:
            versions.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            versions.append(f"{name} (not installed)")
    nproc = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    tree = revision()
    return [f"nproc {nproc}, {cpu}{memory}; {platform.system()} {platform.release()}",
            f"Python {platform.python_version()} ({sys.executable}); " + ", ".join(versions)
            + (f"; tree at commit {tree}" if tree else "")]


def revision() -> str:
    """The checkout's commit (with "+changes" when the tree differs from it), or "" outside git."""
    try:
        head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--", "src"], capture_output=True,
                               text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""
    return head + ("+changes" if dirty else "")


def _load() -> str:
    try:
        return " / ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "?"


def wait_for_quiet(limit_s: float) -> None:
    """Wait (at most ``limit_s``) until the 1-minute load average is below half the CPUs: other work on a
    shared machine inflates wall times."""
    deadline = time.monotonic() + limit_s
    quiet = (os.cpu_count() or 1) / 2
    while time.monotonic() < deadline:
        try:
            if os.getloadavg()[0] < quiet:
                return
        except OSError:
            return
        time.sleep(5)


def _fmt_s(values: list[float]) -> tuple[str, str, str]:
    return f"{statistics.median(values):.3f}", f"{min(values):.3f}", f"{max(values):.3f}"


def verdict(result: Result) -> tuple[str, str | None]:
    """The "target" cell and, when a target is missed, the gap for the closing note."""
    row = result.row
    if result.status != "ok":
        return "-", None
    parts, gaps, met = [], [], True
    median = statistics.median(result.seconds)
    if row.target_s is not None:
        parts.append(f"<= {row.target_s:g} s")
        if median > row.target_s:
            met = False
            gaps.append(f"{median:.2f} s against {row.target_s:g} s (+{median - row.target_s:.2f} s)")
    if row.target_ratio is not None:
        yardstick = "the lesson's script" if row.paired_with == LESSON else "the hand-written script"
        parts.append(f"<= {row.target_ratio:g}x {yardstick}")
        if not result.ratios:
            met = False
            gaps.append(f"no ratio: {yardstick} was not timed in this run")
        else:
            ratio = statistics.median(result.ratios)
            parts[-1] += f" ({ratio:.2f}x, run by run)"
            if ratio > row.target_ratio:
                met = False
                gaps.append(f"{ratio:.2f}x {yardstick} against {row.target_ratio:g}x")
    if row.target_rss is not None:
        peak = max(result.rss)
        parts.append(f"RSS <= {row.target_rss / GIB:g} GiB")
        if peak > row.target_rss:
            met = False
            gaps.append(f"peak RSS {peak / GIB:.2f} GiB against {row.target_rss / GIB:g} GiB")
    if not parts:
        return "-", None
    cell = ", ".join(parts) + (": **met**" if met else ": **missed**")
    return cell, (f"{row.what}: " + "; ".join(gaps)) if gaps else None


def _warmup_words(warmups: int) -> str:
    return {0: "no warm-up run", 1: "one warm-up run"}.get(warmups, f"{warmups} warm-up runs")


def table(results: list[Result], header: list[str], command: str, runs: tuple[int, int], started: str,
          load: tuple[str, str], installed: bool = False, warmups: int = 1) -> str:
    tree = "as installed" if installed else "with this checkout's `src` first on the path"
    lines = [
        "# releasegate benchmark",
        "",
        (f"Generated {started} by `{command}` ({runs[0]} runs of each small command after "
         f"{_warmup_words(warmups)}, "
         f"{runs[1]} of each large one; medians)."),
        "",
        f"- Machine: {header[0]}",
        f"- Software: {header[1]}",
        (f"- Load average (1/5/15 min) at start: {load[0]}; at end: {load[1]} (other work on the machine "
         "widens the spread of wall times; CPU s, user + system, moves less)."),
        (f"- Every figure is a whole process (`python -m releasegate ...` {tree}): wall time from start to "
         "exit, CPU time and peak RSS of the process; except the analysis row, whose seconds are the analysis "
         "stage timed inside the process, first-use imports included (in brackets: the same stage run again "
         "in that process, and the whole process)."),
        "",
        "| what | command | runs | median s | min s | max s | CPU s | peak RSS MiB | target |",
        "|---|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    gaps, missing = [], []
    for result in results:
        row = result.row
        target, gap = verdict(result)
        if gap:
            gaps.append(gap)
        if result.status != "ok":
            if result.status.startswith("n/a"):
                missing.append(row.what)
            planned = f"<= {row.target_s:g} s" if row.target_s is not None else "-"
            lines.append(f"| {row.what} | `{row.shown}` | - | {result.status} | | | | | {planned} |")
            continue
        median, low, high = _fmt_s(result.seconds)
        if row.in_process:
            median += (f" (run again {statistics.median(result.again):.2f}; "
                       f"process {statistics.median(result.wall):.2f})")
        lines.append(f"| {row.what} | `{row.shown}` | {len(result.seconds)} | {median} | {low} | {high} | "
                     f"{statistics.median(result.cpu):.2f} | {max(result.rss) / 1024 ** 2:.0f} | {target} |")
    lines += ["", "**Closing note.** " + closing(gaps, missing, results)]
    return "\n".join(lines) + "\n"


def closing(gaps: list[str], missing: list[str], results: list[Result]) -> str:
    failed = [f"{r.row.what}: {r.status}" for r in results if r.status.startswith("failed")]
    parts = []
    if not gaps and not failed:
        parts.append("Every target measured here is met.")
    if gaps:
        parts.append("Missed: " + "; ".join(gaps) + ".")
    if failed:
        parts.append("Failed: " + "; ".join(failed) + ".")
    if missing:
        parts.append("Not measurable yet (this tree lacks the format or path; rerun after the merge): "
                     + "; ".join(missing) + ".")
    return " ".join(parts)


def _scaling_section(path: Path) -> str:
    """The sections of RESULTS.md this script does not measure, kept when the table is rewritten: the
    hand-written notes on where the time goes (once the README's), bench/scaling.py's, bench/run_client.py's
    and bench/run_store.py's for ``releasegate run``, bench/explorer.py's for the HTML note's case explorer, and the columnar yardstick's."""
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    kept = ""
    present = [name for name in ("internals", "run-engine", "scaling", "install", "explorer", "columnar") if f"<!-- {name}:start -->" in old]
    for name in sorted(present, key=lambda name: old.index(f"<!-- {name}:start -->")):  # in the file's order
        start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
        kept += "\n\n" + start + old.split(start, 1)[1].split(end, 1)[0] + end + "\n"
    return kept


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Time releasegate's commands against the targets of issue 8.")
    parser.add_argument("--quick", action="store_true", help="3 runs of small commands, 1 of large ones.")
    parser.add_argument("--runs", type=int, help="Runs of each small command (default 5).")
    parser.add_argument("--large-runs", type=int, help="Runs of each large command (default 3).")
    parser.add_argument("--warmups", type=int, default=1, metavar="N",
                        help="Unrecorded runs of each small command before its recorded ones (default 1).")
    parser.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()) / "releasegate-bench",
                        help="Where the synthetic inputs are generated (and reused) and outputs written.")
    parser.add_argument("--out", type=Path, default=BENCH / "RESULTS.md", help="Markdown table written here.")
    parser.add_argument("--only", action="append", help="Run only rows whose description contains this text.")
    parser.add_argument("--wait-for-quiet", type=float, default=0.0, metavar="SECONDS",
                        help="Before each row, wait up to this long for the load average to drop below nproc/2.")
    parser.add_argument("--installed", action="store_true",
                        help="Time the installed releasegate instead of this checkout's src/.")
    parser.add_argument("--lesson-python", metavar="PYTHON",
                        help="The interpreter of the lesson's script, which needs scipy (not in `pip install .`): "
                             "e.g. .venv/bin/python of `make setup-test`; default this one.")
    args = parser.parse_args(argv)
    runs = (args.runs or (3 if args.quick else 5), args.large_runs or (1 if args.quick else 3))

    started = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    load_start = _load()
    env = _environment(args.installed)
    workdir = args.workdir.resolve()
    (workdir / "out").mkdir(parents=True, exist_ok=True)
    every = rows(workdir, args.lesson_python)
    selected = [r for r in every if not args.only or any(t.lower() in r.what.lower() for t in args.only)]
    # A paired row brings its yardstick along (timed as its own row too).
    wanted = {r.paired_with for r in selected if r.target_ratio is not None}
    selected = [r for r in every if r in selected or r.what in wanted]
    have = available({m for r in selected for m in r.needs}, env)
    if any(a in (BIG, BIG_PLAIN, RUNS) for r in selected if set(r.needs) <= have for a in r.argv):
        generate_inputs(workdir, selected)
    results = []
    yardsticks = {r.what: r for r in selected if r.yardstick}
    for row in selected:
        if not set(row.needs) <= have:
            results.append(Result(row, status="n/a (not available in this tree)"))
            continue
        print(f"timing: {row.what} ...", file=sys.stderr)
        wait_for_quiet(args.wait_for_quiet)
        results.append(measure(row, runs[1] if row.large else runs[0], env, ROOT, yardsticks.get(row.paired_with),
                               args.warmups))
    command = " ".join(["python bench/run.py", *(argv if argv is not None else sys.argv[1:])])
    text = table(results, machine(), command, runs, started, (load_start, _load()), args.installed, args.warmups)
    print(text)
    args.out.write_text(text + _scaling_section(args.out), encoding="utf-8")
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
