"""Rule 5, not_non_inferior: the lower bound of the two-sided (1 - 2 alpha) interval of the difference is below
-margin, so the data cannot show the candidate is no worse (margin = 0 turns the rule off). With gold labels
and judge_correction = "ppi" the interval is the corrected difference's (analyze/judge_gated.py)."""

from __future__ import annotations

from releasegate.model import Analysis, CandidateAnalysis, Figure, RuleCheck
from releasegate.policy import Policy

NAME = "not_non_inferior"


def check(cand: CandidateAnalysis, analysis: Analysis, policy: Policy) -> RuleCheck:
    o = cand.overall
    # "not >=": a bound that does not exist (NaN: a corrected figure without enough gold labels) shows nothing
    # no worse, so the rule fires (fail closed).
    fired = policy.margin != 0 and not o.ni_low >= -policy.margin
    # The interval's level is 1 - 2 alpha: its lower bound is a one-sided test at alpha.
    figure = Figure("overall", "overall", value=o.ni_low, ci_low=o.ni_low, ci_high=o.ni_high, limit=-policy.margin,
                    alpha=policy.alpha, cases=o.n, fired=fired)
    return RuleCheck(NAME, fired, (figure,), applies=policy.margin != 0)
