"""Rule 2, overall_regression: the overall one-sided regression test, adjusted over the family, below alpha."""

from __future__ import annotations

from releasegate.model import Analysis, CandidateAnalysis, RuleCheck
from releasegate.policy import Policy
from releasegate.wording import verdict as words

NAME = "overall_regression"


def check(cand: CandidateAnalysis, analysis: Analysis, policy: Policy) -> RuleCheck:
    fired = cand.overall.p_adjusted < policy.alpha
    return RuleCheck(NAME, fired, words.overall_regression(cand.overall, analysis.parameters,
                                                           analysis.mcnemar_path, fired))
