"""Rule 3, category_regression: a category's adjusted one-sided regression p below alpha."""

from __future__ import annotations

from releasegate.model import Analysis, CandidateAnalysis, RuleCheck
from releasegate.policy import Policy
from releasegate.wording import verdict as words

NAME = "category_regression"


def check(cand: CandidateAnalysis, analysis: Analysis, policy: Policy) -> RuleCheck:
    if not cand.categories:
        return RuleCheck(NAME, False, words.no_categories())
    hits = [c for c in cand.categories if c.p_adjusted < policy.alpha]
    if not hits:
        return RuleCheck(NAME, False, words.category_clear(min(cand.categories, key=lambda c: c.p_adjusted)))
    return RuleCheck(NAME, True, words.category_regression(hits, analysis.mcnemar_path))
