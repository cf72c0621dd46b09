"""The case view (issue 17): beside the broken and fixed cases, those failing on both releases and those that
errored, counted whole, listed with a cap (critical first), in the JSON, the HTML and the Markdown."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from releasegate.analyze import case_view as view_module
from releasegate.api import compare


def _results(n_both: int = 3) -> pd.DataFrame:
    rows = []
    # c-b*: fail on both; c-x: broken; c-f: fixed; c-e: errored on the candidate only; the rest pass on both.
    plan = {**{f"c-b{i}": (0, 0) for i in range(n_both)}, "c-x": (1, 0), "c-f": (0, 1), "c-e": (1, 0),
            **{f"c-p{i}": (1, 1) for i in range(5)}}
    for case_id, outcomes in plan.items():
        for release, passed in zip(("r1", "r2"), outcomes):
            error = "timeout after 30 s" if case_id == "c-e" and release == "r2" else ""
            category = "Fraud" if case_id in ("c-b0", "c-x") else "Other"
            rows.append([release, case_id, passed, category, f"out {release} {case_id}", error])
    return pd.DataFrame(rows, columns=["release", "case_id", "passed", "category", "output", "error"])


def test_both_fail_and_errored_are_counted_and_listed():
    # Errored cases leave the comparison by default (issue 16: listed in sections.errors); counted as failures
    # (--missing fail, the explicit choice) they are paired, and the case view lists them beside the others.
    default = compare(_results(), baseline="r1", critical=["Fraud"]).analysis.candidates[0]
    assert [c.case_id for c in default.sections.errors.cases] == ["c-e"]
    note = compare(_results(), baseline="r1", critical=["Fraud"], missing="fail")
    (cand,) = note.analysis.candidates
    view = cand.sections.case_view
    assert view.both_fail_total == cand.overall.both_fail == 3
    assert [c.case_id for c in view.both_fail] == ["c-b0", "c-b1", "c-b2"]  # critical first
    assert view.errored_total == 1 and view.errored[0].case_id == "c-e" and view.error_column == "error"
    assert dict(view.errored[0].baseline_texts) == {"output": "out r1 c-e", "error": ""}


def test_listing_is_capped_with_critical_first_and_the_count_whole(monkeypatch):
    monkeypatch.setattr(view_module, "MAX_LISTED", 2)
    view = compare(_results(n_both=6), baseline="r1", critical=["Fraud"],
                   missing="fail").analysis.candidates[0].sections.case_view
    assert view.both_fail_total == 6
    assert [c.case_id for c in view.both_fail] == ["c-b0", "c-b1"]


def test_capped_keeps_the_mask_when_short():
    paired = pd.DataFrame({"category": ["a", "b"]}, index=["x", "y"])
    mask = np.array([True, False])
    assert view_module.capped(paired, mask, ()) is mask


def test_no_error_column_means_nothing_errored():
    table = _results().drop(columns="error")
    view = compare(table, baseline="r1").analysis.candidates[0].sections.case_view
    assert view.errored_total == 0 and view.error_column is None


def test_scores_have_no_both_fail_but_keep_errored():
    table = _results().rename(columns={"passed": "score"})
    table["score"] = table["score"] * 0.6 + 0.2
    view = compare(table, baseline="r1", missing="fail").analysis.candidates[0].sections.case_view
    assert not view.both_fail_defined and view.both_fail_total == 0
    assert view.errored_total == 1


def test_reports_show_the_case_view():
    note = compare(_results(), baseline="r1", critical=["Fraud"], missing="fail")
    cand = json.loads(note.to_json())["candidates"][0]["case_view"]
    assert cand["both_fail_total"] == 3 and [c["case_id"] for c in cand["errored"]] == ["c-e"]
    assert cand["errored"][0]["answers"]["error"] == {"baseline": "", "candidate": "timeout after 30 s"}
    html = note.to_html()
    assert '<a href="#cases-1-both-fail">3 fail on both</a>' in html
    assert '<a href="#cases-1-errored">1 errored</a>' in html
    assert 'id="cases-1-both-fail"' in html and 'id="cases-1-errored"' in html
    # Every listed case id is in the page as text, for the browser's find.
    for case_id in ("c-b0", "c-b1", "c-b2", "c-e", "c-x", "c-f"):
        assert f'<td class="id"><span class="whole-id">{case_id}</span></td>' in html  # short ids never break
    md = note.to_markdown()
    assert "3 cases fail on both r1 and r2; 1 errored on either: listed in the HTML and JSON reports." in md
