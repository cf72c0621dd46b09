"""One writer per store (issue 30 item 5): a second run on a store being written is refused at once with one
line naming the running process; the first run calls each cell once. A stub server on 127.0.0.1."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from conftest import run_cli
from releasegate.errors import InputError
from releasegate.run import run_config
from releasegate.run.config import load_config
from releasegate.run.lock import LOCK_NAME, StoreLock
from run_support import StubServer, answer, write_cases, write_config

ROOT = Path(__file__).resolve().parents[2]
CELLS = 40


def test_a_second_run_on_a_store_in_use_is_refused_naming_the_first(tmp_path):
    def slow(number, body):
        return 200, {}, answer(body["messages"][-1]["content"].split()[-1]), 0.05

    with StubServer(slow) as stub:
        cases = write_cases(tmp_path / "cases.csv", CELLS)
        system = {"name": "r1", "kind": "openai", "base_url": stub.base_url, "model": "m"}
        path = write_config(tmp_path / "run.toml", {"cases": cases.name, "store": "store", "max_concurrency": 2},
                            [system], {"kind": "exact"})
        env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
        first = subprocess.Popen([sys.executable, "-m", "releasegate.cli", "run", str(path)], env=env,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        lock = tmp_path / "store" / LOCK_NAME
        try:
            for _ in range(3000):  # polls until the first run holds the lock and has called: not a timing test
                if lock.exists() and lock.read_text().strip() and stub.calls >= 2:
                    break
                assert first.poll() is None, "the first run ended before the second started"
                time.sleep(0.01)
            holder = json.loads(lock.read_text())
            assert holder["pid"] == first.pid
            second = run_cli("run", path)
            calls_seen = stub.calls
        finally:
            first.wait(timeout=120)
        assert first.returncode == 0
    assert second.exit_code == 2 and calls_seen < CELLS
    lines = second.output.strip().splitlines()
    assert len(lines) == 1 and "another run is writing to this store" in lines[0]
    assert f"pid {first.pid}" in lines[0] and "run.toml" in lines[0]
    assert stub.calls == CELLS  # every cell called once: the second run called nothing


def test_the_lock_is_released_with_the_run_and_a_dry_run_needs_none(tmp_path):
    cases = write_cases(tmp_path / "cases.csv", 5)
    config = load_config(write_config(tmp_path / "run.toml", {"cases": cases.name, "store": "store"},
                                      [{"name": "a", "kind": "fake"}], {"kind": "exact"}))
    assert run_config(config).complete
    with StoreLock(config.store):  # free again after the run
        try:
            run_config(config)
        except InputError as exc:
            assert "another run is writing to this store" in str(exc) and f"pid {os.getpid()}" in str(exc)
        else:
            raise AssertionError("a run on a locked store was not refused")
        assert run_config(config, dry_run=True).plan.counts["done"] == 5  # readers take no lock
