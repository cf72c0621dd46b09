"""The multiplicity family of one candidate (SPEC 4.5) and the power of its overall test (SPEC 4.7).

The family is the overall comparison plus every category's. Its one-sided p-values are adjusted together with
the policy's correction: ``discrete-holm`` (Hommel & Krummenauer 1998: each exact McNemar test spends only the
p-values it can attain; a paired t or clustered p counts as in Holm) or one of the p-value corrections (holm,
hochberg, bh, bonferroni, none). The two-sided p-values, shown in the tables only, are adjusted with Holm under
``discrete-holm`` (the attainable sets are one-sided). A McNemar category is flagged *powerless* when even all
its discordant pairs going one way could not reach alpha after the correction, given the rest of the family as
observed (right under the step-up methods too, where the others' p-values can lower a test's adjusted p).
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from releasegate.model import Comparison, Power
from releasegate.policy import Policy
from releasegate.stats.discrete import (
    discrete_best_case_adjusted,
    discrete_holm_mixed,
    largest_attainable_at_most,
)
from releasegate.stats.multiplicity import adjust_pvalues, best_case_adjusted
from releasegate.stats.power import minimum_detectable_difference, minimum_detectable_drop

DISCRETE_HOLM = "discrete-holm"
# The discrete step-down costs O(m^2) look-ups per adjustment (and the powerless flags m of them): above this
# many members the family is adjusted with Holm, which discrete Holm never exceeds, so the level still holds.
DISCRETE_MAX_FAMILY = 200
_MAX_PAIRS = 1074  # 2^-1074 is the smallest double: no search for the pairs needed goes beyond it


def _exact(c: Comparison) -> bool:
    return c.method == "McNemar exact"


def _effective(policy: Policy, size: int) -> Policy:
    if policy.correction == DISCRETE_HOLM and size > DISCRETE_MAX_FAMILY:
        return replace(policy, correction="holm")
    return policy


def _adjust_one_sided(family: list[Comparison], policy: Policy) -> np.ndarray:
    p = np.array([c.p_one_sided for c in family])
    if policy.correction != DISCRETE_HOLM:
        return adjust_pvalues(p, policy.correction)
    if policy.mcnemar == "midp":
        return adjust_pvalues(p, "holm")
    n = [c.fixed + c.broke for c in family]
    return np.array(discrete_holm_mixed(n, p, [_exact(c) for c in family]).adjusted)


def _others(family: list[Comparison], i: int) -> list[Comparison]:
    # Built only by the methods that read the others: the closed forms below are O(1), and a list per call
    # made 10,000 categories quadratic (minutes).
    return [c for j, c in enumerate(family) if j != i]


def _best_case(family: list[Comparison], i: int, n_disc: int, policy: Policy) -> float:
    """Adjusted p of member i if all its ``n_disc`` discordant pairs broke, the others as observed."""
    midp = policy.mcnemar == "midp"
    if policy.correction == DISCRETE_HOLM and not midp:
        others = _others(family, i)
        return discrete_best_case_adjusted(n_disc, [c.fixed + c.broke for c in others],
                                           [c.p_one_sided for c in others], [_exact(c) for c in others])
    # Mid-p values have no attainable-set bound, so discrete-holm adjusts them as Holm does.
    method = "holm" if policy.correction == DISCRETE_HOLM else policy.correction
    if method in ("holm", "bonferroni", "none"):
        # Step-down and single-step: the best case is at most m times its floor (1 times under none), the
        # closed form of SPEC 4.5, O(1) per member even with 10,000 categories.
        floor = 2.0 ** -(n_disc + (1 if midp else 0)) if n_disc > 0 else 1.0
        return min(1.0, floor * (1 if method == "none" else len(family)))
    return best_case_adjusted(method, n_disc, np.array([c.p_one_sided for c in _others(family, i)]), midp)


def _pairs_needed(family: list[Comparison], i: int, policy: Policy) -> int | None:
    """Fewest discordant pairs, all broke, with which member i reaches alpha (bisection: the best case's
    adjusted p falls as the pairs grow); None when no count can."""
    def reaches(k: int) -> bool:
        return _best_case(family, i, k, policy) < policy.alpha

    if not reaches(_MAX_PAIRS):
        return None
    lo, hi = 0, _MAX_PAIRS
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if reaches(mid) else (mid, hi)
    return hi


def adjust_family(overall: Comparison, categories: list[Comparison],
                  policy: Policy, flags: bool = True) -> tuple[Comparison, list[Comparison]]:
    """Adjust the candidate's family (overall + every category) and flag powerless categories (SPEC 4.5;
    ``flags=False`` leaves them unflagged: no rule reads them, and simulations skip their search)."""
    family = [overall, *categories]
    policy = _effective(policy, len(family))
    one_sided = _adjust_one_sided(family, policy)
    two_sided_method = "holm" if policy.correction == DISCRETE_HOLM else policy.correction
    two_sided = adjust_pvalues(np.array([c.p_value for c in family]), two_sided_method)
    adjusted = []
    for i, (comparison, p1, p2) in enumerate(zip(family, one_sided, two_sided)):
        n_disc = comparison.fixed + comparison.broke
        mcnemar = comparison.method.startswith("McNemar")
        powerless = flags and mcnemar and not _best_case(family, i, n_disc, policy) < policy.alpha
        needed = _pairs_needed(family, i, policy) if powerless else None
        adjusted.append(replace(comparison, p_adjusted=float(p1), p_value_adjusted=float(p2),
                                powerless=powerless, discordant_needed=needed))
    return adjusted[0], adjusted[1:]


def family_level(overall: Comparison, categories: list[Comparison], policy: Policy) -> float:
    """The level the family leaves the overall test at its first step: alpha / m under Holm, Bonferroni and
    the step-up methods (their worst case), alpha with ``none`` or no category, and under ``discrete-holm``
    the largest t with t + sum of the categories' F_k(t) <= alpha (the categories at their observed
    discordant counts, a paired t or clustered p counting t; the overall test counted as if it could reach
    any p, an upper bound of what it spends)."""
    m = 1 + len(categories)
    policy = _effective(policy, m)
    if m == 1 or policy.correction == "none":
        return policy.alpha
    if policy.correction != DISCRETE_HOLM or policy.mcnemar == "midp":
        return policy.alpha / m

    def spent(t: float) -> float:
        return t + sum(largest_attainable_at_most(c.fixed + c.broke, t) if _exact(c) else t for c in categories)

    # spent(t) rises with t (every F_k does); bisect for the largest t with spent(t) <= alpha.
    lo, hi = policy.alpha / m, policy.alpha  # spent(alpha / m) <= alpha: every F_k(t) <= t
    if spent(hi) <= policy.alpha:
        return policy.alpha
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if spent(mid) <= policy.alpha else (lo, mid)
    return lo


# The exact power search costs O(n^2) per power (0.6 s at 30,000 cases, hours at 1,000,000); above this size
# the normal formula stands in, within a tenth of a point of the exact drop there.
EXACT_POWER_MAX_CASES = 5_000


def power_of(d: np.ndarray, policy: Policy, design_effect: float = 1.0, *, overall: Comparison | None = None,
             categories: list[Comparison] = (), exact: bool = False) -> Power:
    """Minimum detectable drop of the overall one-sided gate at the policy's power and the level the family
    imposes (``family_level``).

    ``exact`` (pass/fail, one run, no clusters, at most EXACT_POWER_MAX_CASES cases): the smallest drop in [0, baseline rate] at which the exact
    McNemar test reaches the power (``stats.power.minimum_detectable_drop``, "added" on the observed share of
    changed cases), or nothing detectable when its floor 2^-n is above the level or even the largest drop
    falls short. Otherwise the normal formula on the spread of the per-case differences d (for pass/fail:
    omega^2 = share of discordant cases - D^2), with the clusters' design effect."""
    level = policy.alpha if overall is None else family_level(overall, list(categories), policy)
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
    elif np.all(d == np.round(d)):
        # Whole-number differences (pass/fail with one run): from the counts, exactly and in any case order.
        sd = float(np.sqrt(np.mean(d * d) - np.mean(d) ** 2))
    else:
        sd = float(np.std(d))
    result = minimum_detectable_difference(sd, int(d.size), level, policy.power, True, design_effect)
    return Power(result.mde, sd, design_effect, policy.power, policy.alpha, level, "normal approximation", "")
