"""stats.churn: the pairwise churn estimate and the range of broke - fixed that churn alone gives, against
exact enumeration and by their properties."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from releasegate.stats.churn import EXACT_UP_TO, churn_net_range, pairwise_churn


def _enumerated_net_cdf(n: int, s: float) -> dict[int, float]:
    """P(broke - fixed <= d) by enumerating every case's state (broke, fixed, unchanged): 3^n outcomes."""
    probs = {1: s / 2, -1: s / 2, 0: 1 - s}
    pmf: dict[int, float] = {}
    for states in itertools.product((1, -1, 0), repeat=n):
        p = math.prod(probs[x] for x in states)
        pmf[sum(states)] = pmf.get(sum(states), 0.0) + p
    cdf, acc = {}, 0.0
    for d in range(-n, n + 1):
        acc += pmf.get(d, 0.0)
        cdf[d] = acc
    return cdf


def _quantile(cdf: dict[int, float], q: float) -> int:
    return min(d for d, c in cdf.items() if c >= q - 1e-12)


@pytest.mark.parametrize(("n", "s"), [(1, 0.5), (4, 0.1), (7, 0.3), (9, 0.18)])
def test_net_range_matches_enumeration(n, s):
    cdf = _enumerated_net_cdf(n, s)
    got = churn_net_range(n, s)
    assert (got.low, got.high) == (_quantile(cdf, 0.025), _quantile(cdf, 0.975))
    assert got.exact


def test_net_range_known_values():
    # Computed here by the convolution and cross-checked with the normal limit: sd sqrt(n s).
    r = churn_net_range(400, 0.10)
    assert r.low == -r.high and 11 <= r.high <= 13  # 1.96 * sqrt(40) = 12.4
    assert churn_net_range(45, 0.10).high == 4
    assert churn_net_range(50, 0.0).high == 0 and churn_net_range(0, 0.3).high == 0


def test_net_range_properties():
    highs = [churn_net_range(200, s).high for s in (0.02, 0.05, 0.1, 0.2)]
    assert highs == sorted(highs) and highs[0] < highs[-1]  # more churn, wider range
    assert churn_net_range(200, 0.1, level=0.5).high < churn_net_range(200, 0.1, level=0.99).high
    exact = churn_net_range(EXACT_UP_TO, 0.1)
    normal = churn_net_range(EXACT_UP_TO + 1, 0.1)
    assert not normal.exact and abs(exact.high - normal.high) <= 1  # the two agree where they meet
    with pytest.raises(ValueError):
        churn_net_range(10, 1.5)


def test_pairwise_churn_two_runs_is_the_share_that_differs():
    a = np.array([1, 1, 0, 0, 1, 1, 1, 0])
    b = np.array([1, 0, 0, 1, 1, 1, 1, 0])
    got = pairwise_churn(a + b, np.full(8, 2), ["x", "x", "x", "x", "y", "y", "y", "y"])
    assert got.share == pytest.approx(2 / 8)
    assert got.by_category == (("x", 0.5, 4), ("y", 0.0, 4))


def test_pairwise_churn_is_the_mean_disagreement_over_every_pair_of_runs():
    rng = np.random.default_rng(7)
    runs = rng.integers(0, 2, size=(5, 30))
    pairs = [np.mean(runs[i] != runs[j]) for i, j in itertools.combinations(range(5), 2)]
    got = pairwise_churn(runs.sum(0), np.full(30, 5))
    assert got.share == pytest.approx(np.mean(pairs), rel=1e-12)
    assert (got.runs_min, got.runs_max) == (5, 5)


def test_pairwise_churn_refuses_what_it_cannot_measure():
    with pytest.raises(ValueError):
        pairwise_churn([1], [1])  # one run: no churn
    with pytest.raises(ValueError):
        pairwise_churn([3], [2])
    with pytest.raises(ValueError):
        pairwise_churn([], [])
