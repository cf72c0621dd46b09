"""What a rule of the policy compared, in numbers: each rule returns a :class:`RuleCheck` holding the
:class:`Figure` of every comparison it made (the value, the limit or the level, the p, the interval, the cases).
The sentences that report them are written from these figures by :mod:`releasegate.wording.checks`, when the
verdict is decided and when a report is rendered; the JSON carries the figures beside the sentence.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from releasegate.kinds import CriticalRule

# What a figure's comparison is over: every case, one category, one guardrail, or a count (a rule with nothing
# to check counts what it would check: no critical category, no category, no guardrail), or the judge against its
# gold labels (issue 35: a release's Youden J, a difference of TPR or FPR between the releases).
Scope = Literal["overall", "category", "guardrail", "count", "judge"]
# Why a guardrail could not be measured (the wording says it in words; a guardrail that cannot be measured fires);
# the judge gate's figures too: "too_few" gold labels, or a corrected difference whose standard error is 0.
# "none_on_baseline" / "none_on_candidate": one release has such figures and the other none (prices for one).
Unmeasured = Literal["", "no_figures", "none_on_baseline", "none_on_candidate", "no_pairs", "not_finite", "too_few",
                     "no_shared_case", "degenerate"]


@dataclass(frozen=True)
class Figure:
    """One comparison a rule made. None where a figure has no meaning for it (a guardrail has no p, a
    regression test no limit). ``fired``: this comparison alone makes the rule fire."""

    scope: Scope
    subject: str  # "overall", a category's label, a guardrail's name, or what a count counts
    value: float | None = None  # the estimate: a difference, a ratio, an interval's lower bound, or the count
    ci_low: float | None = None
    ci_high: float | None = None
    limit: float | None = None  # the limit the value (or its interval's bound) is held to
    alpha: float | None = None  # the level the p is held to
    weight: float | None = None  # a critical test's weight in the one error budget (the others weigh 1)
    p: float | None = None  # the p the rule reads (adjusted over the family where the rule reads that)
    p_unadjusted: float | None = None
    cases: int | None = None  # the cases compared
    worse: int | None = None  # cases that got worse: broken (pass/fail) or worsened (scores, several runs)
    better: int | None = None  # cases that got better: fixed or improved
    passing: int | None = None  # pass/fail: the cases passing on the baseline (those that could break)
    excluded: int | None = None  # cases left out of a guardrail's ratio (no valid figure on a side)
    method: str = ""
    fired: bool = False
    unmeasured: Unmeasured = ""
    # A regression a rule names: the upper bound of ``value`` at one-sided 1 - alpha from the interval that
    # inverts a test, and that test (``method`` is the test the rule read; where the two differ the sentence
    # names both).
    bound: float | None = None
    bound_method: str = ""


@dataclass(frozen=True)
class RuleCheck:
    """One rule of the policy as evaluated for one candidate: fired or not, and the figures it compared.
    ``applies`` is False for a rule with nothing to check (no critical category, no category, no guardrail,
    margin 0); ``critical_rule`` is the critical rule's mode (``None`` for the other rules)."""

    rule: str
    fired: bool
    figures: tuple[Figure, ...]
    applies: bool = True
    critical_rule: CriticalRule | None = None
