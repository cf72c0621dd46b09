"""The inverted cluster sign-flip interval's search (stats.cluster_signflip_interval._bisect) re-evaluates only
the flips that change inside the bracket: its ends must be bit-for-bit those of the plain bisection that
evaluates the p over every flip at every step (written out here from the module's definition)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from releasegate.stats.cluster_signflip_interval import _flip_sets, cluster_signflip_interval
from releasegate.stats.clusters import cluster_sums_and_sizes, prepare_clusters


def plain_interval(d, cluster, confidence, n_resamples=10_000, seed=0, exact_max=20):
    x, codes, g = prepare_clusters(d, cluster)
    sums, sizes = cluster_sums_and_sizes(x, codes, g)
    flips, _ = _flip_sets(g, n_resamples, seed, exact_max)
    a, b = flips @ sums, flips @ sizes
    scale = float(np.max(np.abs(x))) or 1.0
    tol = 1e-9 * scale * x.size
    tail = (1.0 - confidence) / 2.0

    def p_upper(mu):
        return float(np.mean(a - mu * b <= tol))

    def p_lower(mu):
        return float(np.mean(a - mu * b >= -tol))

    def bisect(fn, outside, inside):
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

    estimate = float(sums.sum() / sizes.sum())
    means = sums / sizes
    return (bisect(p_upper, float(means.min()) - scale, estimate),
            bisect(p_lower, float(means.max()) + scale, estimate))


CASES = [(g, binary, seed) for g in (2, 3, 6, 9, 13) for binary in (True, False) for seed in range(4)]


@pytest.mark.parametrize("g,binary,seed", CASES)
def test_the_ends_are_the_plain_bisections_bit_for_bit(g, binary, seed):
    rng = np.random.default_rng(1000 * g + seed)
    sizes = rng.integers(1, 7, size=g)
    cluster = np.repeat(np.arange(g), sizes)
    if binary:  # many ties: the terms sit on the tolerance's edge
        base = (rng.random(cluster.size) < 0.7).astype(float)
        cand = np.where(rng.random(cluster.size) < 0.25, 1 - base, base)
        d = cand - base
    else:
        d = rng.normal(scale=0.4) + rng.normal(scale=0.3, size=g)[cluster] + 0.5 * rng.normal(size=cluster.size)
    for confidence in (0.8, 0.9, 0.95):
        r = cluster_signflip_interval(d, cluster, confidence)
        assert (r.low, r.high) == plain_interval(d, cluster, confidence)


@pytest.mark.parametrize("seed", range(3))
def test_monte_carlo_flips_give_the_plain_bisections_ends(seed):
    rng = np.random.default_rng(seed)
    g = 30
    cluster = np.repeat(np.arange(g), rng.integers(1, 5, size=g))
    d = 0.1 + rng.normal(size=g)[cluster] * 0.3 + rng.normal(size=cluster.size)
    r = cluster_signflip_interval(d, cluster, 0.95, n_resamples=2000, seed=seed, exact_max_clusters=20)
    assert not r.exact
    assert (r.low, r.high) == plain_interval(d, cluster, 0.95, n_resamples=2000, seed=seed)


def test_an_unbounded_end_stays_unbounded():
    d = np.array([-1.0, 0.0, 1.0, -1.0, 1.0])
    cluster = np.array([0, 0, 1, 1, 2])
    r = cluster_signflip_interval(d, cluster, 0.95)  # 3 clusters: no one-sided p below 1/8
    assert (r.low, r.high) == (-math.inf, math.inf) == plain_interval(d, cluster, 0.95)


@pytest.mark.parametrize("g", [1, 2, 5, 11])
def test_the_exact_flips_are_every_subset_in_code_order(g):
    flips, exact = _flip_sets(g, 100, 0, 20)
    assert exact and flips.dtype == np.int8 and flips.shape == (2**g, g)
    expected = [[(k >> j) & 1 for j in range(g)] for k in range(2**g)]
    assert flips.tolist() == expected
