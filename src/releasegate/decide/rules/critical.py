"""Rule 1, critical_broken: a critical category's own test blocks (issue 21), or with ``critical_rule = "any"``
any broken (on the paired-mean path, worsened) case in it. A critical category with no case blocks. A critical
metric (``[metrics.NAME] critical = true``, issue 16) is tested the same way on every case and in every
category: its section's ``overall`` is set and every category is among its tests."""

from __future__ import annotations

from releasegate.model import Analysis, CandidateAnalysis, RuleCheck
from releasegate.policy import Policy
from releasegate.wording import critical_metric as metric_words
from releasegate.wording import verdict as words

NAME = "critical_broken"


def check(cand: CandidateAnalysis, analysis: Analysis, policy: Policy) -> RuleCheck:
    binary = analysis.mcnemar_path
    section = cand.sections.critical
    if section is None:
        return RuleCheck(NAME, False, words.no_critical())
    if section.overall is not None:
        blocking = [t for t in metric_words.tests_of(section) if t.blocks]
        if not blocking:
            return RuleCheck(NAME, False, metric_words.clear(section))
        return RuleCheck(NAME, True, metric_words.broken(section, blocking, cand, binary))
    blocking = [t for t in section.tests if t.blocks]
    if not blocking:
        return RuleCheck(NAME, False, words.critical_clear(section, binary))
    by_label = {c.label: c for c in cand.categories}
    return RuleCheck(NAME, True, words.critical_broken(section, blocking, by_label, binary))
