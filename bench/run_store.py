"""Benchmark of ``releasegate run`` (issue 20, not a timed test): two figures, printed as one JSON line.

1. cells per second at max_concurrency 32 against the stub OpenAI-compatible server (no delay), the server in
   its own process on 127.0.0.1 so that it does not share the runner's interpreter lock (goal >= 500);
2. the time to plan a resume of a 100,000-cell store (open it, read every cell's state, classify; goal < 1 s).
CPU seconds of this process are printed beside the wall times: on a shared machine the wall time includes
waiting for a core.

Usage: PYTHONPATH=src python bench/run_store.py [--cells 4000] [--concurrency 32] [--store-cells 100000]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SERVER = """
import sys
sys.path.insert(0, {tests!r})
from run_support import StubServer
stub = StubServer()
stub.thread.start()
print(stub.server.server_address[1], flush=True)
sys.stdin.read()  # serve until the benchmark closes our stdin
"""


def cells_per_second(workdir: Path, cells: int, concurrency: int) -> dict[str, float]:
    sys.path.insert(0, str(ROOT / "tests"))
    from releasegate.run import run_config
    from releasegate.run.config import load_config
    from run_support import write_cases, write_config

    server = subprocess.Popen([sys.executable, "-c", SERVER.format(tests=str(ROOT / "tests"))], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        port = int(server.stdout.readline())
        cases = write_cases(workdir / "cases.csv", cells // 2)
        systems = [{"name": n, "kind": "openai", "base_url": f"http://127.0.0.1:{port}/v1", "model": n}
                   for n in ("r1", "r2")]
        config = load_config(write_config(workdir / "run.toml", {"cases": cases.name, "store": "store",
                                                                 "max_concurrency": concurrency},
                                          systems, {"kind": "exact"}))
        start, cpu = time.perf_counter(), time.process_time()
        result = run_config(config)
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    finally:
        server.stdin.close()
        server.wait(timeout=30)
    assert result.complete, "the benchmark run left holes"
    return {"cells": cells, "concurrency": concurrency, "seconds": round(elapsed, 3),
            "cells_per_second": round(cells / elapsed, 1), "runner_cpu_seconds": round(cpu, 3)}


def resume_plan_time(workdir: Path, n_cells: int) -> dict[str, float]:
    """A store of n_cells ok cells written directly, then the plan of a resume over all of them."""
    from releasegate.run.config import parse_config
    from releasegate.run.plan import Case, make_plan
    from releasegate.run.runner import output_hash
    from releasegate.run.store import Store

    systems = [{"name": f"r{i}", "kind": "fake"} for i in range(2)]
    config = parse_config({"cases": "unused.csv", "store": str(workdir / "big"), "runs": 5, "system": systems,
                           "metric": {"kind": "exact"}})
    n_cases = n_cells // (2 * 5)
    cases = [Case(f"C{i:06d}", f"h{i}", {"case_id": f"C{i:06d}", "reference": "x"}) for i in range(n_cases)]
    with Store(config.store) as db:
        rows = []
        for system in config.systems:
            for case in cases:
                for run in range(5):
                    out = output_hash(case.input_hash, "x")
                    rows.append((system.name, case.case_id, run, case.input_hash, system.system_hash, "ok", "x", out,
                                 "[]", "t", "t"))
        db.connection.execute("BEGIN")
        db.connection.executemany(
            "INSERT INTO cells (release, case_id, run, input_hash, system_hash, status, output, output_hash, attempts, "
            "started_at, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
        db.connection.executemany(
            "INSERT OR IGNORE INTO scores (output_hash, metric_hash, metric, status, value, scored_at) "
            "VALUES (?, ?, 'passed', 'ok', 1.0, 't')", {(r[7], config.metric.metric_hash) for r in rows})
        db.connection.execute("COMMIT")
    start, cpu = time.perf_counter(), time.process_time()
    with Store(config.store) as db:
        plan = make_plan(db, config, cases)
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    assert plan.counts["done"] == n_cases * 10 and not plan.calls
    return {"store_cells": n_cases * 10, "plan_seconds": round(elapsed, 3), "plan_cpu_seconds": round(cpu, 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cells", type=int, default=4000)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--store-cells", type=int, default=100_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="rg-run-bench-") as tmp:
        figures = {**cells_per_second(Path(tmp), args.cells, args.concurrency),
                   **resume_plan_time(Path(tmp), args.store_cells)}
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
