"""What the charts show when the data is large: the worst MAX_CHART_CATEGORIES categories and the worst
MAX_CHART_CANDIDATES candidates, with a sentence saying how many more there are.

Validation admits up to 10,000 categories and any number of releases; vl-convert's engine fails on 1,800
categories ("Maximum call stack size exceeded"), and a chart of hundreds of rows is unreadable anyway. The
tables list more (render/html.py cuts them with a count) and the JSON keeps every figure.
"""

from __future__ import annotations

import dataclasses
import math

from releasegate.model import MetricSection

MAX_CHART_CATEGORIES = 40
MAX_CHART_CANDIDATES = 12


def _diff_key(value: float) -> float:
    return value if isinstance(value, (int, float)) and math.isfinite(value) else math.inf


def _worst_categories(report: MetricSection) -> list[str]:
    """Category labels, critical first, then by the worst difference over the candidates (as the charts sort)."""
    worst: dict[str, tuple[bool, float]] = {}
    for cand in report.analysis.candidates:
        for comp in cand.categories:
            critical, diff = worst.get(comp.label, (not comp.critical, math.inf))
            worst[comp.label] = (critical and not comp.critical, min(diff, _diff_key(comp.diff)))
    return sorted(worst, key=lambda label: (*worst[label], label))


def chart_view(report: MetricSection) -> tuple[MetricSection, str]:
    """The report the charts are drawn from, and the sentence to add to their captions ("" when all show)."""
    analysis = report.analysis
    candidates = analysis.candidates
    said = []
    if len(candidates) > MAX_CHART_CANDIDATES:
        ship = {v.candidate: v.ship for v in report.verdicts}
        ranked = sorted(candidates, key=lambda c: (ship.get(c.name, False), _diff_key(c.overall.diff), c.name))
        keep = {c.name for c in ranked[:MAX_CHART_CANDIDATES]}
        said.append(f"the {MAX_CHART_CANDIDATES} worst of {len(candidates):,} candidates (DON'T SHIP first, then "
                    "the largest overall drop)")
        candidates = tuple(c for c in candidates if c.name in keep)
    trimmed = dataclasses.replace(analysis, candidates=candidates)
    order = _worst_categories(dataclasses.replace(report, analysis=trimmed)) if analysis.has_categories else []
    if len(order) > MAX_CHART_CATEGORIES:
        keep_labels = set(order[:MAX_CHART_CATEGORIES])
        said.append(f"the {MAX_CHART_CATEGORIES} worst of {len(order):,} categories (critical first)")
        candidates = tuple(dataclasses.replace(c, categories=tuple(k for k in c.categories if k.label in keep_labels))
                           for c in candidates)
    if not said:
        return report, ""
    names = {analysis.baseline, *(c.name for c in candidates)}
    sections = analysis.sections
    costs = sections.costs
    if costs is not None:
        costs = dataclasses.replace(costs, releases=tuple(r for r in costs.releases if r.name in names))
        sections = dataclasses.replace(sections, costs=costs)
    view = dataclasses.replace(analysis, candidates=candidates, sections=sections,
                               releases=tuple(r for r in analysis.releases if r.name in names))
    verdicts = tuple(v for v in report.verdicts if v.candidate in names)
    note = f"The charts show {' and '.join(said)}; the tables below list more and the JSON report every one."
    return dataclasses.replace(report, analysis=view, verdicts=verdicts), note
