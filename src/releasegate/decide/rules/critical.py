"""Rule 1, critical_broken: a broken (or, on the paired-mean path, worsened) case in a critical category."""

from __future__ import annotations

from releasegate.model import Analysis, CandidateAnalysis, RuleCheck
from releasegate.policy import Policy
from releasegate.wording import verdict as words

NAME = "critical_broken"


def check(cand: CandidateAnalysis, analysis: Analysis, policy: Policy) -> RuleCheck:
    binary = analysis.mcnemar_path
    if not policy.critical:
        return RuleCheck(NAME, False, words.no_critical())
    hits = [c for c in cand.categories if c.critical and c.broke > 0]
    if not hits:
        return RuleCheck(NAME, False, words.critical_clear(tuple(policy.critical), binary))
    return RuleCheck(NAME, True, words.critical_broken(hits, binary))
