"""Done-when 3 of issue 20: kill -9 mid-run; the store is intact, committed cells are kept, few calls wasted."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from releasegate.run import run_config
from releasegate.run.config import load_config
from releasegate.run.store import Store
from run_support import StubServer, answer, write_cases, write_config

ROOT = Path(__file__).resolve().parents[2]
CELLS, CONCURRENCY = 300, 4


def _ok_cells(db: Path) -> set[tuple[str, str, int]]:
    connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)
    try:
        return set(connection.execute("SELECT release, case_id, run FROM cells WHERE status = 'ok'"))
    except sqlite3.OperationalError:
        return set()  # the tables are not created yet
    finally:
        connection.close()


def test_kill_9_mid_run_keeps_every_committed_cell(tmp_path):
    def slow(number, body):
        return 200, {}, answer(body["messages"][-1]["content"].split()[-1]), 0.01

    with StubServer(slow) as stub:
        cases = write_cases(tmp_path / "cases.csv", CELLS // 2)
        systems = [{"name": n, "kind": "openai", "base_url": stub.base_url, "model": n} for n in ("r1", "r2")]
        path = write_config(tmp_path / "run.toml", {"cases": cases.name, "store": "store",
                                                    "max_concurrency": CONCURRENCY}, systems, {"kind": "exact"})
        env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
        child = subprocess.Popen([sys.executable, "-m", "releasegate.cli", "run", str(path)], env=env,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        db = tmp_path / "store" / "releasegate-run.sqlite"
        committed: set = set()
        try:
            for _ in range(6000):  # polls until enough cells are committed, not a timing assertion
                if db.exists():
                    committed = _ok_cells(db)
                    if len(committed) >= 60:
                        break
                if child.poll() is not None:
                    break
                time.sleep(0.01)
            os.kill(child.pid, signal.SIGKILL)
        finally:
            child.kill()
            child.wait(timeout=60)
        assert child.returncode == -signal.SIGKILL  # killed mid-run, not finished
        assert 60 <= len(committed) < CELLS
        calls_before = stub.calls

        with Store(tmp_path / "store") as store:
            assert store.integrity() == "ok"
            kept = {(c["release"], c["case_id"], c["run"]) for c in store.cells() if c["status"] == "ok"}
        assert committed <= kept

        result = run_config(load_config(path))
        assert result.complete and len(result.table) == CELLS
        assert result.stats.system_calls == CELLS - len(kept)
        # Only the calls in flight at the kill are lost: max_concurrency per endpoint, and r1 and r2 are two
        # endpoints (one model each).
        assert stub.calls <= CELLS + 2 * CONCURRENCY, (calls_before, stub.calls)
