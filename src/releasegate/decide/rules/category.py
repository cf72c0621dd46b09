"""Rule 3, category_regression: a category's adjusted one-sided regression p below alpha."""

from __future__ import annotations

from releasegate.model import Analysis, CandidateAnalysis, Comparison, Figure, RuleCheck
from releasegate.policy import Policy

NAME = "category_regression"


def _figure(c: Comparison, alpha: float, fired: bool, tests: dict[str, str]) -> Figure:
    # A critical category's p is its own critical test's (analyze/budget.py): the figure names that test.
    method = tests.get(c.label, c.method) if c.critical else c.method
    return Figure("category", c.label, value=c.diff, ci_low=c.ci_low, ci_high=c.ci_high, alpha=alpha,
                  p=c.p_adjusted, p_unadjusted=c.p_one_sided, cases=c.n, worse=c.broke, better=c.fixed,
                  method=method, fired=fired, bound=c.bound if fired else None,
                  bound_method=c.bound_method if fired else "")


def check(cand: CandidateAnalysis, analysis: Analysis, policy: Policy) -> RuleCheck:
    if not cand.categories:
        return RuleCheck(NAME, False, (Figure("count", "categories", value=0, alpha=policy.alpha),), applies=False)
    section = cand.sections.critical
    tests = {t.label: t.method for t in section.tests} if section is not None else {}
    hits = [c for c in cand.categories if c.p_adjusted < policy.alpha]
    if not hits:  # the closest to firing
        return RuleCheck(NAME, False, (_figure(min(cand.categories, key=lambda c: c.p_adjusted), policy.alpha, False,
                                               tests),))
    return RuleCheck(NAME, True, tuple(_figure(c, policy.alpha, True, tests) for c in hits))
