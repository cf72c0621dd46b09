"""The sparse condition for grouped cases: every group's change -1, 0 or +1 makes the sign-flip p the exact
binomial p on the groups that changed (checked by enumerating every sign assignment, and against scipy)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.stats import binomtest

from releasegate.stats.cluster_signflip_interval import cluster_signflip_interval
from releasegate.stats.sparse_clusters import cluster_sparse_test, cluster_sums, is_cluster_sparse


def enumerated_regression_p(sums) -> float:
    """P(flipped total <= observed total) over all 2^G sign assignments, by brute force."""
    total = sum(sums)
    hits = sum(1 for signs in itertools.product((1, -1), repeat=len(sums))
               if sum(s * v for s, v in zip(signs, sums)) <= total + 1e-12)
    return hits / 2 ** len(sums)


@pytest.mark.parametrize("seed", range(6))
def test_the_exact_conditional_p_is_the_sign_flip_p(seed):
    rng = np.random.default_rng(seed)
    g = int(rng.integers(3, 12))
    sizes = rng.integers(1, 5, size=g)
    cluster = np.repeat(np.arange(g), sizes)
    d = np.zeros(cluster.size)
    change = rng.choice([-1.0, 0.0, 1.0], size=g, p=[0.4, 0.3, 0.3])
    first = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    d[first] = change  # one changed case per group at most
    assert is_cluster_sparse(d, cluster)
    r = cluster_sparse_test(d, cluster)
    assert (r.broke, r.fixed, r.n_cases) == (int((change == -1).sum()), int((change == 1).sum()), g)
    assert r.p_regression == pytest.approx(enumerated_regression_p(change.tolist()), abs=1e-12)
    if r.broke + r.fixed:
        scipy_p = binomtest(r.broke, r.broke + r.fixed, 0.5, alternative="greater").pvalue
        assert r.p_regression == pytest.approx(scipy_p, abs=1e-12)
    # the inverted interval's own p at 0 (exact flips at these G) is the same number
    assert cluster_signflip_interval(d, cluster).p_regression == pytest.approx(r.p_regression, abs=1e-12)


def test_cluster_equals_case_id_is_the_issues_example():
    d = np.zeros(1000)
    d[:4] = -1.0
    r = cluster_sparse_test(d, np.arange(1000))
    assert (r.broke, r.fixed, r.p_regression, r.midp_regression) == (4, 0, 0.0625, 1 / 32)


def test_group_sums_of_run_means_snap_to_integers_and_others_are_refused():
    # two cases of one group with run means -1/3 and -2/3: the group's change is -1 up to rounding
    d = np.array([-1 / 3, -2 / 3, 0.0, 1.0])
    cluster = np.array([0, 0, 1, 2])
    assert cluster_sums(d, cluster).tolist() == [-1.0, 0.0, 1.0]
    assert is_cluster_sparse(d, cluster)
    assert not is_cluster_sparse(np.array([-1.0, -1.0, 0.0]), np.array([0, 0, 1]))  # a group sums to -2
    with pytest.raises(ValueError):
        cluster_sparse_test(np.array([-1.0, -1.0, 0.0]), np.array([0, 0, 1]))
