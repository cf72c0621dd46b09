"""The cluster sign-flip test inverted into an interval, and one method for both p and interval by the
number of clusters.

Under H0: mean = mu, each cluster's sum T_g(mu) = S_g - mu n_g is symmetric about 0 (Canay, Santos & Shaikh
2021, Econometrica 89:1; Miller 2024, arXiv 2411.00640). Flipping the clusters in a set F changes the
statistic by -2 sum_F T_g(mu), so the upper-tail p is P*(sum_F (S_g - mu n_g) <= 0) over F uniform on the
2^G subsets: with sum_F n_g >= 0 it is non-decreasing in mu, and the interval
{mu: both one-sided p > (1 - confidence) / 2} is found by bisection exactly. With G clusters no one-sided p is
below 2^-G: when 2^-G > (1 - confidence) / 2 (G <= 5 at 95%) the interval is unbounded, which is the honest
answer (a zero CR2 standard error at small G is undefined, not certainty).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from releasegate.stats.clusters import cluster_sums_and_sizes, cr2_test, prepare_clusters

EXACT_MAX_CLUSTERS = 20
SMALL_G = 20  # below this many clusters the asymptotic methods under-cover (Cameron, Gelbach & Miller 2008)


def _flip_sets(g: int, n_resamples: int, seed: int | None, exact_max: int) -> tuple[np.ndarray, bool]:
    """0/1 membership of the flipped set F: all 2^G subsets, or n_resamples seeded draws (plus the identity,
    as the observed assignment is one of them: Phipson & Smyth 2010)."""
    if g <= exact_max:
        codes = np.arange(2**g, dtype=np.int64)
        return ((codes[:, None] >> np.arange(g)) & 1).astype(np.int8), True
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, 2, size=(n_resamples, g), dtype=np.int8)
    return np.vstack([np.zeros((1, g), dtype=np.int8), draws]), False


@dataclass(frozen=True, slots=True)
class ClusterSignFlipInterval:
    """Cluster sign-flip p-values and the interval that inverts them (same flips for both)."""

    estimate: float
    ci_low: float
    ci_high: float
    p_regression: float
    p_improvement: float
    n_clusters: int
    exact: bool
    confidence: float


def cluster_signflip_interval(d: ArrayLike, cluster: ArrayLike, confidence: float = 0.95,
                              n_resamples: int = 10_000, seed: int | None = 0,
                              exact_max_clusters: int = EXACT_MAX_CLUSTERS,
                              ) -> ClusterSignFlipInterval:
    """Interval for the mean of d = candidate - baseline (ratio of sums) from inverting the cluster sign-flip
    test, with the test's one-sided p-values at mu = 0. Exact enumeration up to ``exact_max_clusters``
    clusters, else ``n_resamples`` seeded flips (the same flips at every mu, so the interval and the p
    agree)."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence}")
    x, codes, g = prepare_clusters(d, cluster)
    sums, sizes = cluster_sums_and_sizes(x, codes, g)
    flips, exact = _flip_sets(g, int(n_resamples), seed, int(exact_max_clusters))
    a = flips @ sums  # sum over F of S_g
    b = flips @ sizes  # sum over F of n_g
    scale = float(np.max(np.abs(x))) or 1.0
    tol = 1e-9 * scale * x.size

    def p_upper(mu: float) -> float:  # evidence that the mean is above mu
        return float(np.mean(a - mu * b <= tol))

    def p_lower(mu: float) -> float:  # evidence that the mean is below mu
        return float(np.mean(a - mu * b >= -tol))

    estimate = float(sums.sum() / sizes.sum())
    tail = (1.0 - confidence) / 2.0
    means = sums / sizes
    below, above = float(means.min()) - scale, float(means.max()) + scale

    def bisect(fn: Callable[[float], float], outside: float, inside: float) -> float:
        if fn(outside) > tail:
            return -math.inf if outside < inside else math.inf
        for _ in range(200):
            mid = (outside + inside) / 2
            if fn(mid) > tail:
                inside = mid
            else:
                outside = mid
            if abs(inside - outside) <= 1e-12 * scale:
                break
        return inside

    low = bisect(p_upper, below, estimate)
    high = bisect(p_lower, above, estimate)
    return ClusterSignFlipInterval(estimate, low, high, p_lower(0.0), p_upper(0.0), g, exact, confidence)


@dataclass(frozen=True, slots=True)
class ClusteredInference:
    """One clustered p and interval from one method: "cluster sign-flip" below ``SMALL_G`` clusters, "CR2"
    (t interval with Bell-McCaffrey df) from there on."""

    method: str
    estimate: float
    ci_low: float
    ci_high: float
    p_regression: float
    n_clusters: int
    confidence: float


def clustered_inference(d: ArrayLike, cluster: ArrayLike, confidence: float = 0.95, small_g: int = SMALL_G,
                        seed: int | None = 0, ) -> ClusteredInference:
    """The p-value and the interval of the mean difference from the same method, chosen by the number of
    clusters G: below ``small_g`` the inverted cluster sign-flip (never p = 0: at least 2^-G), otherwise CR2.
    A CR2 standard error of 0 at G >= small_g stays CR2's answer (the caller may still warn)."""
    x, codes, g = prepare_clusters(d, cluster)
    if g < small_g:
        r = cluster_signflip_interval(x, codes, confidence, seed=seed)
        return ClusteredInference("cluster sign-flip", r.estimate, r.ci_low, r.ci_high, r.p_regression, g,
                                  confidence)
    c = cr2_test(x, codes, confidence)
    return ClusteredInference("CR2", c.estimate, c.ci_low, c.ci_high, c.p_regression, g, confidence)
