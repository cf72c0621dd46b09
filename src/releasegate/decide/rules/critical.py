"""Rule 1, critical_broken: a critical category's own test blocks (issue 21), or with ``critical_rule = "any"``
any broken (on the paired-mean path, worsened) case in it. Each test is a member of the candidate's one error
budget (analyze/budget.py), which sets ``blocks`` from its adjusted p. A critical category with no case blocks.
A critical metric (``[metrics.NAME] critical = true``, issue 16) is tested the same way on every case and in
every category: its section's ``overall`` is set (the first figure) and every category is among its tests."""

from __future__ import annotations

import math

from releasegate.model import (
    Analysis,
    CandidateAnalysis,
    Comparison,
    CriticalSection,
    CriticalTest,
    Figure,
    RuleCheck,
)
from releasegate.policy import Policy

NAME = "critical_broken"


def _figure(t: CriticalTest, section: CriticalSection, compared: Comparison | None, overall: bool) -> Figure:
    """One critical test: its adjusted p in the error budget (the p the rule reads, beside its own), its weight
    and the budget's level, the cases it counted, and (pass/fail) the cases that could break. Zero tolerance
    and a category without cases are no members of the budget: no adjusted p."""
    passing = compared.both_pass + compared.broke if compared is not None else None
    adjusted = t.p_adjusted if math.isfinite(t.p_adjusted) else None
    return Figure("overall" if overall else "category", t.label, alpha=section.alpha, weight=section.weight,
                  p=adjusted, p_unadjusted=t.p_regression, cases=t.cases if compared is not None else 0,
                  worse=t.worse, better=t.better, passing=passing, method=t.method, fired=t.blocks)


def check(cand: CandidateAnalysis, analysis: Analysis, policy: Policy) -> RuleCheck:
    section = cand.sections.critical
    if section is None:
        return RuleCheck(NAME, False, (Figure("count", "critical categories", value=0, alpha=policy.alpha,
                                              weight=policy.critical_weight),), applies=False)
    by_label = {c.label: c for c in cand.categories}
    figures = [_figure(t, section, by_label.get(t.label), False) for t in section.tests]
    if section.overall is not None:
        figures.insert(0, _figure(section.overall, section, cand.overall, True))
    return RuleCheck(NAME, any(f.fired for f in figures), tuple(figures), critical_rule=section.rule)
