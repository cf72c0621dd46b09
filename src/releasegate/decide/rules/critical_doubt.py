"""Rule 6, critical_doubt: a critical category's own one-sided test reaches ``critical_doubt`` (default 0.10)
without blocking, so the category is not shown clear and the verdict is NOT PROVEN rather than SHIP.

Why: the error budget reads a critical category's test at alpha at most (analyze/budget.py), which keeps a
harmless release's DON'T SHIP at alpha; but a 50-case critical category can show only a large loss there (a
20-point drop reaches alpha in at most 84% of releases). A category whose own p is between alpha and
``critical_doubt`` has lost more cases than a harmless release usually does, yet not enough to block: the team
named it because a loss there matters most, so the gate does not call it SHIP. The rule spends nothing of the
budget (NOT PROVEN never blocks a harmless release as DON'T SHIP) and is measured in docs/policy.md:
``bench/verdicts.py --study done`` (harmless releases NOT PROVEN up to 2 points more; the 20-point drop not
shipped 93-94% instead of 89%).

It reads the critical categories' tests of the "test" rule only: zero tolerance (``critical_rule = "any"``)
already blocks on any broken case, and a critical metric's tests on every category are left to the budget (a
doubt level on each of many categories would make NOT PROVEN the rule). ``critical_doubt = 0`` turns it off.
"""

from __future__ import annotations

import math

from releasegate.model import Analysis, CandidateAnalysis, CriticalTest, Figure, RuleCheck
from releasegate.policy import Policy

NAME = "critical_doubt"


def _doubtful(t: CriticalTest, level: float) -> bool:
    return t.cases > 0 and not t.blocks and math.isfinite(t.p_regression) and t.p_regression <= level


def check(cand: CandidateAnalysis, analysis: Analysis, policy: Policy) -> RuleCheck:
    section = cand.sections.critical
    level = policy.critical_doubt
    if section is None or section.overall is not None or section.rule != "test" or level == 0:
        return RuleCheck(NAME, False, (Figure("count", "critical categories", value=0, limit=level),),
                         applies=False)
    # The rule reads each test's own p against the level (the critical_broken check beside it carries the
    # adjusted p the budget read).
    figures = tuple(Figure("category", t.label, limit=level, alpha=section.alpha, weight=section.weight,
                           p=t.p_regression, p_unadjusted=t.p_regression, cases=t.cases, worse=t.worse,
                           better=t.better, method=t.method, fired=_doubtful(t, level))
                    for t in section.tests)
    return RuleCheck(NAME, any(f.fired for f in figures), figures)
