"""The power of a candidate's overall test (SPEC 4.7), at the level its error budget (analyze/budget.py)
leaves the overall test at its first step.
"""

from __future__ import annotations

import math

import numpy as np

from releasegate.model import Comparison, Power
from releasegate.policy import Policy
from releasegate.stats.power import minimum_detectable_difference, minimum_detectable_drop


# The exact power search costs O(n^2) per power (0.6 s at 30,000 cases, hours at 1,000,000); above this size
# the normal formula stands in, within a tenth of a point of the exact drop there.
EXACT_POWER_MAX_CASES = 5_000


def power_of(d: np.ndarray, policy: Policy, design_effect: float = 1.0, *, overall: Comparison | None = None,
             level: float | None = None, exact: bool = False, whole: bool = False) -> Power:
    """Minimum detectable drop of the overall one-sided gate at the policy's power and ``level``, the level the
    error budget leaves the overall test (analyze.budget.Budgeted.level; alpha when not given).

    ``exact`` (pass/fail, one run, no clusters, at most EXACT_POWER_MAX_CASES cases): the smallest drop in [0, baseline rate] at which the exact
    McNemar test reaches the power (``stats.power.minimum_detectable_drop``, "added" on the observed share of
    changed cases), or nothing detectable when its floor 2^-n is above the level or even the largest drop
    falls short. Otherwise the normal formula on the spread of the per-case differences d (for pass/fail:
    omega^2 = share of discordant cases - D^2), with the clusters' design effect. ``whole``: the caller knows
    d holds whole numbers (differences of pass/fail outcomes), so they are not looked at for it."""
    level = policy.alpha if level is None else level
    if exact and overall is not None and 0 < overall.n <= EXACT_POWER_MAX_CASES:
        p0 = overall.baseline.value
        churn = min((overall.fixed + overall.broke) / overall.n, 2 * min(p0, 1 - p0))
        drop = minimum_detectable_drop(overall.n, p0, churn, level, policy.power)
        mde = math.nan if drop.drop is None else drop.drop
        sd = float(np.sqrt(np.mean(d * d) - np.mean(d) ** 2)) if d.size else math.nan
        return Power(mde, sd, design_effect, policy.power, policy.alpha, level, "exact McNemar power",
                     drop.reason or "")
    if not d.size:
        sd = math.nan
    elif whole or np.all(d == np.round(d)):
        # Whole-number differences (pass/fail with one run): from the counts, exactly and in any case order.
        sd = float(np.sqrt(np.mean(d * d) - np.mean(d) ** 2))
    else:
        sd = float(np.std(d))
    result = minimum_detectable_difference(sd, int(d.size), level, policy.power, True, design_effect)
    return Power(result.mde, sd, design_effect, policy.power, policy.alpha, level, "normal approximation", "")
