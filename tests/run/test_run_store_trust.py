"""A run store changed after its run finished is never read as complete: every row the gate reads is measured
against what the store recorded of its plan (load/store_trust.py), through ``releasegate check`` on a store the
stub server filled."""

from __future__ import annotations

import json
import shutil
import sqlite3

import pytest

from conftest import run_cli
from releasegate.load.store_table import db_path
from run_support import StubServer, write_cases, write_config

N_CASES = 6


def _fill(folder, stub):
    """A complete store of two OpenAI-compatible releases on the stub server, 6 cases x 2 runs: its config."""
    cases = write_cases(folder / "cases.csv", N_CASES)
    systems = [{"name": "live", "kind": "openai", "base_url": stub.base_url, "model": "m"},
               {"name": "cand", "kind": "openai", "base_url": stub.base_url, "model": "m", "system_prompt": "x"}]
    config = write_config(folder / "run.toml", {"cases": cases.name, "store": "store", "runs": 2, "max_attempts": 1},
                          systems, {"name": "correct", "kind": "exact"})
    assert run_cli("run", config).exit_code == 0
    return config


@pytest.fixture(scope="module")
def filled(tmp_path_factory):
    """The filled store's folder and its check's output."""
    folder = tmp_path_factory.mktemp("filled")
    with StubServer() as stub:
        _fill(folder, stub)
        assert stub.calls == 2 * N_CASES * 2
    whole = run_cli("check", folder / "store", "--baseline", "live")
    assert whole.exit_code == 3, whole.output  # six cases are too few to show anything: NOT PROVEN
    return folder, whole.output


def _edited(filled, tmp_path, *statements):
    folder, _ = filled
    shutil.copytree(folder, tmp_path / "copy")
    store = tmp_path / "copy" / "store"
    with sqlite3.connect(db_path(store)) as db:
        for statement in statements:
            db.execute(statement)
    return store


def _refused(store, *more):
    done = run_cli("check", store, "--baseline", "live", *more)
    assert done.exit_code == 2, done.output
    assert len(done.output.strip().splitlines()) == 1 and "Traceback" not in done.output
    return done.output


ONE_CELL = "DELETE FROM cells WHERE release = 'cand' AND case_id = 'C0003' AND run = 1"


TRIGGER = "cell_columns_cells_delete"
RECREATED = f"CREATE TRIGGER {TRIGGER} AFTER DELETE ON cells BEGIN DELETE FROM cell_columns; END"


@pytest.mark.parametrize("statements", [
    [ONE_CELL],
    [ONE_CELL, "DELETE FROM cell_columns"],
    # without the trigger that empties the kept columns, they still said every cell was done
    [f"DROP TRIGGER {TRIGGER}", ONE_CELL],
    # a trigger that no longer empties them is as good as none
    [f"DROP TRIGGER {TRIGGER}", f"CREATE TRIGGER {TRIGGER} AFTER DELETE ON cells BEGIN SELECT 1; END", ONE_CELL],
    # the trigger back as it was after the deletion: what a writer with triggers turned off leaves (SQLite lets a
    # connection turn them off, as the sqlite3 shell's `.dbconfig enable_trigger off` does)
    [f"DROP TRIGGER {TRIGGER}", ONE_CELL, RECREATED],
], ids=["cell", "cell-and-columns", "cell-without-trigger", "cell-with-idle-trigger", "cell-with-triggers-off"])
def test_a_deleted_cell_is_a_hole_named_in_one_line_or_dropped_and_named(filled, tmp_path, statements):
    store = _edited(filled, tmp_path, *statements)
    line = _refused(store)
    assert "1 cells missing or errored" in line and "cand/C0003/run 1: missing" in line
    note = tmp_path / "note.json"
    dropped = run_cli("report", store, "--baseline", "live", "--drop-holes", "-o", note)
    assert dropped.exit_code == 0, dropped.output
    data = json.loads(note.read_text())
    [exclusion] = data["input_exclusions"]
    assert exclusion["kind"] == "holes_dropped" and exclusion["count"] == 1 and exclusion["examples"] == ["C0003"]
    assert "1 case dropped from the run store" in exclusion["line"]


@pytest.mark.parametrize("statements, said", [
    (["DELETE FROM cases WHERE case_id = 'C0002'"], "holds 5 cases where its plan recorded 6: 1 fewer (case rows deleted"),
    # the last case and its cells: the grid was one case smaller and read as complete
    (["DELETE FROM cells WHERE case_id = (SELECT case_id FROM cases ORDER BY position DESC LIMIT 1)",
      "DELETE FROM cases WHERE position = (SELECT max(position) FROM cases)"], "1 fewer (case rows deleted"),
    (["INSERT INTO cases SELECT 'C9999', 6, input_hash, fields FROM cases LIMIT 1"], "1 more (case rows added"),
    (["UPDATE cases SET fields = replace(fields, 'cat1', 'cat2')"], "not the same ones"),
    (["UPDATE cases SET position = position + 100 WHERE case_id = 'C0001'"], "not the same ones"),
    (["UPDATE cases SET input_hash = 'edited' WHERE case_id = 'C0001'"], "not the same ones"),
    (["UPDATE meta SET value = json_set(value, '$.cases', 6) WHERE key = 'plan'"], "record of its cases is unreadable"),
    (["UPDATE meta SET value = json_set(value, '$.cases.count', 5) WHERE key = 'plan'"], "its plan recorded 5"),
], ids=["case", "last-case-and-cells", "case-added", "fields", "position", "input-hash", "record", "count"])
def test_a_changed_case_row_is_refused_even_with_drop_holes(filled, tmp_path, statements, said):
    store = _edited(filled, tmp_path, *statements)
    assert said in _refused(store)
    assert "cannot be read as complete" in _refused(store, "--drop-holes")


def test_a_store_from_before_the_cases_were_recorded_is_refused_when_its_positions_have_a_gap(filled, tmp_path):
    # its plan cannot say how many cases it had, but a gap would place one case's cells on another's rows
    store = _edited(filled, tmp_path, "UPDATE meta SET value = json_remove(value, '$.cases') WHERE key = 'plan'",
                    "DELETE FROM cases WHERE position = 2")
    assert "at position 3 where position 2 is expected" in _refused(store)


@pytest.mark.parametrize("statement, said", [
    ("DELETE FROM scores WHERE output_hash = (SELECT output_hash FROM cells WHERE release = 'live' "
     "AND case_id = 'C0004' AND run = 0)", "live/C0004/run 0: unscored"),
    ("DELETE FROM meta WHERE key = 'plan'", "the store has no plan yet"),
], ids=["score", "plan"])
def test_a_deleted_score_or_plan_row_is_refused(filled, tmp_path, statement, said):
    assert said in _refused(_edited(filled, tmp_path, statement))


def test_running_again_records_the_cases_anew_without_a_call(tmp_path):
    """What the refusal tells the user to do repairs the store: the cases are recorded from the case file again
    and every cell is still there, so no system is called and the verdict is the one before."""
    with StubServer() as stub:
        config = _fill(tmp_path, stub)
        store = tmp_path / "store"
        whole = run_cli("check", store, "--baseline", "live")
        with sqlite3.connect(db_path(store)) as db:
            db.execute("DELETE FROM cases WHERE case_id = 'C0002'")
        _refused(store)
        calls = stub.calls
        assert run_cli("run", config).exit_code == 0
        assert stub.calls == calls
    again = run_cli("check", store, "--baseline", "live")
    assert (again.exit_code, again.output) == (whole.exit_code, whole.output)


@pytest.mark.parametrize("statement, said", [
    ("UPDATE meta SET value = '2' WHERE key = 'plan'", "the run store's plan is not one a run writes"),
    ("UPDATE meta SET value = json_set(value, '$.runs', 'two') WHERE key = 'plan'", "plan is not one a run writes"),
    ("UPDATE meta SET value = json_remove(value, '$.metric') WHERE key = 'plan'", "plan is not one a run writes"),
    ("UPDATE meta SET value = json_set(value, '$.releases', json('[1]')) WHERE key = 'plan'", "not one a run writes"),
    ("UPDATE meta SET value = 'zz' WHERE key = 'plan'", "the run store's 'plan' record is not JSON ('zz')"),
    ("INSERT OR REPLACE INTO meta VALUES ('sweep_ranking', '0.5')", "'sweep_ranking' record is not a list"),
], ids=["number", "runs", "metric", "releases", "not-json", "ranking"])
def test_a_damaged_plan_record_is_refused_in_one_line(filled, tmp_path, statement, said):
    line = _refused(_edited(filled, tmp_path, statement))
    assert said in line and "internal error" not in line


def test_a_blob_among_a_cells_figures_reads_as_unreadable_as_a_text_does(filled, tmp_path):
    store = _edited(filled, tmp_path, "DELETE FROM cell_columns",
                    "UPDATE cells SET latency_ms = x'ff00' WHERE case_id = 'C0001'")
    done = run_cli("check", store, "--baseline", "live")
    assert done.exit_code == 3 and "internal error" not in done.output, done.output
