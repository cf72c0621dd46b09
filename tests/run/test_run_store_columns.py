"""The columns a run store keeps for the gate: read as the cells read, and not read once they no longer describe
the store (any write to its cells, scores or cases; another plan; a damaged blob)."""

from __future__ import annotations

import pickle
import shutil
import sqlite3

import numpy as np
import pandas as pd
import pytest

from releasegate.errors import StoreError
from releasegate.load.store_columns import Grid, save_grid
from releasegate.load import store_table
from releasegate.load.store_table import db_path, keep_columns, read_store
from run_support import finished_store


def _store(tmp_path):
    return finished_store(tmp_path, 8)


def _kept(store) -> dict[str, bytes]:
    with sqlite3.connect(db_path(store)) as db:
        return dict(db.execute("SELECT name, value FROM cell_columns"))


def _same(left, right) -> None:
    pd.testing.assert_frame_equal(left.table, right.table, check_exact=True)
    assert left.holes == right.holes and left.models == right.models and left.plan == right.plan
    assert pickle.dumps(left.table) == pickle.dumps(right.table)


def _computed(store, tmp_path):
    """The store read with its columns removed from a copy: computed from the cells."""
    copy = tmp_path / "computed"
    shutil.copytree(store, copy)
    with sqlite3.connect(db_path(copy)) as db:
        db.execute("DELETE FROM cell_columns")
    return read_store(copy)


def test_a_finished_run_keeps_columns_that_read_as_its_cells_do(tmp_path):
    store = _store(tmp_path)
    kept = _kept(store)
    assert set(kept) == {"plan", "state", "value", "latency_ms", "input_tokens", "output_tokens", "cost", "models",
                         "rows"}
    assert len(kept["state"]) == 2 * 8 * 2 and len(kept["value"]) == 8 * 2 * 8 * 2
    from_columns = read_store(store)
    _same(from_columns, _computed(store, tmp_path))
    assert from_columns.models["live"][0] and not from_columns.holes


@pytest.mark.parametrize("rowids", [65_536, 7])
def test_columns_kept_on_a_store_with_every_kind_of_hole(tmp_path, monkeypatch, rowids):
    store = _store(tmp_path)
    # 7: the 64 cells kept a slice of 7 rowids at a time, each with its own outputs' scores
    monkeypatch.setattr(store_table, "ROWIDS_AT_ONCE", rowids)
    monkeypatch.setattr(store_table, "SCORES_AT_ONCE", 262_144 if rowids > 64 else 0)
    with sqlite3.connect(db_path(store)) as db:
        db.execute("DELETE FROM cells WHERE release = 'live' AND case_id = 'C0000' AND run = 1")
        db.execute("UPDATE cells SET status = 'error', error_kind = 'server', error = 'HTTP 500: down', "
                   "input_tokens = NULL WHERE release = 'live' AND case_id = 'C0001' AND run = 0")
        db.execute("UPDATE cells SET input_hash = 'edited' WHERE release = 'cand' AND case_id = 'C0003' AND run = 0")
        db.execute("UPDATE cells SET output_hash = 'never-scored', cost = NULL "
                   "WHERE release = 'live' AND case_id = 'C0004' AND run = 1")
        db.execute("UPDATE scores SET status = 'unparseable', value = NULL, error = 'no SCORE= line' WHERE output_hash "
                   "= (SELECT output_hash FROM cells WHERE release = 'cand' AND case_id = 'C0005' AND run = 0)")
        assert db.execute("SELECT count(*) FROM cell_columns").fetchone()[0] == 0
        db.commit()
        keep_columns(db)
    assert _kept(store)
    from_columns = read_store(store)
    monkeypatch.setattr(store_table, "ROWIDS_AT_ONCE", 65_536)
    monkeypatch.setattr(store_table, "SCORES_AT_ONCE", 262_144)
    _same(from_columns, _computed(store, tmp_path))  # the cells read in one slice
    assert {h.reason for h in from_columns.holes} == {"missing", "error", "stale", "unscored", "unparseable"}


@pytest.mark.parametrize("edit", [
    "UPDATE cells SET latency_ms = 1 WHERE case_id = 'C0002' AND run = 0 AND release = 'cand'",
    "DELETE FROM cells WHERE case_id = 'C0002' AND run = 0 AND release = 'cand'",
    "INSERT INTO cells SELECT 'other', case_id, run, input_hash, system_hash, status, output, output_hash, "
    "input_tokens, output_tokens, cost, latency_ms, model, fingerprint, finish_reason, error_kind, error, attempts, "
    "started_at, finished_at FROM cells LIMIT 1",
    "UPDATE scores SET value = 1 - value",
    "DELETE FROM scores",
    "INSERT INTO scores VALUES ('h', 'm', 'x', 'ok', 1, NULL, NULL, NULL, 't')",
])
def test_any_write_to_the_cells_or_the_scores_drops_the_columns(tmp_path, edit):
    store = _store(tmp_path)
    with sqlite3.connect(db_path(store)) as db:
        db.execute(edit)
    assert _kept(store) == {}
    _same(read_store(store), _computed(store, tmp_path))


@pytest.mark.parametrize("edit", [
    "UPDATE cases SET fields = '{}' WHERE case_id = 'C0001'",
    "DELETE FROM cases WHERE case_id = 'C0007'",
    "INSERT INTO cases VALUES ('C9999', 99, 'h', '{}')",
])
def test_a_write_to_the_cases_drops_the_columns_and_the_store_is_refused(tmp_path, edit):
    # the cases are no longer the ones the plan recorded (load/store_trust.py): neither read is complete
    store = _store(tmp_path)
    with sqlite3.connect(db_path(store)) as db:
        db.execute(edit)
    assert _kept(store) == {}
    with pytest.raises(StoreError, match="the run store's cases table holds"):
        read_store(store)


def _poison(store) -> None:
    """Columns that say every cell passed, kept for the store's plan text as it is."""
    with sqlite3.connect(db_path(store), isolation_level=None) as db:
        (plan,) = db.execute("SELECT value FROM meta WHERE key = 'plan'").fetchone()
        n = len(np.frombuffer(_kept(store)["state"], dtype=np.int8))
        db.execute("BEGIN")
        save_grid(db, plan, Grid(np.zeros(n, dtype=np.int64), np.ones(n), {name: np.full(n, 7.0) for name in
                  ("latency_ms", "input_tokens", "output_tokens", "cost")}, {"live": (("m",), ()), "cand": ((), ())}))
        db.execute("COMMIT")


def test_the_columns_are_what_is_read_while_they_describe_the_plan(tmp_path):
    store = _store(tmp_path)
    _poison(store)
    read = read_store(store)
    assert (read.table["passed"] == 1).all() and (read.table["cost"] == 7).all()
    assert read.models["live"] == (("m",), ())


@pytest.mark.parametrize("damage", [
    "UPDATE meta SET value = value || ' ' WHERE key = 'plan'",  # another plan text
    "UPDATE cell_columns SET value = substr(value, 1, 8) WHERE name = 'value'",  # too short
    "UPDATE cell_columns SET value = x'07' || substr(value, 2) WHERE name = 'state'",  # no such state
    "DELETE FROM cell_columns WHERE name = 'models'",
    "DELETE FROM cell_columns WHERE name = 'rows'",  # kept before the rows were counted
    "UPDATE cell_columns SET value = '[1, 2, 3]' WHERE name = 'rows'",  # other counts of rows
    "UPDATE cell_columns SET value = 'not json' WHERE name = 'rows'",
    "UPDATE cell_columns SET value = 2.5 WHERE name = 'rows'",  # a number, no JSON text at all
    "UPDATE cell_columns SET value = '[1]' WHERE name = 'models'",  # no mapping of releases
    "DROP TRIGGER cell_columns_scores_delete",  # a trigger gone: any row may have changed unseen
    "DROP TRIGGER cell_columns_cases_update",
])
def test_columns_that_do_not_describe_the_store_are_not_read(tmp_path, damage):
    store = _store(tmp_path)
    honest = read_store(store)
    _poison(store)
    with sqlite3.connect(db_path(store)) as db:
        db.execute(damage)
    read = read_store(store)
    pd.testing.assert_frame_equal(read.table, honest.table, check_exact=True)
    assert read.models == honest.models
