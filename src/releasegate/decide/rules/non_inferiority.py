"""Rule 5, not_non_inferior: the lower bound of the two-sided (1 - 2 alpha) interval of the difference is below
-margin, so the data cannot show the candidate is no worse (margin = 0 turns the rule off)."""

from __future__ import annotations

from releasegate.model import Analysis, CandidateAnalysis, RuleCheck
from releasegate.policy import Policy
from releasegate.wording import verdict as words

NAME = "not_non_inferior"


def check(cand: CandidateAnalysis, analysis: Analysis, policy: Policy) -> RuleCheck:
    fired = policy.margin != 0 and cand.overall.ni_low < -policy.margin
    return RuleCheck(NAME, fired, words.non_inferiority(cand.overall, analysis.parameters, analysis.mcnemar_path,
                                                        fired))
