"""The capped weighted discrete step-down (stats/step_down.py, ``cap = alpha``): every member read at
min(alpha, lambda w_i). Family-wise error by exact enumeration on small families (independent members and the
plan's own structure: an overall test on the sum of its categories, the categories sharing one weight, a
critical category heavy), a member that cannot reach alpha costs nothing, a heavy member spends no more than it
can use, and the reading at alpha is monotone in every p (what a baseline rerun, which only raises a p, relies
on)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from test_stats_step_down import fwer_independent, pmf, upper

from releasegate.stats.step_down import largest_spend, weighted_best_case, weighted_discrete_holm

ALPHA = 0.05


def fwer(ns, weights, null=None, alt_q=0.85) -> float:
    """Exact chance that the capped step-down rejects a true null at ALPHA (test_stats_step_down's enumeration)."""
    return fwer_independent(ns, weights, null, alt_q, cap=ALPHA)


@pytest.mark.parametrize(("ns", "weights"), [
    ((3, 5, 8), (1, 1, 1)),
    ((8, 8, 8, 6), (1, 4, 1, 1)),
    ((12, 4, 4, 4), (1, 1 / 3, 1 / 3, 1 / 3 + 10)),
    ((10, 2, 2, 2, 6), (1, 0.25, 0.25, 0.25, 100.25)),
    ((14, 9, 5), (1, 50, 0.5)),
])
def test_family_wise_error_under_the_global_null_by_enumeration(ns, weights):
    assert fwer(ns, weights) <= ALPHA + 1e-12


@pytest.mark.parametrize(("ns", "weights", "null"), [
    ((30, 6, 8), (1, 4, 1), (False, True, True)),
    ((20, 20, 7, 8), (1, 1, 40, 1), (False, False, True, True)),
    ((5, 20, 8, 6), (40, 1, 0.1, 0.1), (True, False, True, True)),
])
def test_family_wise_error_under_partial_nulls_by_enumeration(ns, weights, null):
    assert fwer(ns, weights, list(null)) <= ALPHA + 1e-12


def plan_family(cats: tuple[int, ...], critical: int, weight: float) -> tuple[float, float]:
    """The plan's family on a harmless release (every changed case a fair coin, given the changed cases of each
    category): the overall test on the sum (weight 1), each category (1 / K, the categories sharing one weight),
    the critical category's member (1 / K + weight). Returns the exact chance of any rejection, and of the
    overall test's rejection."""
    n_all = sum(cats)
    each = 1.0 / len(cats)
    weights = [1.0] + [each + (weight if j == critical else 0.0) for j in range(len(cats))]
    anything = overall = 0.0
    for ks in itertools.product(*(range(n + 1) for n in cats)):
        prob = math.prod(pmf(k, n) for k, n in zip(ks, cats))
        p = [upper(sum(ks), n_all)] + [upper(k, n) for k, n in zip(ks, cats)]
        rejected = weighted_discrete_holm(p, weights, [n_all, *cats], cap=ALPHA).rejected(ALPHA)
        anything += prob * any(rejected)
        overall += prob * rejected[0]
    return anything, overall


@pytest.mark.parametrize("weight", [0.0001, 1, 10, 1000])
@pytest.mark.parametrize("cats", [(4, 5, 3, 8), (2, 9, 2, 2, 6), (12, 6, 6)])
def test_the_plans_dependent_family_keeps_the_level(cats, weight):
    anything, _ = plan_family(cats, critical=0, weight=weight)
    assert anything <= ALPHA + 1e-12
    assert anything > 0.2 * ALPHA  # the level is used, not wasted


def test_a_critical_category_that_cannot_reach_alpha_costs_the_overall_test_nothing():
    # 4 changed cases in the critical category: its best p is 1/16 > alpha, at any weight. The overall test's
    # chance of rejecting is then the same as without any critical weight, and its adjusted p is the same as in
    # the family without the critical member at all.
    cats = (4, 9, 7)
    _, without = plan_family(cats, critical=0, weight=0.0001)
    for weight in (1, 10, 1000):
        assert plan_family(cats, critical=0, weight=weight)[1] == pytest.approx(without, abs=1e-15)
    p = [0.004, 0.3125, 0.09, 0.5]
    ns = [20, 4, 9, 7]
    alone = weighted_discrete_holm([p[0], *p[2:]], [1, 1 / 3, 1 / 3], [20, 9, 7], cap=ALPHA).adjusted
    for weight in (1, 10, 1000):
        full = weighted_discrete_holm(p, [1, 1 / 3 + weight, 1 / 3, 1 / 3], ns, cap=ALPHA)
        assert full.adjusted[0] == pytest.approx(alone[0], rel=1e-12) and full.adjusted[0] < ALPHA
        assert full.rejected(ALPHA) == (True, False, False, False)


def test_a_heavy_member_spends_at_most_what_it_can_attain_at_alpha():
    # A critical member with 7 changed cases (attainable 1/128, 8/128, ...) at weight 1000: uncapped it is read
    # at 1000 lambda and spends 8/128 > alpha as soon as lambda > 0.0000625, which leaves the overall test nothing;
    # capped it spends 1/128 and the overall test (p 0.02) is rejected.
    p = [0.02, upper(5, 7)]
    ns = [None, 7]  # the overall test counted as reaching any p
    assert weighted_discrete_holm(p, [1, 1000], ns).adjusted[0] > ALPHA
    capped = weighted_discrete_holm(p, [1, 1000], ns, cap=ALPHA).adjusted
    assert capped[0] == pytest.approx(0.02 + 1 / 128, rel=1e-12) and capped[0] < ALPHA


@pytest.mark.parametrize("seed", range(40))
def test_the_reading_at_alpha_is_monotone_in_every_p(seed):
    rng = np.random.default_rng(4600 + seed)
    m = int(rng.integers(2, 8))
    ns = rng.integers(0, 25, size=m)
    w = rng.choice([0.1, 0.5, 1.0, 3.0, 50.0], size=m)
    ks = [int(rng.integers(0, n + 1)) for n in ns]
    p = np.array([upper(k, int(n)) for k, n in zip(ks, ns)])
    base = weighted_discrete_holm(p, w, ns, cap=ALPHA).rejected(ALPHA)
    for j in range(m):
        if ks[j] > 0:
            raised = p.copy()
            raised[j] = upper(ks[j] - 1, int(ns[j]))  # one broke case fewer: a larger p
            after = weighted_discrete_holm(raised, w, ns, cap=ALPHA).rejected(ALPHA)
            assert all(b or not a for a, b in zip(after, base))  # nothing rejected that was not before


@pytest.mark.parametrize("seed", range(20))
def test_capped_properties(seed):
    rng = np.random.default_rng(4700 + seed)
    m = int(rng.integers(2, 10))
    ns = rng.integers(0, 25, size=m)
    p = np.array([upper(int(rng.integers(0, n + 1)), int(n)) for n in ns])
    w = rng.random(m) * 5 + 0.2
    capped = np.array(weighted_discrete_holm(p, w, ns, cap=ALPHA).adjusted)
    assert np.all(capped >= p - 1e-15)
    # A cap of 1 is no cap.
    assert weighted_discrete_holm(p, w, ns, cap=1.0).adjusted == pytest.approx(
        weighted_discrete_holm(p, w, ns).adjusted, rel=1e-12)
    # At alpha the capped family rejects at least what the uncapped one does (a cap only lowers a sum).
    assert all(c or not u for u, c in zip(weighted_discrete_holm(p, w, ns).rejected(ALPHA),
                                          weighted_discrete_holm(p, w, ns, cap=ALPHA).rejected(ALPHA)))
    floor = 2.0 ** -int(ns[0]) if ns[0] else 1.0
    p3 = p.copy()
    p3[0] = floor
    assert weighted_best_case(0, floor, p, w, ns, cap=ALPHA) == weighted_discrete_holm(p3, w, ns, cap=ALPHA).adjusted[0]


def test_a_cap_outside_zero_to_one_is_refused():
    with pytest.raises(ValueError):
        weighted_discrete_holm([0.1], [1.0], [3], cap=0.0)
    with pytest.raises(ValueError):
        weighted_discrete_holm([0.1], [1.0], [3], cap=1.5)
    for cap in (0.0, 1.5):
        with pytest.raises(ValueError, match="a cap is a level"):
            largest_spend([1.0], [3], cap)


@pytest.mark.parametrize(("ns", "weights"), [
    ((12,), (1,)),
    ((9, 5, 4), (1, 0.5, 0.5 + 10)),
    ((14, 3, 8), (1, 1, 1)),
    ((20, 6), (1, 0.1)),
])
def test_the_largest_spend_bounds_the_chance_of_any_rejection(ns, weights):
    """Given the members' trials, the chance under the null that the capped step-down rejects anything is at
    most S* (largest_spend), and S* is at most the level: what is left, alpha - S*, is unspent."""
    spend = largest_spend(weights, ns, ALPHA)
    assert spend <= ALPHA
    assert fwer(ns, weights) <= spend + 1e-12
    assert largest_spend(weights, [None, *ns[1:]], ALPHA) == ALPHA  # a member reaching any p leaves nothing


def test_a_member_at_exactly_the_cap_is_stepped_by_its_ratio():
    """Only a p above the cap is stepped past last: one at the cap can still be rejected there. By hand at cap
    1/16: A (4 trials, p = 1/16, weight 1, ratio 1/16) steps first, spending 1/16 while C (5 trials, weight 1/4,
    read at 1/64) and B (3 trials, read at 1/16) can attain nothing: A's adjusted p is 1/16. C (p = 1/32, ratio
    1/8) next: 1/32 + 0, after A's 1/16: 1/16. B (p = 1/8, above the cap) last: its own p. Stepping A after C
    would give C 1/32 + 1/16 = 3/32 at its first step."""
    result = weighted_discrete_holm([1 / 16, 1 / 8, 1 / 32], [1, 1, 0.25], [4, 3, 5], cap=1 / 16)
    assert result.order == (0, 2, 1)
    assert result.adjusted == (1 / 16, 1 / 8, 1 / 16)
    assert result.rejected(1 / 16) == (True, False, True)


def _spend_by_scan(weights, ns, cap):
    """S* read off every lambda where some member's reading min(cap, lambda w_i) meets one of its attainable
    values: the largest sum of what each member can attain at its reading that is still <= cap (0 if none)."""
    def attainable(n):
        return sorted({sum(math.comb(n, j) for j in range(k, n + 1)) / 2**n for k in range(n + 1)})

    def spend(n, t):
        return max([a for a in attainable(n) if a <= t], default=0.0)

    lambdas = {a / w for w, n in zip(weights, ns) for a in attainable(n)} | {cap / w for w in weights}
    sums = [sum(spend(n, min(cap, lam * w)) for w, n in zip(weights, ns)) for lam in lambdas]
    return max([0.0] + [x for x in sums if x <= cap])


@pytest.mark.parametrize(("ns", "weights", "cap"), [
    ((5, 5), (1, 1), ALPHA),  # the first step already spends 2/32 > 0.05: nothing can be spent
    ((5, 5), (1, 2), ALPHA),
    ((9, 5, 4), (1, 0.5, 10.5), ALPHA),
    ((14, 3, 8), (1, 1, 1), ALPHA),
    ((3,), (1,), 1.0),  # a cap of 1 is a level: everything can be spent
    ((6, 2), (3, 1), 0.2),
    ((5, 5, 4), (1, 1, 0.5), 1 / 16),  # the two 1/32 floors sum to exactly the cap at an inner threshold
])
def test_the_largest_spend_by_a_scan_of_every_threshold(ns, weights, cap):
    assert largest_spend(weights, ns, cap) == pytest.approx(_spend_by_scan(weights, ns, cap), rel=1e-12, abs=0)


@pytest.mark.parametrize(("first", "added"), [(12, 10), (20, 9), (7, 15)])
def test_a_later_look_at_what_the_first_left_keeps_the_level(first, added):
    """Look 1: an exact McNemar test on ``first`` changed cases at alpha. Look 2, after more cases (``added`` more
    changed ones), on all of them at the level look 1 left (alpha - S*): the exact chance under the null that
    either look rejects is at most alpha."""
    left = ALPHA - largest_spend([1], [first], ALPHA)
    assert left > 0
    total = 0.0
    for k1 in range(first + 1):
        for k2 in range(added + 1):
            prob = pmf(k1, first) * pmf(k2, added)
            look1 = upper(k1, first) <= ALPHA
            look2 = upper(k1 + k2, first + added) <= left
            total += prob * (look1 or look2)
    assert total <= ALPHA + 1e-12
