"""What a notebook prints (issue 29 item 5): a verdict reads as its verdict and reason, not a dataclass dump, and
``cases()`` has one row per case with "pass"/"fail" outcomes, no column empty on every row, and the errored state."""

from __future__ import annotations

import releasegate


def _bank(example):
    return releasegate.compare(example["eval_results.csv"], cases=example["eval_cases.csv"],
                               policy=example["releasegate.toml"])


def test_a_verdict_prints_its_verdict_and_reason(example):
    verdict = _bank(example).verdict("r2-new-prompt")
    text = repr(verdict)
    assert text.startswith("<CandidateVerdict 'r2-new-prompt': DON'T SHIP: it broke 6 of 45 passing Fraud cases")
    assert "by_metric=" not in text and "headline=" not in text


def test_cases_read_pass_and_fail_with_no_empty_column(example):
    note = _bank(example)
    broken = note.cases("broken")
    assert not broken.isna().any().any()
    assert set(broken["baseline_outcome"]) == {"pass"} and set(broken["candidate_outcome"]) == {"fail"}
    r2 = broken[broken["candidate"] == "r2-new-prompt"]
    assert r2[r2["category"] == "Fraud"]["case_id"].tolist() == ["EV264", "EV265", "EV274", "EV276", "EV283", "EV309"]
    # Two candidates in one frame: the candidate's answer in one column, not one half-empty column each.
    assert "output (candidate)" in broken.columns and "output (r2-new-prompt)" not in broken.columns
    one = note.cases("broken", candidate="r2-new-prompt")
    assert {"output (r1-live)", "output (r2-new-prompt)"} <= set(one.columns) and "cluster" not in one.columns


def test_errored_cases_show_their_state(tmp_path):
    rows = ["release,case_id,passed,error"]
    for release in ("r1", "r2"):
        for i in range(30):
            failed = release == "r2" and i < 3
            rows.append(f"{release},c{i:02d},{'' if failed else 1},{'timeout' if failed else ''}")
    path = tmp_path / "results.csv"
    path.write_text("\n".join(rows) + "\n")
    errored = releasegate.compare(path, baseline="r1").cases("errored")
    assert errored["case_id"].tolist() == ["c00", "c01", "c02"]
    assert set(errored["candidate_outcome"]) == {"errored"} and errored["error (r2)"].tolist() == ["timeout"] * 3
    assert errored["baseline_outcome"].isna().all()  # the side that did not error: its outcome is not kept
