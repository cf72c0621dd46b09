"""Benchmark of ``releasegate run`` at the cell limit (not a timed test): wall, CPU, peak RSS and store bytes per cell.

One whole ``releasegate run CONFIG.toml`` process per measurement, on fake systems (answers from hashes, no
wait: the engine, the plan and the store are what is measured), in a fresh store each time:
- ``few``: 1,000 cases x 500 runs x 2 systems (a config that asks for many runs of a small suite);
- ``many``: 500,000 cases x 1 run x 2 systems (a large suite, its case table as big as the plan).
Each run is measured from outside (``os.wait4``'s rusage: user + system CPU, peak RSS); the store's size is the
database file after the run (its WAL folded in: the run closes it). ``--python`` names the interpreter of the
install to measure (a fresh ``pip install .``); two of them are run in turn, round by round (paired).
The load average is printed before and after. Prints one JSON document.

Usage: python bench/run_scale.py [--cells 1000000] [--shapes few,many] [--rounds 1]
       [--python /path/to/venv/bin/python ...]
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SYSTEMS = """
[[run.system]]
name = "a"
kind = "fake"

[[run.system]]
name = "b"
kind = "fake"
seed = 1

[run.metric]
kind = "exact"
"""


def write_inputs(workdir: Path, shape: str, cells: int) -> Path:
    """The case file and the config of one shape; returns the config's path."""
    cases, runs = (1000, cells // 2000) if shape == "few" else (cells // 2, 1)
    case_file = workdir / f"cases_{shape}_{cases}.csv"
    if not case_file.exists():
        with case_file.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(["case_id", "category", "input", "reference"])
            for i in range(cases):
                writer.writerow([f"C{i:06d}", f"cat{i % 9}", f"question {i}", f"answer{i % 7}"])
    config = workdir / f"{shape}.toml"
    config.write_text(f'[run]\ncases = "{case_file.name}"\nruns = {runs}\nstore = "store"\n{SYSTEMS}',
                      encoding="utf-8")
    return config


def measure(python: str, config: Path) -> dict[str, float]:
    """One ``releasegate run`` in its own process, on a fresh store."""
    store = config.parent / "store"
    shutil.rmtree(store, ignore_errors=True)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    start = time.perf_counter()
    process = subprocess.Popen([python, "-m", "releasegate", "run", str(config)], cwd=config.parent, env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    stderr = process.stderr.read().decode("utf-8", "replace") if process.stderr else ""
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        raise SystemExit(f"{python} run {config.name} exited {code}: {stderr.strip()[-500:]}")
    size = sum(path.stat().st_size for path in store.iterdir() if path.name.startswith("releasegate-run.sqlite"))
    return {"wall_s": round(wall, 2), "cpu_s": round(usage.ru_utime + usage.ru_stime, 2),
            "peak_rss_mib": round(usage.ru_maxrss / 1024, 1), "store_bytes": size}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cells", type=int, default=1_000_000)
    parser.add_argument("--shapes", default="few,many")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--python", action="append", help="an install's interpreter (repeat to pair two)")
    parser.add_argument("--workdir", type=Path, default=None)
    args = parser.parse_args()
    pythons = args.python or [sys.executable]
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="rg-run-scale-"))
    workdir.mkdir(parents=True, exist_ok=True)
    load_before = os.getloadavg()
    figures: dict[str, dict[str, list[dict[str, float]]]] = {}
    for shape in args.shapes.split(","):
        config = write_inputs(workdir, shape, args.cells)
        for _ in range(args.rounds):
            for python in pythons:
                figures.setdefault(shape, {}).setdefault(python, []).append(measure(python, config))
                print(shape, python, figures[shape][python][-1], file=sys.stderr, flush=True)
    for shape in figures.values():
        for runs in shape.values():
            for one in runs:
                one["store_bytes_per_cell"] = round(one["store_bytes"] / args.cells, 1)
                one["cells_per_s"] = round(args.cells / one["wall_s"], 1)
                one["cpu_ms_per_cell"] = round(one["cpu_s"] / args.cells * 1000, 4)
    print(json.dumps({"cells": args.cells, "load_before": [round(x, 2) for x in load_before],
                      "load_after": [round(x, 2) for x in os.getloadavg()], "figures": figures}, indent=1))


if __name__ == "__main__":
    main()
