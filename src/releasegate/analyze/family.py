"""The multiplicity family of one candidate (SPEC 4.5) and the power of its overall test (SPEC 4.7).

The family is the overall comparison plus every category's. Its one-sided and two-sided p-values are adjusted
together with the policy's correction, and a McNemar category is flagged *powerless* when even all its
discordant pairs going one way could not reach alpha after the correction.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from releasegate.model import Comparison, Power
from releasegate.policy import Policy
from releasegate.stats.mcnemar import discordant_needed, smallest_regression_p
from releasegate.stats.multiplicity import adjust_pvalues, best_case_multiplier
from releasegate.stats.power import minimum_detectable_difference


def adjust_family(overall: Comparison, categories: list[Comparison],
                  policy: Policy) -> tuple[Comparison, list[Comparison]]:
    """Adjust the candidate's family (overall + every category) and flag powerless categories (SPEC 4.5)."""
    family = [overall, *categories]
    one_sided = adjust_pvalues(np.array([c.p_one_sided for c in family]), policy.correction)
    two_sided = adjust_pvalues(np.array([c.p_value for c in family]), policy.correction)
    multiplier = best_case_multiplier(policy.correction, len(family))
    midp = policy.mcnemar == "midp"
    adjusted = []
    for comparison, p1, p2 in zip(family, one_sided, two_sided):
        n_disc = comparison.fixed + comparison.broke
        exact = comparison.method.startswith("McNemar")
        floor = smallest_regression_p(n_disc, midp) if exact else 0.0
        powerless = exact and min(1.0, floor * multiplier) >= policy.alpha
        needed = discordant_needed(policy.alpha, multiplier, midp) if powerless else None
        adjusted.append(replace(comparison, p_adjusted=float(p1), p_value_adjusted=float(p2),
                                powerless=powerless, discordant_needed=needed))
    return adjusted[0], adjusted[1:]


def power_of(d: np.ndarray, policy: Policy, design_effect: float = 1.0) -> Power:
    """Minimum detectable drop of the one-sided gate at the policy's power, from the spread of the per-case
    differences d (for pass/fail: omega^2 = share of discordant cases - D^2), with the clusters' design effect."""
    if not d.size:
        sd = math.nan
    elif np.all(d == np.round(d)):
        # Whole-number differences (pass/fail with one run): from the counts, exactly and in any case order.
        sd = float(np.sqrt(np.mean(d * d) - np.mean(d) ** 2))
    else:
        sd = float(np.std(d))
    result = minimum_detectable_difference(sd, int(d.size), policy.alpha, policy.power, True, design_effect)
    return Power(result.mde, sd, design_effect, policy.power, policy.alpha)
