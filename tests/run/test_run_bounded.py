"""A run's memory does not grow with its plan: the plan is classified a batch at a time, the writer's queue is
bounded, each answer is stored once, and the table is read back only when asked for. These test the batching
logic itself (what is held at once, and that batching changes nothing), not a timing."""

from __future__ import annotations

import asyncio
import sqlite3

import pandas as pd
import pytest

import releasegate.run.table
from releasegate.run import run_config
from releasegate.run import plan as plan_module
from releasegate.run import writer as writer_module
from releasegate.run.config import load_config
from releasegate.run.plan import _slices, make_plan, read_cases
from releasegate.run.store import Store, db_path
from releasegate.run.writer import StoreWriter
from run_support import write_cases, write_config


def _config(tmp_path, *, n=12, runs=3, store="store", systems=None, name="run.toml"):
    cases = write_cases(tmp_path / "cases.csv", n)
    systems = systems or [{"name": "a", "kind": "fake"}, {"name": "b", "kind": "fake", "seed": 1, "accuracy": 0.5}]
    return load_config(write_config(tmp_path / name, {"cases": cases.name, "store": store, "runs": runs},
                                    systems, {"kind": "exact"}))


@pytest.mark.parametrize(("n_cases", "runs", "per_case", "batch"), [(10, 3, 6, 8), (4, 7, 14, 5), (3, 10, 30, 4),
                                                                    (1, 1, 2, 4096)])
def test_the_slices_cover_every_cell_once_within_the_batch(monkeypatch, n_cases, runs, per_case, batch):
    monkeypatch.setattr(plan_module, "BATCH_CELLS", batch)
    systems = per_case // runs
    seen = []
    for first_case, last_case, first_run, last_run in _slices(n_cases, runs, per_case):
        cells = (last_case - first_case) * (last_run - first_run) * systems
        assert 0 < cells <= max(batch, systems)  # a batch never holds more than BATCH_CELLS (or one run's systems)
        seen += [(case, run) for case in range(first_case, last_case) for run in range(first_run, last_run)]
    assert seen == [(case, run) for case in range(n_cases) for run in range(runs)]  # in order, each once


def test_batches_hold_at_most_a_batch_and_give_the_same_plan_in_the_same_order(tmp_path, monkeypatch):
    config = _config(tmp_path)
    cases = read_cases(config.cases_path)
    with Store(tmp_path / "store") as db:
        whole = make_plan(db, config, cases)
        expected = [cell.key for batch in whole.batches() for cell in batch]
        monkeypatch.setattr(plan_module, "BATCH_CELLS", 5)
        small = make_plan(db, config, cases)
        batches = list(small.batches())
    assert all(len(batch) <= 5 for batch in batches) and len(batches) >= 12 * 3 * 2 // 5
    assert [cell.key for batch in batches for cell in batch] == expected
    assert len(expected) == small.calls == 12 * 3 * 2 and small.counts["new"] == 72


def test_a_run_in_small_batches_with_a_small_queue_stores_what_a_run_in_one_does(tmp_path, monkeypatch):
    whole = run_config(_config(tmp_path, store="whole"))
    monkeypatch.setattr(plan_module, "BATCH_CELLS", 4)
    monkeypatch.setattr(writer_module, "MAX_PENDING", 3)
    small = run_config(_config(tmp_path, store="small"))
    assert whole.complete and small.complete and small.stats.system_calls == whole.stats.system_calls == 72
    columns = ["release", "case_id", "run", "passed", "output", "latency_ms"]
    pd.testing.assert_frame_equal(small.table[columns], whole.table[columns])


def test_the_writer_queue_is_bounded_and_a_full_queue_waits_for_the_commit(tmp_path, monkeypatch):
    monkeypatch.setattr(writer_module, "MAX_PENDING", 10)
    path = tmp_path / "w.sqlite"
    sqlite3.connect(path).execute("CREATE TABLE t (x INTEGER)").connection.close()
    batches: list[int] = []

    class Recording(StoreWriter):
        def _commit(self, statements):
            batches.append(len(statements))
            super()._commit(statements)

    async def produce() -> int:
        writer, most = Recording(path), 0
        for i in range(500):  # 500 rows from one producer that yields only when the queue is full
            writer.put([("INSERT INTO t VALUES (?)", (i,))])
            most = max(most, len(writer.pending))
            if writer.full:
                await writer.room()
                assert not writer.full
        await writer.close()
        return most

    most = asyncio.run(produce())
    assert most <= 10 and max(batches) <= 10 and sum(batches) == 500
    assert sqlite3.connect(path).execute("SELECT count(*) FROM t").fetchone()[0] == 500


def test_each_answer_is_stored_once_and_a_replaced_one_is_kept_for_a_revert(tmp_path):
    config = _config(tmp_path)
    assert run_config(config).complete
    with Store(config.store) as db:
        assert db.connection.execute("SELECT count(*) FROM answers").fetchone()[0] == 0  # the cells hold them
    edited = _config(tmp_path, systems=[{"name": "a", "kind": "fake"},
                                        {"name": "b", "kind": "fake", "seed": 1, "accuracy": 0.5, "version": "2"}])
    assert run_config(edited).stats.system_calls == 36  # b's cells again
    with Store(config.store) as db:
        kept = db.connection.execute("SELECT release, count(*) FROM answers GROUP BY release").fetchall()
    assert kept == [("b", 36)]  # the answers b's edit replaced, and only those
    reverted = run_config(config)
    assert reverted.stats.system_calls == 0 and reverted.stats.cells_cached == 36 and reverted.complete


def test_the_table_is_read_from_the_store_only_when_asked_for(tmp_path, monkeypatch):
    reads = []
    real = releasegate.run.table.read_store
    monkeypatch.setattr(releasegate.run.table, "read_store", lambda *a, **k: reads.append(1) or real(*a, **k))
    result = run_config(_config(tmp_path))
    assert result.complete and result.hole_count == 0 and reads == []
    assert len(result.table) == 72 and result.holes == () and reads == [1]  # read once, then kept


def test_the_hole_count_agrees_with_the_holes_read_back(tmp_path):
    write_cases(tmp_path / "cases.csv", 12)
    flaky = load_config(write_config(tmp_path / "flaky.toml", {"cases": "cases.csv", "store": "store", "runs": 3,
                                                               "max_attempts": 1},
                                     [{"name": "a", "kind": "fake", "rate_5xx": 0.3},
                                      {"name": "b", "kind": "fake", "seed": 1}], {"kind": "exact"}))
    result = run_config(flaky)
    assert 0 < result.hole_count == len(result.holes) and not result.complete
    assert {h.release for h in result.holes} == {"a"} and db_path(flaky.store).is_file()
