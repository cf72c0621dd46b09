"""Grouped cases: the verdict's p and interval from one method, and never p = 0 from a zero standard error
(issue 21 item 6b, 6c). Below 20 groups the cluster sign-flip test and its inversion; from 20 on CR2's t
test and t interval with the same standard error and df; a zero CR2 standard error claims no interval."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as scipy_stats

from releasegate.analyze.candidate import plan_arrays
from releasegate.policy import make_policy

# shared/reference/stat-vectors.json, clustered_se: 24 cases in 6 clusters of sizes 3,5,4,2,6,4 (binary).
CLUSTER = [0, 0, 0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 4, 4, 4, 4, 4, 4, 5, 5, 5, 5]
BASE = [1, 1, 1, 1, 1, 0, 1, 0, 0, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1]
CAND = [0, 0, 0, 1, 1, 0, 1, 0, 1, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1, 1, 1, 1, 1]
# Exact enumeration of the 64 sign assignments in rational arithmetic (a throwaway script, independent of
# releasegate): cluster sums S = (-3, 0, 2, 0, -3, 1), sizes n = (3, 5, 4, 2, 6, 4); the inverted interval's
# ends are breakpoints sum_F S / sum_F n.
SIGNFLIP_P_ONE_SIDED = 3 / 8
SIGNFLIP_P_TWO_SIDED = 0.75
SIGNFLIP_CI95 = (-1.0, 0.5)
SIGNFLIP_CI90 = (-0.6, 1 / 3)


def plan(base, cand, cluster, binary=True, **overrides):
    policy = make_policy(**overrides)
    return plan_arrays(np.asarray(base, float), np.asarray(cand, float), policy, mcnemar=binary, rates=binary,
                       cluster_codes=np.asarray(cluster))


def test_few_groups_use_the_sign_flip_for_p_and_interval():
    r = plan(BASE, CAND, CLUSTER)
    o = r.overall
    assert o.p_one_sided == pytest.approx(SIGNFLIP_P_ONE_SIDED, abs=1e-12)
    assert o.p_value == pytest.approx(SIGNFLIP_P_TWO_SIDED, abs=1e-12)
    assert (o.ci_low, o.ci_high) == pytest.approx(SIGNFLIP_CI95, abs=1e-7)  # the bisection stops within 1e-9 x n
    assert (o.ni_low, o.ni_high) == pytest.approx(SIGNFLIP_CI90, abs=1e-7)
    assert r.clusters.verdict_test == "signflip" and o.method == "cluster sign-flip"
    assert r.clusters.verdict_p_value == o.p_value and r.clusters.clustered_ci_low == o.ci_low


def test_two_groups_with_identical_changes_are_not_certainty():
    # Each group: 2 of 4 cases broke. CR2's standard error is 0 here (p = 0 before this change).
    base = [1] * 8
    cand = [0, 0, 1, 1, 0, 0, 1, 1]
    cluster = [0, 0, 0, 0, 1, 1, 1, 1]
    r = plan(base, cand, cluster)
    assert r.clusters.cr2_se == 0.0
    assert r.overall.p_one_sided == pytest.approx(0.25, abs=1e-12)  # both groups negative: 1 of 4 flips
    assert (r.overall.ci_low, r.overall.ci_high) == (-1.0, 1.0)  # nothing is ruled out: unbounded, clipped
    assert (r.overall.ni_low, r.overall.ni_high) == (-1.0, 1.0)  # so non-inferiority cannot pass


def test_a_zero_cr2_standard_error_at_many_groups_claims_no_interval():
    g = 24  # every group: 1 of 4 cases broke; CR2's standard error is 0
    base = [1] * (4 * g)
    cand = [0, 1, 1, 1] * g
    cluster = np.repeat(np.arange(g), 4)
    r = plan(base, cand, cluster)
    assert r.clusters.cr2_se == 0.0
    assert r.overall.p_one_sided == pytest.approx(2.0**-g, rel=1e-9)  # the exact sign-flip p
    assert math.isinf(r.overall.ni_low) or r.overall.ni_low == -1.0
    assert r.overall.ni_low < -0.05  # non-inferiority fails closed


def test_many_groups_use_cr2_for_p_and_interval_with_the_same_df():
    rng = np.random.default_rng(7)
    g = 30
    cluster = np.repeat(np.arange(g), 5)
    base = rng.normal(size=cluster.size) + rng.normal(size=g)[cluster]
    cand = base + 0.1 + 0.5 * rng.normal(size=cluster.size) + 0.3 * rng.normal(size=g)[cluster]
    r = plan(base, cand, cluster, binary=False)
    k, o = r.clusters, r.overall
    assert k.verdict_test == "cr2"
    assert o.p_value == k.cr2_p_value and o.p_one_sided == k.cr2_p_one_sided
    half = scipy_stats.t.ppf(0.975, k.cr2_df) * k.cr2_se
    assert (o.ci_low, o.ci_high) == pytest.approx((k.estimate - half, k.estimate + half), rel=1e-10)
    half90 = scipy_stats.t.ppf(0.95, k.cr2_df) * k.cr2_se
    assert (o.ni_low, o.ni_high) == pytest.approx((k.estimate - half90, k.estimate + half90), rel=1e-10)


@pytest.mark.parametrize("g", [4, 7, 12, 19, 20, 35])
def test_the_interval_excludes_zero_exactly_when_the_p_is_below_the_level(g):
    rng = np.random.default_rng(100 + g)
    checked = 0
    # 19 groups is the most that take the sign-flip (below FEW_CLUSTERS = 20; all 2^19 assignments, its
    # inversion 0.5 s a draw): 8 draws keep that edge in the suite, the other sizes take 25 (issue 27: 25 draws
    # at 19 were 14 s, most of this file).
    draws = 8 if g == 19 else 25
    for _ in range(draws):
        sizes = rng.integers(1, 6, size=g)
        cluster = np.repeat(np.arange(g), sizes)
        effect = rng.normal(scale=0.4) + rng.normal(scale=0.3, size=g)[cluster]
        base = rng.normal(size=cluster.size)
        cand = base + effect + 0.5 * rng.normal(size=cluster.size)
        r = plan(base, cand, cluster, binary=False)
        for c in (r.overall,):
            alpha = 0.05
            if abs(c.p_one_sided - alpha) < 1e-9 or abs(c.p_value - 0.05) < 1e-9:
                continue
            # one-sided at alpha <-> the (1 - 2 alpha) interval's upper bound; two-sided <-> the 95% interval
            assert (c.p_one_sided < alpha) == (c.ni_high < 0)
            assert (c.p_value < 0.05) == (c.ci_low > 0 or c.ci_high < 0)
            checked += 1
    assert checked >= draws * 4 // 5
