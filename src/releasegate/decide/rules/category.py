"""Rule 3, category_regression: a category's adjusted one-sided regression p below alpha."""

from __future__ import annotations

from releasegate.model import Analysis, CandidateAnalysis, Comparison, Figure, RuleCheck
from releasegate.policy import Policy

NAME = "category_regression"


def _figure(c: Comparison, alpha: float, fired: bool) -> Figure:
    return Figure("category", c.label, value=c.diff, ci_low=c.ci_low, ci_high=c.ci_high, alpha=alpha,
                  p=c.p_adjusted, p_unadjusted=c.p_one_sided, cases=c.n, worse=c.broke, better=c.fixed,
                  method=c.method, fired=fired)


def check(cand: CandidateAnalysis, analysis: Analysis, policy: Policy) -> RuleCheck:
    if not cand.categories:
        return RuleCheck(NAME, False, (Figure("count", "categories", value=0, alpha=policy.alpha),), applies=False)
    hits = [c for c in cand.categories if c.p_adjusted < policy.alpha]
    if not hits:  # the closest to firing
        return RuleCheck(NAME, False, (_figure(min(cand.categories, key=lambda c: c.p_adjusted), policy.alpha, False),))
    return RuleCheck(NAME, True, tuple(_figure(c, policy.alpha, True) for c in hits))
