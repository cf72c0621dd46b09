"""Power: the smallest true difference the paired design detects."""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist


@dataclass(frozen=True)
class PowerResult:
    """Minimum detectable difference (in pass-rate or score units) at the given alpha and power."""

    mde: float
    n: int
    sd_of_difference: float
    design_effect: float
    alpha: float
    power: float
    one_sided: bool


def minimum_detectable_difference(
    sd_of_difference: float,
    n: int,
    alpha: float = 0.05,
    power: float = 0.8,
    one_sided: bool = True,
    design_effect: float = 1.0,
) -> PowerResult:
    """MDE = (z_{1-alpha'} + z_{power}) * omega * sqrt(design effect) / sqrt(n) for a paired mean difference.

    omega is the standard deviation of the per-case difference; for pass/fail outcomes omega^2 = share of
    discordant cases - D^2 (Connor 1987 in its normal form). alpha' = alpha for the one-sided gate, alpha/2
    two-sided. Clusters multiply the variance by the design effect 1 + (m - 1) ICC (Kish 1965).
    """
    if n <= 0:
        return PowerResult(math.inf, n, sd_of_difference, design_effect, alpha, power, one_sided)
    z = NormalDist().inv_cdf
    z_alpha = z(1 - alpha) if one_sided else z(1 - alpha / 2)
    mde = (z_alpha + z(power)) * sd_of_difference * math.sqrt(max(design_effect, 0.0)) / math.sqrt(n)
    return PowerResult(mde, n, sd_of_difference, design_effect, alpha, power, one_sided)


def required_sample_size(
    sd_of_difference: float, delta: float, alpha: float = 0.05, power: float = 0.8, one_sided: bool = False
) -> float:
    """n = (z_{1-alpha'} + z_{power})^2 omega^2 / delta^2 (unrounded; take the ceiling to plan)."""
    z = NormalDist().inv_cdf
    z_alpha = z(1 - alpha) if one_sided else z(1 - alpha / 2)
    return (z_alpha + z(power)) ** 2 * sd_of_difference**2 / delta**2
