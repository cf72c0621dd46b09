"""Benchmark of a large ``releasegate run`` store (issue 30, item 8; not a timed test), printed as one JSON line.

A store of ``--store-cells`` cells (default 100,000: 2 releases x 10,000 cases x 5 runs, every cell ok and
scored) is written directly, then timed, each ``--repeats`` times (medians):
1. planning a resume of it (open the store, read every cell's state, classify; goal < 1 s);
2. ``read_store``, the tidy table and its holes as the gate reads them (goal < 1 s);
3. ``releasegate check STORE`` as a whole process, start-up included (goal < 2 s);
4. paired with 3, in turn: ``releasegate check CELLS.csv`` on the same cells as the gate's table written as CSV
   (goal: the store within 1.2x the CSV), the ratio taken pair by pair.
The checks run on ``--python``'s install (a fresh ``pip install .``: its .pyc files written; default this
interpreter with this checkout's src). CPU seconds are printed beside the wall times: on a shared machine the
wall time includes waiting for a core. The load average is printed before and after. HTTP throughput is
bench/run_client.py.

Usage: PYTHONPATH=src python bench/run_store.py [--store-cells 100000] [--repeats 5] [--python VENV/bin/python]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RUNS = 5


def build_store(workdir: Path, n_cells: int):
    """n_cells ok, scored cells (2 releases, 5 runs), as a run would leave them; the config and its cases."""
    import pandas as pd

    from releasegate.run.config import parse_config
    from releasegate.run.plan import CaseTable, make_plan, save_expected
    from releasegate.run.runner import output_hash
    from releasegate.run.store import Store
    from releasegate.run.table import keep_columns

    systems = [{"name": f"r{i}", "kind": "fake", "seed": i} for i in range(2)]
    config = parse_config({"cases": "unused.csv", "store": str(workdir / "big"), "runs": RUNS, "system": systems,
                           "metric": {"kind": "exact"}})
    n_cases = n_cells // (2 * RUNS)
    cases = CaseTable(pd.DataFrame({"case_id": [f"C{i:06d}" for i in range(n_cases)],
                                    "category": [f"cat{i % 9}" for i in range(n_cases)],
                                    "input": [f"question {i}" for i in range(n_cases)], "reference": "x"}))
    with Store(config.store) as db:
        make_plan(db, config, cases)
        save_expected(db, config)
        hashes = db.connection.execute("SELECT case_id, input_hash FROM cases ORDER BY position").fetchall()
        rows = []
        for s, system in enumerate(config.systems):
            for i, (case_id, input_hash) in enumerate(hashes):
                for run in range(RUNS):
                    output = "x" if (i * 7 + run + s) % 10 else "y"
                    rows.append((system.name, case_id, run, input_hash, system.system_hash, "ok", output,
                                 output_hash(input_hash, output), 20, 5, 1e-5, 600.0 + i % 300, "fake",
                                 "fp", "stop", '[{"n": 1, "kind": "ok", "status": null, "message": ""}]',
                                 "2026-12-01T00:00:00.000000Z", "2026-12-01T00:00:01.000000Z"))
        db.connection.execute("BEGIN")
        db.connection.executemany(
            "INSERT INTO cells (release, case_id, run, input_hash, system_hash, status, output, output_hash, "
            "input_tokens, output_tokens, cost, latency_ms, model, fingerprint, finish_reason, attempts, started_at, "
            "finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
        db.connection.executemany(
            "INSERT OR IGNORE INTO scores (output_hash, metric_hash, metric, status, value, scored_at) "
            "VALUES (?, ?, 'passed', 'ok', ?, 't')",
            {(r[7], config.metric.metric_hash, 1.0 if r[6] == "x" else 0.0) for r in rows})
        db.connection.execute("COMMIT")
        keep_columns(db.connection)  # as a finished run keeps them
    return config, cases


def timed(function, repeats: int) -> tuple[float, float]:
    walls, cpus = [], []
    for _ in range(repeats):
        start, cpu = time.perf_counter(), time.process_time()
        function()
        walls.append(time.perf_counter() - start)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls), statistics.median(cpus)


def check_process(targets: list[Path], repeats: int, python: str | None) -> list[dict[str, float]]:
    """``releasegate check TARGET`` in its own process for each target in turn, ``repeats`` rounds: per target
    the median wall, CPU (user + system of the child) and the exit code, and the median of the first target's
    wall and CPU over each later one's, pair by pair. The warm-up writes the .pyc files, as ``pip install .``
    does: under PYTHONDONTWRITEBYTECODE every timed run compiled releasegate's modules again (about 0.2 CPU s a run)."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if python is None:
        env["PYTHONPATH"] = str(ROOT / "src")
    else:
        env.pop("PYTHONPATH", None)
    commands = [[python or sys.executable, "-m", "releasegate", "check", str(target), "--baseline", "r0"]
                for target in targets]
    for command in commands:  # warm-up: the page cache, the .pyc files
        subprocess.run(command, env=env, capture_output=True, check=False)
    walls: list[list[float]] = [[] for _ in targets]
    cpus: list[list[float]] = [[] for _ in targets]
    codes = [0 for _ in targets]
    for _ in range(repeats):
        for i, command in enumerate(commands):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            done = subprocess.run(command, env=env, capture_output=True, check=False)
            walls[i].append(time.perf_counter() - start)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpus[i].append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
            codes[i] = done.returncode
    out = []
    for i in range(len(targets)):
        figures = {"seconds": round(statistics.median(walls[i]), 3),
                   "cpu_seconds": round(statistics.median(cpus[i]), 3), "exit": codes[i]}
        if i:
            figures["first_over_this_wall"] = round(statistics.median(a / b for a, b in zip(walls[0], walls[i])), 3)
            figures["first_over_this_cpu"] = round(statistics.median(a / b for a, b in zip(cpus[0], cpus[i])), 3)
        out.append(figures)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store-cells", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--python", help="the interpreter of the install whose check is timed")
    args = parser.parse_args()
    from releasegate.load.store import read_store_input
    from releasegate.run.plan import make_plan
    from releasegate.run.store import Store
    from releasegate.run.table import read_store

    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="rg-run-store-bench-") as tmp:
        config, cases = build_store(Path(tmp), args.store_cells)
        expected = len(cases) * 2 * RUNS
        csv = Path(tmp) / "cells.csv"
        read_store_input(config.store, None, False).table.to_csv(csv, index=False)

        def plan() -> None:
            with Store(config.store) as db:
                made = make_plan(db, config, cases)
            assert made.counts["done"] == expected and not made.calls

        def read() -> None:
            result = read_store(config.store)
            assert len(result.table) == expected and not result.holes

        plan_s, plan_cpu = timed(plan, args.repeats)
        read_s, read_cpu = timed(read, args.repeats)
        store, as_csv = check_process([config.store, csv], args.repeats, args.python)
    ratios = {"store_over_csv_wall": as_csv["first_over_this_wall"],
              "store_over_csv_cpu": as_csv["first_over_this_cpu"]}
    print(json.dumps({"store_cells": expected, "repeats": args.repeats, "plan_seconds": round(plan_s, 3),
                      "plan_cpu_seconds": round(plan_cpu, 3), "read_store_seconds": round(read_s, 3),
                      "read_store_cpu_seconds": round(read_cpu, 3), "check_seconds": store["seconds"],
                      "check_cpu_seconds": store["cpu_seconds"], "check_exit": store["exit"],
                      "check_csv_seconds": as_csv["seconds"], "check_csv_cpu_seconds": as_csv["cpu_seconds"],
                      "check_csv_exit": as_csv["exit"], **ratios,
                      "load_before": [round(x, 2) for x in load_before],
                      "load_after": [round(x, 2) for x in os.getloadavg()]}))


if __name__ == "__main__":
    main()
