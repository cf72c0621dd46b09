"""Rule 3, category_regression: a category's adjusted one-sided regression p below alpha."""

from __future__ import annotations

from releasegate.model import Analysis, CandidateAnalysis, Comparison, CriticalTest, Figure, RuleCheck
from releasegate.policy import Policy

NAME = "category_regression"


def _figure(c: Comparison, alpha: float, fired: bool, tests: dict[str, CriticalTest]) -> Figure:
    # A critical category whose own test is its category's (one run, pass/fail: one member of the budget,
    # analyze/budget.py) has that test's p: the figure names that test. Otherwise (scores, runs) the category's
    # p is its own comparison's, a paired t beside a sign test, and the figure names the comparison's.
    test = tests.get(c.label) if c.critical else None
    method = test.method if test is not None and test.p_regression == c.p_one_sided else c.method
    return Figure("category", c.label, value=c.diff, ci_low=c.ci_low, ci_high=c.ci_high, alpha=alpha,
                  p=c.p_adjusted, p_unadjusted=c.p_one_sided, cases=c.n, worse=c.broke, better=c.fixed,
                  method=method, fired=fired, bound=c.bound if fired else None,
                  bound_method=c.bound_method if fired else "")


def check(cand: CandidateAnalysis, analysis: Analysis, policy: Policy) -> RuleCheck:
    if not cand.categories:
        return RuleCheck(NAME, False, (Figure("count", "categories", value=0, alpha=policy.alpha),), applies=False)
    section = cand.sections.critical
    tests = {t.label: t for t in section.tests} if section is not None else {}
    hits = [c for c in cand.categories if c.p_adjusted < policy.alpha]
    if not hits:  # the closest to firing
        return RuleCheck(NAME, False, (_figure(min(cand.categories, key=lambda c: c.p_adjusted), policy.alpha, False,
                                               tests),))
    return RuleCheck(NAME, True, tuple(_figure(c, policy.alpha, True, tests) for c in hits))
