"""Intervals for one pass rate and for the difference of two paired pass rates."""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist


def two_sided_z(confidence: float) -> float:
    """Two-sided standard normal critical value z_{1 - (1 - confidence)/2}."""
    return NormalDist().inv_cdf(1.0 - (1.0 - confidence) / 2.0)


@dataclass(frozen=True)
class Interval:
    """A point estimate with a confidence interval."""

    estimate: float
    low: float
    high: float
    confidence: float


def wilson_interval(successes: float, n: float, confidence: float = 0.95) -> Interval:
    """Wilson score interval for a binomial proportion (Wilson 1927; Newcombe 1998a, method 3).

    ``successes`` may be fractional (a mean of 0/1 runs times n), and then n a whole-valued float (a sum of
    such cells, as newcombe_paired_interval's); n = 0 gives [0, 1] around NaN.
    """
    if n <= 0:
        return Interval(math.nan, 0.0, 1.0, confidence)
    z = two_sided_z(confidence)
    p = successes / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(max(p * (1 - p) / n + z2 / (4 * n * n), 0.0)) / (1 + z2 / n)
    # At p = 0 or 1 the limit is exactly 0 or 1; floating error would otherwise give 1e-17.
    low = 0.0 if successes <= 0 else max(0.0, centre - half)
    high = 1.0 if successes >= n else min(1.0, centre + half)
    return Interval(p, low, high, confidence)


@dataclass(frozen=True)
class PairedDifference:
    """Difference of paired proportions, candidate - baseline, with Newcombe's method 10 interval."""

    estimate: float
    low: float
    high: float
    confidence: float
    phi: float
    n: float  # the cases; a whole-valued float when the cells are fractional (analyze.sparse_cases)


def newcombe_paired_interval(
    both_pass: float, baseline_only: int, candidate_only: int, both_fail: float, confidence: float = 0.95
) -> PairedDifference:
    """Newcombe (1998, Stat Med 17:2635) method 10: square-and-add of Wilson limits for paired proportions.

    Orientation: difference = p_candidate - p_baseline, p_candidate = (a + c)/n, p_baseline = (a + b)/n with
    a = both pass, b = baseline only (broke), c = candidate only (fixed), d = both fail. phi carries Newcombe's
    correction (A = ad - bc; A > n/2: (A - n/2)/sqrt(margins); 0 <= A <= n/2: 0; A < 0: A/sqrt(margins);
    any zero margin: 0), as in R's contingencytables::Newcombe_square_and_add_CI_paired_2x2.
    """
    a, b, c, d = both_pass, baseline_only, candidate_only, both_fail
    n = a + b + c + d
    if n <= 0:
        return PairedDifference(math.nan, -1.0, 1.0, confidence, 0.0, 0)
    p1, p2 = (a + c) / n, (a + b) / n
    w1 = wilson_interval(a + c, n, confidence)
    w2 = wilson_interval(a + b, n, confidence)
    margins = (a + b) * (c + d) * (a + c) * (b + d)
    big_a = a * d - b * c
    if margins == 0:
        phi = 0.0
    elif big_a > n / 2:
        phi = (big_a - n / 2) / math.sqrt(margins)
    elif big_a >= 0:
        phi = 0.0
    else:
        phi = big_a / math.sqrt(margins)
    diff = p1 - p2
    dl1, du1 = p1 - w1.low, w1.high - p1
    dl2, du2 = p2 - w2.low, w2.high - p2
    low = diff - math.sqrt(max(dl1 * dl1 - 2 * phi * dl1 * du2 + du2 * du2, 0.0))
    high = diff + math.sqrt(max(du1 * du1 - 2 * phi * du1 * dl2 + dl2 * dl2, 0.0))
    return PairedDifference(diff, max(-1.0, low), min(1.0, high), confidence, phi, n)
