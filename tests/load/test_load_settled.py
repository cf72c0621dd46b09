"""The settled record a run store keeps (load/settled.py): read back, refused when unreadable, and its fingerprints
move with what decides a verdict and only with that."""

from __future__ import annotations

import pandas as pd
import pytest

from releasegate.errors import InputError
from releasegate.load.settled import SettledLook, SettledRecord, policy_fingerprint, record_of, table_fingerprint
from releasegate.policy import make_policy
from releasegate.wording.settled import settled_note


def _record() -> SettledRecord:
    return SettledRecord(0.05, "live", (SettledLook(1, 0.04, {"cand": "not_proven"}),
                                        SettledLook(5, 0.01, {"cand": "ship"})), {"cand": "ship"}, "t", "p")


def test_a_record_reads_back_and_its_last_look_is_the_second():
    record = _record()
    again = record_of(record.as_meta(), "store")
    assert again == record and again.last.runs == 5 and again.last.alpha == 0.01
    assert record_of(None, "store") is None


@pytest.mark.parametrize("meta", [{}, {"looks": []}, {**_record().as_meta(), "looks": []},
                                  {**_record().as_meta(), "looks": [{"runs": "many"}]}])
def test_an_unreadable_record_is_refused_with_what_to_run(meta):
    with pytest.raises(InputError, match="run `releasegate run CONFIG --settle` again"):
        record_of(meta, "store")


def test_the_table_fingerprint_moves_with_an_outcome_and_not_with_an_answer_text():
    table = pd.DataFrame({"release": ["a", "b"], "case_id": ["c1", "c1"], "run": [0, 0], "passed": [1.0, 0.0],
                          "output": ["x", "y"]})
    same = table_fingerprint(table)
    assert table_fingerprint(table.assign(output=["z", "w"])) == same
    assert table_fingerprint(table.assign(passed=[1.0, 1.0])) != same
    assert table_fingerprint(table.assign(run=[0, 1])) != same


def test_the_policy_fingerprint_ignores_the_level_title_candidates_and_baseline_only():
    base = policy_fingerprint(make_policy(baseline="live").as_dict())
    assert policy_fingerprint(make_policy(baseline="cand", alpha=0.01, title="x", candidates=("c",)).as_dict()) == base
    assert policy_fingerprint(make_policy(baseline="live", margin=0.1).as_dict()) != base
    assert policy_fingerprint(make_policy(baseline="live", critical_weight=20).as_dict()) != base


def test_the_note_names_every_look_and_the_level_read():
    record = _record()
    note = settled_note(record.policy_alpha, [(x.runs, x.alpha, dict(x.verdicts)) for x in record.looks])
    assert "look 1 on 1 run a case at alpha 0.04: cand NOT PROVEN" in note
    assert "look 2 on 5 runs a case at alpha 0.01: cand SHIP" in note
    assert "This report is look 2 again, on the same cells at its own alpha 0.01" in note
