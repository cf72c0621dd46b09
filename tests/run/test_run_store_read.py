"""read_store: every kind of hole in one store, each with its record, and the done cells' figures as stored."""

from __future__ import annotations

import sqlite3

import numpy as np
import pandas as pd

from releasegate.load.store_table import db_path, read_store
from run_support import finished_store


def _store(tmp_path):
    return finished_store(tmp_path, 6)


def test_every_kind_of_hole_and_the_done_cells(tmp_path):
    store = _store(tmp_path)
    done = read_store(store).table.set_index(["release", "case_id", "run"])
    with sqlite3.connect(db_path(store)) as db:
        db.execute("DELETE FROM cells WHERE release = 'live' AND case_id = 'C0000' AND run = 1")  # missing
        db.execute("UPDATE cells SET status = 'error', error_kind = 'server', error = 'HTTP 500: down', "
                   "attempts = '[{\"n\": 1}, {\"n\": 2}, {\"n\": 3}]' WHERE release = 'live' AND case_id = 'C0001' AND run = 0")
        db.execute("UPDATE cells SET status = 'permanent', error_kind = 'client', error = 'HTTP 400: no' "
                   "WHERE release = 'cand' AND case_id = 'C0002' AND run = 1")
        db.execute("UPDATE cells SET input_hash = 'edited' WHERE release = 'cand' AND case_id = 'C0003' AND run = 0")  # stale
        db.execute("UPDATE cells SET output_hash = 'never-scored' WHERE release = 'live' AND case_id = 'C0004' AND run = 1")
        (scored,) = db.execute("SELECT output_hash FROM cells WHERE release = 'cand' AND case_id = 'C0005' AND run = 0"
                               ).fetchone()
        db.execute("UPDATE scores SET status = 'unparseable', value = NULL, error = 'no SCORE= line' "
                   "WHERE output_hash = ?", (scored,))
        shared = db.execute("SELECT count(*) FROM cells WHERE output_hash = ?", (scored,)).fetchone()[0]
    result = read_store(store)
    holes = {(h.release, h.case_id, h.run): (h.reason, h.kind, h.attempts, h.message) for h in result.holes}
    assert holes.pop(("live", "C0000", 1)) == ("missing", None, 0, None)
    assert holes.pop(("live", "C0001", 0)) == ("error", "server", 3, "HTTP 500: down")
    assert holes.pop(("cand", "C0002", 1)) == ("permanent", "client", 1, "HTTP 400: no")
    assert holes.pop(("cand", "C0003", 0)) == ("stale", None, 1, "the config changed since this cell ran")
    assert holes.pop(("live", "C0004", 1)) == ("unscored", None, 1, "not scored by the current metric")
    assert holes.pop(("cand", "C0005", 0)) == ("unparseable", None, 1, "no SCORE= line")
    assert len(holes) == shared - 1 and all(h[0] == "unparseable" for h in holes.values())  # the same output elsewhere
    table = result.table.set_index(["release", "case_id", "run"])
    assert len(table) == len(done) == 24  # every expected cell is a row, holes included, in the plan's order
    assert list(result.table["release"][:12]) == ["live"] * 12 and list(result.table["run"][:4]) == [0, 1, 0, 1]
    for key, (reason, _kind, _n, message) in {(h.release, h.case_id, h.run): (h.reason, h.kind, h.attempts, h.message)
                                               for h in result.holes}.items():
        assert np.isnan(table.loc[key, "passed"]) and table.loc[key, "error"] == (message or reason)
    errored = table.loc[("live", "C0001", 0)]
    assert np.isnan(errored["latency_ms"]) and pd.isna(errored["output"])  # an errored cell has no figures
    stale = table.loc[("cand", "C0003", 0)]
    assert stale["latency_ms"] == done.loc[("cand", "C0003", 0), "latency_ms"]  # an answered hole keeps its figures
    kept = [k for k in done.index if k not in {(h.release, h.case_id, h.run) for h in result.holes}]
    for column in ("passed", "latency_ms", "input_tokens", "output_tokens", "cost", "output", "category", "input"):
        pd.testing.assert_series_equal(table.loc[kept, column], done.loc[kept, column], check_exact=True)
