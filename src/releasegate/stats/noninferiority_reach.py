"""How likely the suite is to show non-inferiority at the margin for a candidate that changes nothing.

The non-inferiority rule blocks unless the lower bound of the two-sided (1 - 2 alpha) interval of the
difference is above -margin. For a candidate whose true difference is 0 that is a one-sided test at level
alpha of H0: difference <= -margin, and its power is the chance the release ships on that rule. When that
chance is below one half, the suite is too small for its margin at its churn: most harmless releases would
be turned away by that rule alone.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

from releasegate.stats.settle import smallest_margin

_Z = NormalDist()


@dataclass(frozen=True, slots=True)
class NonInferiorityReach:
    """The chance to show non-inferiority at ``margin`` when the true difference is 0, on ``n`` cases whose
    per-case difference has standard deviation ``sd``; and the cases that would give an even chance
    (``n_even``) and a ``target`` chance (``n_target``). Both are None when no number of cases is needed
    (``sd`` 0), defined (margin 0: the rule is off) or a float (a margin a googol times below the spread)."""

    power: float
    n: int
    sd: float
    margin: float
    alpha: float
    target: float
    n_even: int | None
    n_target: int | None
    method: str = "normal approximation"
    # The smallest margin these cases show with the target chance at this spread (issue 46 item 5: what a
    # small suite can show): normal form, or the Newcombe-interval rule's exact chance for one run of pass/fail.
    smallest_margin: float = math.nan


def _cases_for(power: float, sd: float, margin: float, alpha: float) -> int | None:
    # n such that margin sqrt(n) / sd - z_{1-alpha} = z_power, rounded up; None beyond any float (a margin of
    # 1e-300 against a spread of 0.1), where no count of cases is a number.
    root = (_Z.inv_cdf(1 - alpha) + _Z.inv_cdf(power)) * sd / margin
    return max(1, math.ceil(root * root - 1e-9)) if math.isfinite(root * root) else None


def noninferiority_reach(n: int, sd: float, margin: float, alpha: float = 0.05,
                         target: float = 0.8) -> NonInferiorityReach:
    """Power at true difference 0 of the one-sided level-alpha non-inferiority test at ``margin``:

        power = Phi(margin sqrt(n) / sd - z_{1-alpha}),   cases for power pi: n = ((z_{1-alpha} + z_pi) sd / margin)^2

    the normal (Wald) form of the paired non-inferiority test with the variance of the per-case difference
    taken at the true difference (Chow, Shao & Wang 2008, *Sample Size Calculations in Clinical Research*,
    2nd ed., section 4.1; for paired pass/fail Nam 1997, Biometrics 53:1422, where at difference 0 the
    variance of a case's difference is the discordant share q). ``sd`` is that per-case standard deviation,
    or sqrt(design effect) times it with clusters. At the even-chance size the bound's expected position is
    exactly -margin.
    """
    if n < 0 or not sd >= 0 or not 0 < alpha < 0.5 or not 0.5 < target < 1:
        raise ValueError("n >= 0, sd >= 0, 0 < alpha < 0.5 and 0.5 < target < 1 are required")
    smallest = smallest_margin(n, sd * sd, alpha, target) if n > 0 else math.nan
    if margin <= 0:
        return NonInferiorityReach(math.nan, n, sd, margin, alpha, target, None, None, smallest_margin=smallest)
    if sd == 0:
        return NonInferiorityReach(1.0 if n > 0 else 0.0, n, sd, margin, alpha, target, None, None,
                                   smallest_margin=smallest)
    power = _Z.cdf(margin * math.sqrt(n) / sd - _Z.inv_cdf(1 - alpha)) if n > 0 else 0.0
    even, more = _cases_for(0.5, sd, margin, alpha), _cases_for(target, sd, margin, alpha)
    if even is None or more is None:
        even = more = None
    return NonInferiorityReach(power, n, sd, margin, alpha, target, even, more, smallest_margin=smallest)


def noninferiority_reach_binary(n: int, discordant: int, margin: float, alpha: float = 0.05,
                                target: float = 0.8, pass_rate: float | None = None) -> NonInferiorityReach:
    """:func:`noninferiority_reach` for pass/fail with one run: at true difference 0 a case's difference is
    -1, 0 or +1 with mean 0, so its variance is the discordant share q = (fixed + broke) / n (Nam 1997). With
    the baseline's ``pass_rate`` the smallest margin is the exact one of the Newcombe-interval rule."""
    if not 0 <= discordant <= n:
        raise ValueError("discordant cases must be between 0 and n")
    q = discordant / n if n else 0.0
    reach = noninferiority_reach(n, math.sqrt(q), margin, alpha, target)
    # The exact search (a few hundredths of a second) only where the answer is read: a suite whose normal-form
    # smallest margin comes near the policy's (a small suite); elsewhere the normal form is within a point.
    if pass_rate is not None and n > 0 and 0 < q and reach.smallest_margin > 0.8 * margin:
        from dataclasses import replace

        reach = replace(reach, smallest_margin=smallest_margin(n, q, alpha, target, pass_rate))
    return reach
