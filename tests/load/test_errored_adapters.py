"""Harness errors are errored cases (issue 16, part 1): an Inspect sample error and a promptfoo provider error
set the error column, and by default such a case leaves the comparison with its message, instead of refusing
the run or counting as a failure."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import build_report

TESTS = Path(__file__).resolve().parents[1]
POPULARITY = TESTS / "fixtures" / "inspect" / "2025-05-12T20-28-13-04-00_popularity.json"
PROMPTFOO = TESTS / "data" / "promptfoo" / "results.json"


def test_an_errored_inspect_sample_leaves_the_comparison(tmp_path):
    log = json.loads(POPULARITY.read_text())
    log["status"] = "success"  # the fixture's log was cancelled after 3 samples; read it as a finished one
    live = tmp_path / "live.json"
    live.write_text(json.dumps(log))
    log["samples"][1]["error"] = {"message": "RateLimitError: too many requests", "traceback": "..."}
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(log))
    report = build_report([f"live={live}", f"new={edited}"], baseline="live", margin=0)
    cand = report.analysis.candidates[0]
    e = cand.sections.errors
    assert (e.excluded, e.candidate_only, e.baseline_only) == (1, 1, 0)
    assert e.cases[0].case_id == "2" and e.cases[0].candidate_error.startswith("RateLimitError")
    assert cand.overall.n == 2
    assert "2" not in {c.case_id for c in (*cand.broken_cases, *cand.fixed_cases)}


def test_a_promptfoo_provider_error_leaves_the_comparison():
    report = build_report(PROMPTFOO, baseline="gpt-4o-mini", margin=0)
    cand = report.analysis.candidates[0]
    e = cand.sections.errors
    assert [c.case_id for c in e.cases] == ["escalation"]
    assert e.cases[0].side == "candidate" and e.cases[0].candidate_error.startswith("API error: 500")
    assert cand.overall.n == 4
    # escalation failed on the baseline: counted as a failure it would have been neither; here it is out.
    assert "escalation" not in {c.case_id for c in (*cand.broken_cases, *cand.fixed_cases)}
