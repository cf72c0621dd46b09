"""The weighted discrete step-down (stats/step_down.py): family-wise error by exact enumeration on small
families (independent members, and the plan's own structure: an overall test that is the sum of its
categories), its reductions to weighted Holm and discrete Holm, and its properties."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from releasegate.stats.discrete import discrete_holm_mixed
from releasegate.stats.multiplicity import adjust_pvalues, holm_adjust
from releasegate.stats import step_down
from releasegate.stats.step_down import (
    CONTINUOUS,
    weighted_best_case,
    weighted_bonferroni,
    weighted_discrete_holm,
    weighted_holm,
    weighted_step_up,
)

ALPHA = 0.05


def upper(k: int, n: int) -> float:
    """P(Bin(n, 1/2) >= k) from scratch (exact integers)."""
    return sum(math.comb(n, i) for i in range(k, n + 1)) / 2**n


def pmf(k: int, n: int, q: float = 0.5) -> float:
    return math.comb(n, k) * q**k * (1 - q) ** (n - k)


def fwer_independent(ns, weights, null=None, alt_q=0.85, cap=None):
    """Exact chance that the step-down (capped at ``cap`` when given) rejects a true null: members independent,
    Bin(n, 1/2) under the null, Bin(n, alt_q) for a false one."""
    null = null or [True] * len(ns)
    total = 0.0
    for ks in itertools.product(*(range(n + 1) for n in ns)):
        prob = math.prod(pmf(k, n, 0.5 if h else alt_q) for k, n, h in zip(ks, ns, null))
        p = [upper(k, n) for k, n in zip(ks, ns)]
        rejected = weighted_discrete_holm(p, weights, ns, cap=cap).rejected(ALPHA)
        if any(r and h for r, h in zip(rejected, null)):
            total += prob
    return total


@pytest.mark.parametrize(("ns", "weights"), [
    ((3, 5, 8), (1, 1, 1)),
    ((8, 8, 8, 6), (1, 4, 1, 1)),
    ((1, 7, 8, 5), (5, 1, 1, 2)),
    ((12, 4, 4, 4), (1, 1, 1, 10)),
    ((10, 2, 2, 2, 6), (0.5, 1, 1, 1, 3)),
])
def test_family_wise_error_under_the_global_null_by_enumeration(ns, weights):
    assert fwer_independent(ns, weights) <= ALPHA + 1e-12


@pytest.mark.parametrize(("ns", "weights", "null"), [
    ((30, 6, 8), (1, 4, 1), (False, True, True)),
    ((20, 20, 7, 8), (1, 1, 4, 1), (False, False, True, True)),
    ((5, 20, 8, 6), (4, 1, 1, 1), (True, False, True, True)),
])
def test_family_wise_error_under_partial_nulls_by_enumeration(ns, weights, null):
    assert fwer_independent(ns, weights, list(null)) <= ALPHA + 1e-12


def _plan_family(cats: tuple[int, ...], critical: int, weight: float) -> float:
    """The plan's structure: an overall test on the sum of every category's counts, each category's test, and
    the critical category's own test merged with its category (weight 1 + weight): the exact chance that a
    harmless release (every discordant case a fair coin) is rejected anywhere."""
    total = 0.0
    n_all = sum(cats)
    weights = [1.0] + [1.0 + (weight if j == critical else 0.0) for j in range(len(cats))]
    for ks in itertools.product(*(range(n + 1) for n in cats)):
        prob = math.prod(pmf(k, n) for k, n in zip(ks, cats))
        p = [upper(sum(ks), n_all)] + [upper(k, n) for k, n in zip(ks, cats)]
        if any(weighted_discrete_holm(p, weights, [n_all, *cats]).rejected(ALPHA)):
            total += prob
    return total


@pytest.mark.parametrize("weight", [0.0001, 1, 4, 20])
@pytest.mark.parametrize("cats", [(4, 5, 3, 8), (2, 9, 2, 2, 6)])
def test_the_plans_dependent_family_keeps_the_level(cats, weight):
    fwer = _plan_family(cats, critical=len(cats) - 1, weight=weight)
    assert fwer <= ALPHA + 1e-12
    assert fwer > 0.2 * ALPHA  # the discrete members donate their share: the level is used, not wasted


def test_the_critical_weight_buys_the_critical_category_its_detection():
    """A 20-point drop in a critical category of 14 discordant cases, 12 broke: at weight 4 it is rejected in
    a family of an overall test and eight churning categories; at weight 1 with a continuous overall member
    and eight continuous categories (Holm) it is not."""
    p_crit = upper(12, 14)  # 0.0065
    ps = [upper(26, 50)] + [0.5] * 8 + [p_crit]
    discrete = [50] + [5] * 8 + [14]
    assert weighted_discrete_holm(ps, [1] * 9 + [5], discrete).adjusted[-1] < ALPHA
    continuous = [None] * 10
    assert weighted_discrete_holm(ps, [1] * 10, continuous).adjusted[-1] > ALPHA
    assert weighted_discrete_holm(ps, [1] * 9 + [5], continuous).adjusted[-1] < ALPHA


def test_continuous_members_give_weighted_holm():
    rng = np.random.default_rng(3)
    for _ in range(50):
        m = int(rng.integers(1, 8))
        p = rng.random(m) ** 3
        w = rng.random(m) + 0.1
        got = np.array(weighted_discrete_holm(p, w, [None] * m).adjusted)
        # Weighted Holm from its definition: order by p / w; step k compares p_(k) W_(k..m) / w_(k).
        order = np.argsort(p / w, kind="stable")
        running, want = 0.0, np.empty(m)
        for k, j in enumerate(order):
            running = max(running, p[j] * w[order[k:]].sum() / w[j])
            want[j] = min(1.0, running)
        assert got == pytest.approx(want, rel=1e-12)
        assert np.all(got <= np.array(weighted_bonferroni(p, w)) + 1e-15)


def _by_loop(p, w):
    """The step-down's loop (one sum over the remaining members per step) on an all-continuous family."""
    p, w = np.asarray(p, dtype=float), np.asarray(w, dtype=float)
    out, order = step_down._steps_by_loop(p, w, np.full(p.size, CONTINUOUS))
    return out, order


@pytest.mark.parametrize("seed", range(30))
def test_the_vectorised_weighted_holm_equals_the_loop(seed):
    """Random families of 1-300 members, with ties in p / w, p-values of 0 and 1 and weights that push a term
    past 1: the same order and the same adjusted p up to the rounding of the sum (a few ulps)."""
    rng = np.random.default_rng(500 + seed)
    m = int(rng.integers(1, 300))
    p = rng.random(m) ** rng.uniform(1, 6)
    p[rng.random(m) < 0.1] = 0.0
    p[rng.random(m) < 0.05] = 1.0
    w = rng.choice([0.3, 1.0, 2.0, 7.5], size=m) * (rng.random(m) if seed % 2 else 1.0) + 1e-3
    if seed % 3 == 0:
        p[: m // 2] = p[0]  # ties in p / w (equal weights in the other half)
        w[: m // 2] = w[0]
    want, want_order = _by_loop(p, w)
    got = weighted_holm(p, w)
    assert got.order == tuple(int(i) for i in want_order)
    np.testing.assert_allclose(got.adjusted, want, rtol=1e-12, atol=0)
    assert weighted_discrete_holm(p, w, [None] * m).adjusted == got.adjusted  # it takes the same path


@pytest.mark.parametrize("seed", range(10))
def test_the_vectorised_weighted_holm_is_identical_to_the_loop_when_the_arithmetic_is_exact(seed):
    """Dyadic p-values and weights (k / 2^20; 1, 2, 4, 1/2): every sum and product is exact in both, so the
    adjusted p must be the same floats, bit for bit."""
    rng = np.random.default_rng(900 + seed)
    m = int(rng.integers(1, 200))
    p = rng.integers(0, 2**20 + 1, size=m) / 2**20
    w = rng.choice([0.5, 1.0, 2.0, 4.0], size=m)
    want, _ = _by_loop(p, w)
    assert weighted_holm(p, w).adjusted == tuple(float(v) for v in want)


def test_the_vectorised_weighted_holm_takes_a_100000_member_family():
    """100,000 members (the loop would take 5e9 look-ups): the first step is weighted Bonferroni's and the
    adjusted p are non-decreasing in step order; the reference values of the test above hold at any size."""
    rng = np.random.default_rng(11)
    m = 100_000
    p = rng.random(m) ** 4
    w = rng.random(m) + 0.5
    got = weighted_holm(p, w)
    adjusted = np.array(got.adjusted)
    first = got.order[0]
    assert adjusted[first] == pytest.approx(min(1.0, p[first] * w.sum() / w[first]), rel=1e-12)
    assert np.all(np.diff(adjusted[list(got.order)]) >= 0)
    assert np.all(adjusted <= np.array(weighted_bonferroni(p, w)) * (1 + 1e-12))


def test_equal_weights_give_discrete_holm_and_holm():
    rng = np.random.default_rng(7)
    for _ in range(40):
        m = int(rng.integers(1, 10))
        ns = rng.integers(0, 30, size=m)
        is_discrete = rng.random(m) < 0.7
        p = np.array([upper(int(rng.integers(0, n + 1)), int(n)) if d else float(rng.random())
                      for n, d in zip(ns, is_discrete)])
        trials = [int(n) if d else None for n, d in zip(ns, is_discrete)]
        got = weighted_discrete_holm(p, [2.5] * m, trials).adjusted
        assert got == pytest.approx(discrete_holm_mixed(ns, p, is_discrete).adjusted, rel=1e-12)
    p = np.array([0.01, 0.04, 0.03, 0.2])
    assert weighted_discrete_holm(p, [1] * 4, [CONTINUOUS] * 4).adjusted == pytest.approx(holm_adjust(p))


@pytest.mark.parametrize("seed", range(20))
def test_properties(seed):
    rng = np.random.default_rng(100 + seed)
    m = int(rng.integers(2, 10))
    ns = rng.integers(0, 25, size=m)
    ks = [int(rng.integers(0, n + 1)) for n in ns]
    p = np.array([upper(k, n) for k, n in zip(ks, ns)])
    w = rng.random(m) * 5 + 0.2
    adj = np.array(weighted_discrete_holm(p, w, ns).adjusted)
    # Never above weighted Holm on the same p-values, never below the raw p.
    assert np.all(adj <= np.array(weighted_discrete_holm(p, w, [None] * m).adjusted) + 1e-15)
    assert np.all(adj >= p - 1e-15)
    # Only the ratios of the weights matter.
    assert weighted_discrete_holm(p, 7 * w, ns).adjusted == pytest.approx(tuple(adj), rel=1e-12)
    # One more broke case of a member never raises any adjusted p (monotone).
    j = int(np.argmax(ns))
    if ks[j] < ns[j]:
        p2 = p.copy()
        p2[j] = upper(ks[j] + 1, int(ns[j]))
        assert np.all(np.array(weighted_discrete_holm(p2, w, ns).adjusted) <= adj + 1e-15)
    # The best case stops at the member's rank and equals the full step-down's value there.
    floor = 2.0 ** -int(ns[0]) if ns[0] else 1.0
    p3 = p.copy()
    p3[0] = floor
    assert weighted_best_case(0, floor, p, w, ns) == weighted_discrete_holm(p3, w, ns).adjusted[0]


def test_weighted_step_up_reduces_to_the_plain_procedures():
    p = np.array([0.01, 0.04, 0.03, 0.2])
    for method in ("hochberg", "bh"):
        assert weighted_step_up(p, [3] * 4, method) == pytest.approx(tuple(adjust_pvalues(p, method)))
    assert weighted_bonferroni(p, [1, 1, 1, 1]) == pytest.approx(tuple(np.minimum(1, 4 * p)))
    # p W / w by hand (W = 4): 0.3 * 4 / 1 passes 1 and is capped; 0.01 * 4 / 3.
    assert weighted_bonferroni([0.3, 0.01], [1, 3]) == pytest.approx((1.0, 0.04 / 3), rel=1e-15)


def test_bad_input_is_refused():
    with pytest.raises(ValueError):
        weighted_discrete_holm([0.1], [0.0], [3])
    with pytest.raises(ValueError):
        weighted_discrete_holm([0.1, 0.2], [1.0], [3, 4])
    with pytest.raises(ValueError):
        weighted_discrete_holm([1.5], [1.0], [3])
    # -1 is the mark of a continuous member (None); below it a trial count is negative.
    with pytest.raises(ValueError, match="cannot be negative"):
        weighted_discrete_holm([0.1], [1.0], [-2])
    # Also where the member's attainable set is never read: beside a continuous member the spend is the cap.
    with pytest.raises(ValueError, match="trial count cannot be negative"):
        step_down.largest_spend([1.0, 1.0], [-2, None], 0.05)
