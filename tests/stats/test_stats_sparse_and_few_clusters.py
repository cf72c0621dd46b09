"""Sparse 0/+-1 differences get one conditional test whatever the coding; few clusters get the inverted
sign-flip, so a zero CR2 standard error never gives p = 0."""

from __future__ import annotations

import numpy as np
import pytest

from releasegate.stats.cluster_signflip_interval import (
    cluster_signflip_interval,
    clustered_inference,
)
from releasegate.stats.clusters import cluster_signflip_test, cr2_test, durkalski_test
from releasegate.stats.continuous import paired_t_test
from releasegate.stats.sparse import is_sparse, sparse_conditional_test


def four_broke_of_1000():
    d = np.zeros(1000)
    d[:4] = -1.0
    return d


def test_the_issues_three_codings_give_one_answer():
    d = four_broke_of_1000()
    one_run = sparse_conditional_test(d)
    assert one_run.p_regression == 0.0625 and (one_run.broke, one_run.fixed) == (4, 0)
    # The same rows duplicated as two identical runs, labelled by case.
    case = np.tile(np.arange(1000), 2)
    assert sparse_conditional_test(np.tile(d, 2), case).p_regression == 0.0625
    # Cluster = case id: one case per cluster.
    assert sparse_conditional_test(d, np.arange(1000)).p_regression == 0.0625
    assert one_run.midp_regression == pytest.approx(1 / 32)
    # What today's other codings say (the disagreement the issue reports): runs reduce to per-case means,
    # which here are d itself, and go to the paired t test.
    assert paired_t_test(d).p_regression == pytest.approx(0.023, abs=5e-4)
    broke = (d == -1).astype(int)
    assert durkalski_test(broke, np.zeros(1000, int), np.arange(1000)).p_regression == pytest.approx(0.023, abs=5e-4)


def test_non_sparse_data_are_refused():
    assert is_sparse([0, 1, -1, 0]) and not is_sparse([0, 0.5])
    assert not is_sparse([1, 0, 0, 1], case=[0, 0, 1, 1])  # runs that disagree: each case's mean is 0.5
    with pytest.raises(ValueError, match="not all -1, 0 or \\+1"):
        sparse_conditional_test([1.0, 0.0], case=[0, 0])
    with pytest.raises(ValueError):
        sparse_conditional_test([])
    assert sparse_conditional_test(np.zeros(5)).degenerate


def test_two_identical_clusters_give_the_sign_flip_not_zero():
    d = np.full(10, -0.2)
    cluster = np.repeat([0, 1], 5)
    assert cr2_test(d, cluster).p_regression == 0.0  # today's answer
    result = clustered_inference(d, cluster)
    assert result.method == "cluster sign-flip" and result.p_regression == 0.25
    assert result.low == -np.inf and result.high == np.inf


@pytest.mark.parametrize("seed", range(4))
def test_interval_p_values_equal_the_existing_sign_flip_test(seed):
    rng = np.random.default_rng(seed)
    g = 9 + seed
    cluster = np.repeat(np.arange(g), rng.integers(2, 8, g))
    d = rng.normal(-0.2, 1, cluster.size) + rng.normal(0, 0.4, g)[cluster]
    inv = cluster_signflip_interval(d, cluster)
    ref = cluster_signflip_test(d, cluster)
    assert inv.p_regression == pytest.approx(ref.p_regression) and inv.p_improvement == pytest.approx(ref.p_improvement)
    assert inv.low < inv.estimate < inv.high
    # The interval is the set of mu the test does not reject: just inside is kept, just outside is not.
    shifted_in = cluster_signflip_interval(d - (inv.low + 1e-6), cluster)
    shifted_out = cluster_signflip_interval(d - (inv.low - 1e-6), cluster)
    assert shifted_in.p_improvement > 0.025 >= shifted_out.p_improvement
    # It excludes 0 exactly when the matching one-sided p is at most 2.5%.
    assert (inv.high < 0) == (inv.p_regression <= 0.025)


def test_interval_coverage_by_simulation():
    """200 replications of 10 clusters with intra-cluster correlation: the exact inverted sign-flip keeps at
    least its 95% (up to the Monte Carlo error of 200 draws); deterministic seed, no timing."""
    rng = np.random.default_rng(2026)
    covered = 0
    reps = 200
    for _ in range(reps):
        cluster = np.repeat(np.arange(10), 8)
        d = 0.1 + rng.normal(0, 1, 80) + rng.normal(0, 0.5, 10)[cluster]
        r = cluster_signflip_interval(d, cluster)
        covered += r.low <= 0.1 <= r.high
    assert covered / reps >= 0.90


def test_many_clusters_use_cr2_for_both():
    rng = np.random.default_rng(4)
    cluster = np.repeat(np.arange(30), 5)
    d = rng.normal(0, 1, 150)
    result = clustered_inference(d, cluster)
    ref = cr2_test(d, cluster)
    assert result.method == "CR2" and (result.low, result.high, result.p_regression) == (
        ref.low, ref.high, ref.p_regression)


def test_cases_that_broke_and_fixed_both_count_against_scipys_binomial_test():
    from scipy.stats import binom, binomtest

    # 3 broke, 1 fixed, 3 unchanged: X ~ Bin(4, 1/2), P(X >= 3) = 5/16, mid-p 1/16 + 4/32, two-sided 10/16
    d = np.array([-1.0, 0.0, -1.0, 1.0, 0.0, -1.0, 0.0])
    want = binomtest(3, 4, 0.5, alternative="greater").pvalue
    midp = binom.sf(3, 4, 0.5) + 0.5 * binom.pmf(3, 4, 0.5)
    for rows, case in ((d, None), (np.concatenate([d, d]), np.tile(["g", "c", "a", "f", "b", "e", "d"], 2))):
        r = sparse_conditional_test(rows, case)
        assert (r.broke, r.fixed, r.n_cases, r.degenerate) == (3, 1, 7, False)
        assert r.p_regression == pytest.approx(want, rel=1e-12) and want == pytest.approx(5 / 16)
        assert r.midp_regression == pytest.approx(midp, rel=1e-12)
        assert r.p_two_sided == pytest.approx(binomtest(3, 4, 0.5).pvalue, rel=1e-12)


def test_bad_rows_are_refused_with_their_own_reason():
    with pytest.raises(ValueError, match="finite"):
        sparse_conditional_test([0.0, float("nan"), 1.0])
    with pytest.raises(ValueError, match="finite"):
        is_sparse([0.0, float("inf")])
    with pytest.raises(ValueError, match="3 case labels for 4 differences"):
        sparse_conditional_test([0.0, 1.0, -1.0, 0.0], case=[0, 1, 2])
