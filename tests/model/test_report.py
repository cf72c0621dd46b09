"""The Report's plain data (model/report.py): a candidate ships only when every metric's verdict does, the
metrics that block are named in the sections' order, and a one-metric report reads as that metric's verdict."""

from __future__ import annotations

import pytest

from releasegate.model import Decision, Provenance, Reason, Verdict
from releasegate.model.report import CandidateVerdict, MetricSection, Report


def verdict(metric: str, decision: Decision, *, warnings: tuple[str, ...] = (), reason: str = "") -> Verdict:
    reasons = (Reason("overall", reason, metric),) if reason else ()
    return Verdict("r2", decision, f"{decision.label} r2: because {metric}", f"because {metric}", reasons, warnings,
                   (), 0.0, metric)


def candidate(*by_metric: Verdict) -> CandidateVerdict:
    ship = all(v.ship for v in by_metric)
    decision = Decision.SHIP if ship else next(v.decision for v in by_metric if not v.ship)
    return CandidateVerdict("r2", decision, f"{decision.label} r2: the headline", by_metric)


def report(*by_metric: Verdict) -> Report:
    sections = tuple(MetricSection(v.metric, None, (v,)) for v in by_metric)  # no analysis is read here
    provenance = Provenance("0.1.0", "pytest", (), {}, {}, "2026-12-02T00:00:00Z", "title")
    return Report(sections, (candidate(*by_metric),), provenance)


def test_decisions_are_ship_only_for_ship():
    assert [d for d in Decision if verdict("a", d).ship] == [Decision.SHIP]


def test_a_candidate_blocked_by_one_metric_names_it():
    c = candidate(verdict("accuracy", Decision.SHIP), verdict("safety", Decision.DONT_SHIP, reason="broke 6"),
                  verdict("tone", Decision.SHIP))
    assert not c.ship and c.blocking == ("safety",)
    assert [r.metric for r in c.reasons] == ["safety"]
    assert c.because == "the headline"


def test_several_metrics_prefix_each_warning_with_its_metric():
    c = candidate(verdict("a", Decision.SHIP, warnings=("few cases",)), verdict("b", Decision.SHIP, warnings=("w",)))
    assert c.ship and c.blocking == ()
    assert c.warnings == ("a: few cases", "b: w")


def test_one_metric_reads_as_that_metrics_verdict():
    v = verdict("passed", Decision.DONT_SHIP, warnings=("few cases",), reason="broke 14")
    c = candidate(v)
    assert c.because == v.because and c.warnings == v.warnings and c.reasons == v.reasons


def test_report_sections_by_metric():
    r = report(verdict("a", Decision.SHIP), verdict("b", Decision.DONT_SHIP))
    assert r.metrics == ("a", "b") and r.several and not r.ship_all
    assert r.section("b").verdict_of("r2").decision is Decision.DONT_SHIP
    with pytest.raises(KeyError, match="no metric 'c'; metrics: a, b"):
        r.section("c")
    with pytest.raises(ValueError, match="gates 2 metrics"):
        r.analysis  # noqa: B018 (the property raises)
