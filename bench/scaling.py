"""How the cost grows: time and peak memory per stage of `report -o .json -o .md`, 10^4 to 10^7 cases x 2 releases.

Inputs are bench/generate.py's pass/fail files (40 categories, latency and tokens; the candidate changes about
5% of the cases), cached in --workdir. For each size, --runs rounds of three child processes, one after the
other so that each round sees the same machine: pandas' own ``read_csv`` of the file (the yardstick of issue
19), the real command ``releasegate report FILE -o .json -o .md`` (the whole-report figure), and
bench/stages.py, which runs the CLI's stages one after another in one process and times each (wall and CPU
seconds, peak RSS so far). Whole-process figures come from ``os.wait4``. The table gives medians over the
rounds, and the ratio to pandas is the median of each round's own ratio. The table is printed and written
between the scaling markers of bench/RESULTS.md (bench/run.py keeps it).

releasegate's sources are byte-compiled first (``compileall``), as pandas' are: a user's Python caches the
bytecode on the first run, but an environment with PYTHONDONTWRITEBYTECODE (this one) would otherwise compile
every module on every run (0.05-0.1 s).

    python bench/scaling.py                       # 10^4 .. 10^7, 5 rounds (1 for 10^7; ~10 min here)
    python bench/scaling.py --sizes 1000000 --runs 9
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
SIZES = (10_000, 100_000, 1_000_000, 10_000_000)
STAGES = ("imports", "load", "validate", "analyze", "decide", "json", "markdown")
START, END = "<!-- scaling:start -->", "<!-- scaling:end -->"
CATEGORIES = 40
RUNS = 5
LARGE = 5_000_000  # sizes from here run once: a round of 10^7 takes a minute


def child(argv: list[str], quiet: bool = False) -> tuple[bytes, float, float, float]:
    """Run ``argv`` with this checkout's src first; its stdout, wall s, CPU s and peak RSS MiB (``quiet``: its
    stderr thrown away, the command's "wrote ..." lines)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])}
    started = time.perf_counter()
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL if quiet else None, env=env)
    output = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) not in (0, 1):  # report exits 1 on DON'T SHIP
        raise SystemExit(f"failed: {' '.join(argv)}")
    return output, wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def load_average() -> str:
    return " / ".join(f"{x:.2f}" for x in os.getloadavg())


def _report_command(path: Path, out: Path, baseline: str) -> list[str]:
    return [sys.executable, "-m", "releasegate", "report", str(path), "--baseline", baseline,
            "-o", str(out / "note.json"), "-o", str(out / "note.md")]


def measure(n: int, workdir: Path, runs: int) -> dict:
    sys.path.insert(0, str(BENCH))
    from generate import RELEASES, binary_results

    path = binary_results(workdir, n, n_categories=CATEGORIES)
    rounds = []
    for _ in range(runs):
        _, pandas_wall, pandas_cpu, pandas_rss = child([sys.executable, str(BENCH / "stages.py"), str(path),
                                                        "--pandas-only"])
        out = Path(tempfile.mkdtemp(prefix="scaling-", dir=workdir))
        try:
            _, wall, cpu, rss = child(_report_command(path, out, RELEASES[0]), quiet=True)
        finally:
            shutil.rmtree(out)
        stages, *_ = child([sys.executable, str(BENCH / "stages.py"), str(path), "--baseline", RELEASES[0]])
        rounds.append({"pandas": (pandas_wall, pandas_cpu, pandas_rss), "whole": (wall, cpu, rss),
                       "stages": json.loads(stages)})
    return {"n": n, "mb": path.stat().st_size / 1e6, **summarise(rounds), "load_average": load_average()}


def summarise(rounds: list[dict]) -> dict:
    """Medians over the rounds; the ratio to pandas is the median of each round's own ratio (the rounds'
    pandas and whole-command runs are neighbours in time, so a drift of the machine's speed cancels)."""
    median = statistics.median

    def column(key: str, i: int) -> float:
        return median(r[key][i] for r in rounds)

    stage_medians = {s: {k: median(r["stages"][s][k] for r in rounds) for k in ("wall_s", "cpu_s", "peak_mib")}
                     for s in STAGES}
    return {"runs": len(rounds),
            "pandas": tuple(column("pandas", i) for i in range(3)),
            "whole": (column("whole", 0), column("whole", 1), max(r["whole"][2] for r in rounds)),
            "ratio_wall": median(r["whole"][0] / r["pandas"][0] for r in rounds),
            "ratio_cpu": median(r["whole"][1] / r["pandas"][1] for r in rounds),
            "ratio_range": (min(r["whole"][0] / r["pandas"][0] for r in rounds),
                            max(r["whole"][0] / r["pandas"][0] for r in rounds)),
            "stages": stage_medians}


def table(rows: list[dict], started_load: str, ended_load: str) -> str:
    head = ("| cases x 2 | CSV MB | rounds | pandas read_csv, whole process: s (CPU s), MiB | "
            + " | ".join(STAGES[1:]) + " | `report -o .json -o .md`, whole process: s (CPU s), MiB | "
            "x pandas: wall (CPU), range |")
    lines = [head, "|" + "---|" * (len(STAGES) + 5)]
    for r in rows:
        pw, pc, pr = r["pandas"]
        w, c, m = r["whole"]
        low, high = r["ratio_range"]
        cells = [f"{r['stages'][s]['wall_s']:.2f} ({r['stages'][s]['cpu_s']:.2f}), {r['stages'][s]['peak_mib']:,.0f}"
                 for s in STAGES[1:]]
        spread = f", {low:.1f}-{high:.1f}" if r["runs"] > 1 else ""
        lines.append(f"| {r['n']:,} | {r['mb']:.0f} | {r['runs']} | {pw:.2f} ({pc:.2f}), {pr:,.0f} | "
                     + " | ".join(cells)
                     + f" | {w:.2f} ({c:.2f}), {m:,.0f} | {r['ratio_wall']:.1f}x ({r['ratio_cpu']:.1f}x){spread} |")
    return "\n".join([
        START,
        "## Scaling: time and peak memory per stage",
        "",
        (f"Generated {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} by `python bench/scaling.py`. Load "
        f"average (1/5/15 min) at start: {started_load}; at end: {ended_load}. Each round runs pandas' read, the "
        "whole command and the stages one after another; every figure is the median over the rounds, and the "
        "ratio is the median of each round's whole command over that round's pandas read (with the lowest and "
        "highest round). Each stage cell is wall s (CPU s, all threads), then the process's peak RSS in MiB at "
        "the end of that stage (it only grows). The whole-process columns include interpreter start-up and "
        "imports; pandas' column is `pandas.read_csv(file)` alone in its own process, after `import pandas`."),
        "",
        *lines,
        END,
    ])


def write_results(text: str, path: Path = BENCH / "RESULTS.md", start: str = START, end: str = END) -> None:
    """``text`` (which opens with ``start`` and closes with ``end``) in place of the section between those
    markers, or at the end of the file."""
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    if start in old:
        head, rest = old.split(start, 1)
        old = head.rstrip("\n") + rest.split(end, 1)[1]
    path.write_text(old.rstrip("\n") + "\n\n" + text + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    parser.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()) / "releasegate-bench")
    parser.add_argument("--runs", type=int, default=RUNS, help=f"rounds per size below {LARGE:,} cases")
    parser.add_argument("--no-write", action="store_true", help="print the table only")
    args = parser.parse_args(argv)
    args.workdir.mkdir(parents=True, exist_ok=True)
    compileall.compile_dir(ROOT / "src", quiet=1)
    started = load_average()
    rows = []
    for n in args.sizes:
        print(f"scaling: {n:,} cases ...", file=sys.stderr)
        rows.append(measure(n, args.workdir, 1 if n >= LARGE else args.runs))
        print(json.dumps(rows[-1]), file=sys.stderr)
    text = table(rows, started, load_average())
    print(text)
    if not args.no_write:
        write_results(text)


if __name__ == "__main__":
    main()
