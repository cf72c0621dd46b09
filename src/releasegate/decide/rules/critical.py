"""Rule 1, critical_broken: a critical category's own test blocks (issue 21), or with ``critical_rule = "any"``
any broken (on the paired-mean path, worsened) case in it. A critical category with no case blocks."""

from __future__ import annotations

from releasegate.model import Analysis, CandidateAnalysis, RuleCheck
from releasegate.policy import Policy
from releasegate.wording import verdict as words

NAME = "critical_broken"


def check(cand: CandidateAnalysis, analysis: Analysis, policy: Policy) -> RuleCheck:
    binary = analysis.mcnemar_path
    section = cand.sections.critical
    if not policy.critical or section is None:
        return RuleCheck(NAME, False, words.no_critical())
    blocking = [t for t in section.tests if t.blocks]
    if not blocking:
        return RuleCheck(NAME, False, words.critical_clear(section, binary))
    by_label = {c.label: c for c in cand.categories}
    return RuleCheck(NAME, True, words.critical_broken(section, blocking, by_label, binary))
