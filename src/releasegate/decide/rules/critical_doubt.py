"""Rule 6, critical_doubt: a critical category measured beyond the margin, whose own one-sided test reaches
``critical_doubt`` (default 0.10) without blocking, is not shown clear: NOT PROVEN rather than SHIP.

Why: the error budget reads a critical category's test at alpha at most (analyze/budget.py), which keeps a
harmless release's DON'T SHIP at alpha; but a 50-case critical category can show only a large loss there (a
20-point drop reaches alpha in at most 84% of releases). A category that lost more than the margin the team
accepts, by a count chance gives at most ``critical_doubt`` of the time, is neither shown worse nor shown clear,
and the team named it because a loss there matters most. The measured loss must be beyond the margin (beyond 0
with the margin off) so that a large critical category, whose p reaches 0.10 on a loss of a point or two, is
not held back by a loss the policy accepts overall. The rule spends nothing of the budget (it only turns a SHIP
into NOT PROVEN) and is measured in docs/policy.md (``bench/verdicts.py --study done``).

It reads the critical categories' tests of the "test" rule only: zero tolerance (``critical_rule = "any"``)
already blocks on any broken case, and a critical metric's tests on every category are left to the budget.
``critical_doubt = 0`` turns it off.

A category too small for its test to reach ``critical_doubt`` however its cases go (three cases passing on the
baseline, all broken: one-sided p = 1/8) fires on the loss beyond the margin alone: its test can show nothing, so
the gate has not checked it, and it does not call it clear (the cases it could check are counted in the figure's
``passing``).
"""

from __future__ import annotations

import math

from releasegate.model import Analysis, CandidateAnalysis, Comparison, CriticalTest, Figure, RuleCheck
from releasegate.policy import Policy

NAME = "critical_doubt"


def could_go_against(t: CriticalTest, compared: Comparison | None) -> int:
    """The most cases that could count against the candidate in the category's test: those passing on the
    baseline (one run of pass/fail: a broken case was passing), else every case compared."""
    if compared is not None and compared.method.startswith("McNemar"):
        return compared.both_pass + compared.broke
    return t.cases


def unreachable(against: int, level: float) -> bool:
    """No count of ``against`` cases can give a one-sided p at or below ``level``: the smallest p of the exact
    tests of a critical category (McNemar, the sign test) is 1/2 to the power of the cases that went against."""
    return 0.5 ** against > level


def _figure(t: CriticalTest, compared: Comparison | None, level: float, margin: float) -> Figure:
    """The category's measured difference against -margin (``value``, ``limit``) and its own test's p against
    the doubt level (``p``, ``alpha``); ``passing``, the cases that could go against it."""
    diff = compared.diff if compared is not None else math.nan
    # Exactly at the margin is not beyond it (a count of 20 in 400 is -0.05 only up to rounding).
    beyond = diff < -margin and not math.isclose(diff, -margin, rel_tol=1e-9, abs_tol=1e-12)
    against = could_go_against(t, compared)
    reaches = math.isfinite(t.p_regression) and (t.p_regression <= level or unreachable(against, level))
    doubtful = t.cases > 0 and not t.blocks and reaches
    return Figure("category", t.label, value=diff, limit=-margin, alpha=level, p=t.p_regression,
                  p_unadjusted=t.p_regression, cases=t.cases, worse=t.worse, better=t.better, passing=against,
                  method=t.method, fired=doubtful and beyond)


def check(cand: CandidateAnalysis, analysis: Analysis, policy: Policy) -> RuleCheck:
    section = cand.sections.critical
    level = policy.critical_doubt
    if section is None or section.overall is not None or section.rule != "test" or level == 0:
        return RuleCheck(NAME, False, (Figure("count", "critical categories", value=0, alpha=level),),
                         applies=False)
    by_label = {c.label: c for c in cand.categories}
    figures = tuple(_figure(t, by_label.get(t.label), level, policy.margin) for t in section.tests)
    return RuleCheck(NAME, any(f.fired for f in figures), figures)
