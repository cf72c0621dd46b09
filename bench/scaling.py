"""How the cost grows: time and peak memory per stage of `report -o .json -o .md`, 10^4 to 10^7 cases x 2 releases.

Inputs are bench/generate.py's pass/fail files (40 categories, latency and tokens; the candidate changes about
5% of the cases), cached in --workdir. For each size, two child processes: pandas' own ``read_csv`` of the
file (the yardstick of issue 19) and bench/stages.py, which runs the CLI's stages one after another and
times each (wall and CPU seconds, peak RSS so far). The whole-process figures come from ``os.wait4``. The
table is printed and written between the scaling markers of bench/RESULTS.md (bench/run.py keeps it).

    python bench/scaling.py                       # 10^4 .. 10^7 (the 10^7 file is 0.95 GB; ~10 min here)
    python bench/scaling.py --sizes 10000 100000  # a quick look
"""

from __future__ import annotations

import argparse
import json
import os
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


def child(argv: list[str]) -> tuple[dict, float, float, float]:
    """Run ``python argv`` with this checkout's src first; its JSON line, wall s, CPU s and peak RSS MiB."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])}
    started = time.perf_counter()
    process = subprocess.Popen([sys.executable, *argv], stdout=subprocess.PIPE, env=env)
    output = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"failed: {' '.join(argv)}")
    return json.loads(output), wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def load_average() -> str:
    return " / ".join(f"{x:.2f}" for x in os.getloadavg())


def measure(n: int, workdir: Path) -> dict:
    sys.path.insert(0, str(BENCH))
    from generate import RELEASES, binary_results

    path = binary_results(workdir, n, n_categories=CATEGORIES)
    _, pandas_wall, pandas_cpu, pandas_rss = child([str(BENCH / "stages.py"), str(path), "--pandas-only"])
    stages, wall, cpu, rss = child([str(BENCH / "stages.py"), str(path), "--baseline", RELEASES[0]])
    return {"n": n, "mb": path.stat().st_size / 1e6, "pandas": (pandas_wall, pandas_cpu, pandas_rss),
            "stages": stages, "whole": (wall, cpu, rss), "load_average": load_average()}


def table(rows: list[dict], started_load: str, ended_load: str) -> str:
    head = ("| cases x 2 | CSV MB | pandas read_csv, whole process: s (CPU s), MiB | "
            + " | ".join(STAGES[1:]) + " | whole report: s (CPU s), MiB | x pandas: wall (CPU) |")
    lines = [head, "|" + "---|" * (len(STAGES) + 4)]
    for r in rows:
        pw, pc, pr = r["pandas"]
        w, c, m = r["whole"]
        cells = [f"{r['stages'][s]['wall_s']:.2f} ({r['stages'][s]['cpu_s']:.2f}), {r['stages'][s]['peak_mib']:,}"
                 for s in STAGES[1:]]
        lines.append(f"| {r['n']:,} | {r['mb']:.0f} | {pw:.2f} ({pc:.2f}), {pr:,.0f} | " + " | ".join(cells)
                     + f" | {w:.2f} ({c:.2f}), {m:,.0f} | {w / pw:.1f}x ({c / pc:.1f}x) |")
    return "\n".join([
        START,
        "## Scaling: time and peak memory per stage",
        "",
        (f"Generated {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} by `python bench/scaling.py` (one run per "
        f"size). Load average (1/5/15 min) at start: {started_load}; at end: {ended_load}. Each stage cell is "
        "wall s (CPU s, all threads), then the process's peak RSS in MiB at the end of that stage (it only "
        "grows). The whole-process columns include interpreter start-up and imports; pandas' column is "
        "`pandas.read_csv(file)` alone in its own process."),
        "",
        *lines,
        END,
    ])


def write_results(text: str, path: Path = BENCH / "RESULTS.md") -> None:
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    if START in old:
        head, rest = old.split(START, 1)
        old = head.rstrip("\n") + rest.split(END, 1)[1]
    path.write_text(old.rstrip("\n") + "\n\n" + text + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    parser.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()) / "releasegate-bench")
    parser.add_argument("--no-write", action="store_true", help="print the table only")
    args = parser.parse_args(argv)
    args.workdir.mkdir(parents=True, exist_ok=True)
    started = load_average()
    rows = []
    for n in args.sizes:
        print(f"scaling: {n:,} cases ...", file=sys.stderr)
        rows.append(measure(n, args.workdir))
        print(json.dumps(rows[-1]), file=sys.stderr)
    text = table(rows, started, load_average())
    print(text)
    if not args.no_write:
        write_results(text)


if __name__ == "__main__":
    main()
