"""Rule 2, overall_regression: the overall one-sided regression test, adjusted over the family, below alpha.
With gold labels and judge_correction = "ppi" the overall test is the PPI++ corrected difference's
(analyze/judge_gated.py); a corrected figure that does not exist has no p and shows no regression (the judge
gate and the non-inferiority rule then hold the release)."""

from __future__ import annotations

from releasegate.model import Analysis, CandidateAnalysis, Figure, RuleCheck
from releasegate.policy import Policy

NAME = "overall_regression"


def check(cand: CandidateAnalysis, analysis: Analysis, policy: Policy) -> RuleCheck:
    o = cand.overall
    fired = o.p_adjusted < policy.alpha
    return RuleCheck(NAME, fired, (Figure("overall", "overall", value=o.diff, ci_low=o.ci_low, ci_high=o.ci_high,
                                          alpha=policy.alpha, p=o.p_adjusted, p_unadjusted=o.p_one_sided,
                                          cases=o.n, worse=o.broke, better=o.fixed, method=o.method, fired=fired),))
