"""A run store whose settled record (the meta table's ``settled`` value) was edited is refused in one line with
what to run, whatever the edit: a level outside (0, 0.5), a verdict that is no Decision, looks that spend more
than the policy's alpha, a value that is not JSON. Before, several ended in "internal error"."""

from __future__ import annotations

import json
import sqlite3

import pytest

from conftest import run_cli
from releasegate.errors import StoreError
from releasegate.load.settled import SettledLook, SettledRecord, record_of
from releasegate.load.store_table import db_path
from run_support import write_cases, write_config


def _record(**changes) -> dict:
    meta = SettledRecord(0.05, "live", (SettledLook(1, 0.04, {"cand": "not_proven"}),
                                        SettledLook(5, 0.01, {"cand": "ship"})), {"cand": "ship"}, "t", "p").as_meta()
    return {**meta, **changes}


@pytest.mark.parametrize("meta,said", [
    (_record(policy_alpha=float("nan")), "policy alpha nan"),
    (_record(looks=[{"runs": 1, "alpha": 2.0, "verdicts": {"cand": "ship"}}]), "look 1 at alpha 2.0"),
    (_record(looks=[{"runs": 1, "alpha": 0.04, "verdicts": {"cand": "maybe"}}]), "look 1's verdict 'maybe'"),
    (_record(looks=[{"runs": 3, "alpha": 0.04, "verdicts": {}}, {"runs": 2, "alpha": 0.01, "verdicts": {}}]),
     "look 2 on 2 run(s)"),
    (_record(looks=[{"runs": 1, "alpha": 0.3, "verdicts": {}}]), "more than the policy's 0.05"),
    (_record(verdicts={"cand": "bogus"}), "verdict 'bogus'"),
])
def test_an_edited_record_is_refused_naming_what_no_run_writes(meta, said):
    with pytest.raises(StoreError, match="edited or damaged") as refused:
        record_of(meta, "store")
    assert said in str(refused.value)


@pytest.fixture(scope="module")
def settled_store(tmp_path_factory):
    folder = tmp_path_factory.mktemp("settled")
    cases = write_cases(folder / "cases.csv", 200)
    systems = [{"name": "live", "kind": "fake", "accuracy": 0.8},
               {"name": "cand", "kind": "fake", "accuracy": 0.5, "seed": 2}]  # DON'T SHIP at look 1
    path = write_config(folder / "run.toml", {"cases": cases.name, "store": "store", "max_attempts": 1}, systems,
                        {"name": "correct", "kind": "exact"})
    assert run_cli("run", path, "--settle", cwd=folder).exit_code == 1
    return folder / "store"


@pytest.mark.parametrize("value", [
    "not json",
    json.dumps({"baseline": "live", "looks": [{"alpha": 2, "runs": 1, "verdicts": {"cand": "dont_ship"}}],
                "policy": "p", "policy_alpha": 0.05, "table": "t", "verdicts": {"cand": "dont_ship"}}),
    json.dumps({"baseline": "live", "looks": [{"alpha": 0.04, "runs": 1, "verdicts": {"cand": "bogus"}}],
                "policy": "p", "policy_alpha": 0.05, "table": "t", "verdicts": {"cand": "bogus"}}),
])
def test_check_on_an_edited_store_is_one_line(settled_store, tmp_path, value):
    import shutil

    store = shutil.copytree(settled_store, tmp_path / "store")
    with sqlite3.connect(db_path(store)) as db:
        db.execute("UPDATE meta SET value = ? WHERE key = 'settled'", (value,))
    done = run_cli("check", store, "--baseline", "live")
    lines = done.output.strip().splitlines()
    assert done.exit_code == 2 and len(lines) == 1, done.output
    assert lines[0].startswith("releasegate: error[store]: ") and "internal" not in lines[0], lines[0]
