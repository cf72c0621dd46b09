"""The bound behind each regression a rule may name: for a category whose one-sided p is below alpha, the upper
bound of its difference at one-sided 1 - alpha from the interval that inverts its test, so that the note shows a
test and an interval of one method, or names the two where they differ.

Pass/fail with one run: the exact conditional McNemar test inverted (stats/exact_bound.py), below zero exactly
when that test's p is below alpha. A critical category is read at its own test (the exact unconditional one by
default), which has no such closed inversion; its bound is still the conditional test's, and the sentence says
when the two disagree. Scores, runs and groups: the (1 - 2 alpha) interval's upper end, which comes from the same
method as the category's p (a paired t test and its interval; the grouped comparison's one method).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from releasegate.model import Comparison
from releasegate.stats.exact_bound import regression_bound

CONDITIONAL = "the exact conditional McNemar test"


def with_bounds(categories: Sequence[Comparison], alpha: float, mcnemar: bool) -> tuple[Comparison, ...]:
    """The categories, each one whose one-sided p is below ``alpha`` given its bound (the others unchanged)."""
    out = []
    for c in categories:
        if not (c.diff < 0 and c.p_one_sided < alpha):
            out.append(c)
        elif mcnemar and c.method.startswith("McNemar"):
            out.append(replace(c, bound=regression_bound(c.broke, c.fixed, c.n, 1 - alpha).bound,
                               bound_method=CONDITIONAL))
        else:
            out.append(replace(c, bound=c.ni_high, bound_method=f"the {c.method} test"))
    return tuple(out)
