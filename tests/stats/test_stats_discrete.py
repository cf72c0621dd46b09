"""Discrete multiplicity procedures for exact McNemar tests: family-wise error by exhaustive enumeration,
relation to Holm, monotonicity, and the issue's nine-small-categories family."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from releasegate.stats.discrete import (
    attainable_pvalues,
    discrete_bonferroni,
    discrete_holm,
    largest_attainable_at_most,
    tarone_bonferroni,
    tarone_holm,
)
from releasegate.stats.mcnemar import mcnemar_test
from releasegate.stats.multiplicity import holm_adjust

ALPHA = 0.05


def upper_p(k: int, n: int) -> float:
    return mcnemar_test(n - k, k).p_regression if n else 1.0


def family_rejections(procedure, ns, ks, alpha=ALPHA):
    ps = [upper_p(k, n) for k, n in zip(ks, ns)]
    if procedure in ("tarone holm", "tarone bonferroni"):
        fn = tarone_holm if procedure == "tarone holm" else tarone_bonferroni
        return fn(ns, ps, alpha).rejected
    fn = discrete_holm if procedure == "discrete holm" else discrete_bonferroni
    return fn(ns, ps).rejected(alpha)


def exact_fwer(procedure, ns, true_null, alpha=ALPHA):
    """P(some true null rejected) with X_j ~ Bin(n_j, 1/2) for the true nulls, all enumerated; false nulls
    are fixed at their most extreme outcome (every pair broke), which is where a step-down's error is largest."""
    ranges = [range(n + 1) if null else [n] for n, null in zip(ns, true_null)]
    total = 0.0
    for ks in itertools.product(*ranges):
        prob = math.prod(math.comb(n, k) / 2**n for n, k, null in zip(ns, ks, true_null) if null)
        rej = family_rejections(procedure, ns, ks, alpha)
        if any(r and null for r, null in zip(rej, true_null)):
            total += prob
    return total


def test_attainable_sets_match_the_binomial_tail():
    assert attainable_pvalues(0).tolist() == [1.0]
    assert attainable_pvalues(3).tolist() == [0.125, 0.5, 0.875, 1.0]
    assert attainable_pvalues(3, midp=True).tolist() == [0.0625, 0.3125, 0.6875, 0.9375]
    big = attainable_pvalues(2500)  # float path beyond the integer sums
    assert big[0] == pytest.approx(2.0**-2500, rel=1e-9) or big[0] == 0.0
    assert big[-1] == 1.0 and np.all(np.diff(big) >= 0)
    assert largest_attainable_at_most(3, 0.4) == 0.125
    assert largest_attainable_at_most(3, 0.1) == 0.0
    assert largest_attainable_at_most(3, 0.5) == 0.5


@pytest.mark.parametrize("n", [1, 2, 17, 64, 1999, 2000])
def test_attainable_sets_are_the_exact_tails_rounded_once(n):
    from fractions import Fraction

    from scipy import stats

    counts = list(itertools.accumulate(math.comb(n, j) for j in range(n, -1, -1)))[::-1]  # 2^n P(X >= k)
    tails = [Fraction(c, 2**n) for c in counts]
    assert attainable_pvalues(n).tolist() == sorted(float(t) for t in tails)
    # F(t) by bisection: the largest attainable p <= t, for t on, between and below the attainable values.
    values = attainable_pvalues(n)
    for t in (*values[:5], *(values[:5] * 1.5), values[0] / 2, float(stats.binom.sf(n // 2 - 1, n, 0.5))):
        below = values[values <= t * (1 + 1e-9)]
        assert largest_attainable_at_most(n, float(t)) == (below[-1] if below.size else 0.0)


@pytest.mark.parametrize("procedure", ["discrete holm", "discrete bonferroni", "tarone holm", "tarone bonferroni"])
@pytest.mark.parametrize("ns", [(3, 5, 8), (2, 4, 6, 8), (8, 8, 8), (1, 7, 8, 5)])
def test_fwer_under_the_global_null_by_enumeration(procedure, ns):
    fwer = exact_fwer(procedure, ns, [True] * len(ns))
    assert fwer <= ALPHA + 1e-12


@pytest.mark.parametrize("procedure", ["discrete holm", "tarone holm"])
@pytest.mark.parametrize(("ns", "true_null"), [
    ((30, 6, 8), (False, True, True)),
    ((30, 30, 7, 8), (False, False, True, True)),
    ((5, 30, 8, 6), (True, False, True, True)),
])
def test_fwer_under_partial_nulls_by_enumeration(procedure, ns, true_null):
    assert exact_fwer(procedure, ns, true_null) <= ALPHA + 1e-12


def test_the_discrete_step_down_uses_more_of_the_level_than_holm():
    ns = (8, 8, 8, 6)
    discrete = exact_fwer("discrete holm", ns, [True] * 4)
    holm_rejects = 0.0
    for ks in itertools.product(*(range(n + 1) for n in ns)):
        ps = np.array([upper_p(k, n) for k, n in zip(ks, ns)])
        if np.any(holm_adjust(ps) <= ALPHA):
            holm_rejects += math.prod(math.comb(n, k) / 2**n for n, k in zip(ns, ks))
    assert holm_rejects < discrete <= ALPHA  # enumerated: Holm 0.0117, discrete Holm 0.0271


def test_equal_counts_give_holm_exactly():
    ns = [40] * 5
    ps = [upper_p(k, 40) for k in (30, 27, 20, 33, 25)]
    assert discrete_holm(ns, ps).adjusted == pytest.approx(tuple(holm_adjust(np.array(ps))), rel=1e-12)


def test_fine_attainable_sets_approach_holm():
    rng = np.random.default_rng(5)
    gaps = []
    for n in (200, 2000, 20000):
        ns = np.array([n, n + 7, n + 31, n + 2])
        ks = (ns / 2 + rng.normal(0, 1, 4) * np.sqrt(ns) / 2 + np.sqrt(ns)).astype(int)
        ps = [upper_p(int(k), int(m)) for k, m in zip(ks, ns)]
        holm = holm_adjust(np.array(ps))
        disc = np.array(discrete_holm(ns, ps).adjusted)
        assert np.all(disc <= holm + 1e-15)
        gaps.append(float(np.max((holm - disc) / holm)))
    assert gaps[-1] < 0.05 and gaps[-1] < gaps[0]


@pytest.mark.parametrize("seed", range(5))
def test_never_above_holm_and_monotone(seed):
    rng = np.random.default_rng(seed)
    ns = rng.integers(0, 30, size=6)
    ks = [int(rng.integers(0, n + 1)) for n in ns]
    ps = np.array([upper_p(k, n) for k, n in zip(ks, ns)])
    disc = np.array(discrete_holm(ns, ps).adjusted)
    bonf = np.array(discrete_bonferroni(ns, ps).adjusted)
    assert np.all(disc <= holm_adjust(ps) + 1e-15)
    assert np.all(disc <= bonf + 1e-15) and np.all(disc >= ps - 1e-15)
    order = np.argsort(ps, kind="stable")
    assert np.all(np.diff(disc[order]) >= -1e-15)  # adjusted p-values keep the order of the raw ones
    # A smaller raw p (one more broke pair) never raises any adjusted p.
    j = int(np.argmax(ns))
    if ks[j] < ns[j]:
        ks2 = list(ks)
        ks2[j] += 1
        ps2 = np.array([upper_p(k, n) for k, n in zip(ks2, ns)])
        assert np.all(np.array(discrete_holm(ns, ps2).adjusted) <= disc + 1e-15)


def test_tarone_leaves_out_tests_that_cannot_reach_the_level():
    # Nine categories of 4 discordant pairs (floor 1/16) and one overall test of 60: only the overall counts.
    ns = [60] + [4] * 9
    ps = [upper_p(38, 60)] + [1.0] * 9
    result = tarone_bonferroni(ns, ps, ALPHA)
    assert result.counted == 1 and result.testable == (True,) + (False,) * 9
    assert result.rejected[0] == (ps[0] <= ALPHA)
    assert discrete_holm(ns, ps).adjusted[0] == pytest.approx(ps[0])  # no other test can reach ps[0]


def test_nine_small_categories_keep_the_overall_level():
    """The issue's family: the overall test and nine categories of about 44 cases at 5% churn (about two
    discordant pairs each): Holm divides the overall test's level by ten, the discrete step-down hardly at all."""
    ns = [22] + [2, 3, 1, 2, 4, 2, 3, 2, 3]
    ps = [upper_p(16, 22)] + [upper_p(n // 2, n) for n in ns[1:]]
    holm = holm_adjust(np.array(ps))
    disc = discrete_holm(ns, ps).adjusted
    assert ps[0] < ALPHA < holm[0]
    assert disc[0] <= ALPHA


def test_midp_sets_do_not_control_the_family_wise_error():
    """Why exact is the default: with mid-p attainable sets the step-down's enumerated FWER exceeds alpha."""
    ns = (1, 7, 8, 5)
    total = 0.0
    for ks in itertools.product(*(range(n + 1) for n in ns)):
        ps = [mcnemar_test(n - k, k).midp_regression for k, n in zip(ks, ns)]
        if any(discrete_holm(ns, ps, midp=True).rejected(ALPHA)):
            total += math.prod(math.comb(n, k) / 2**n for n, k in zip(ns, ks))
    assert total == pytest.approx(0.0726, abs=5e-4) and total > ALPHA


@pytest.mark.parametrize("seed", range(40))
def test_the_best_case_adjusted_p_is_the_full_step_downs_first(seed):
    from releasegate.stats.binomial import binom_half_sf_inclusive
    from releasegate.stats.discrete import discrete_best_case_adjusted, discrete_holm_mixed

    rng = np.random.default_rng(seed)
    m = int(rng.integers(1, 12))
    ns = rng.integers(0, 40, size=m)
    is_discrete = rng.random(m) < 0.7
    ps = np.array([binom_half_sf_inclusive(int(rng.integers(0, k + 1)), int(k)) if d else rng.random()
                   for k, d in zip(ns, is_discrete)])
    own = int(rng.integers(0, 30))
    full = discrete_holm_mixed(np.r_[own, ns], np.r_[2.0 ** -own if own else 1.0, ps], np.r_[True, is_discrete])
    assert discrete_best_case_adjusted(own, ns, ps, is_discrete) == full.adjusted[0]


def test_bad_input_is_refused():
    from releasegate.stats.discrete import discrete_holm_mixed

    # A negative count is refused by the attainable set itself (it would otherwise be empty) and by the
    # family's check, also for a member whose own set is never read (a continuous member of a mixed family).
    with pytest.raises(ValueError, match="cannot be negative"):
        attainable_pvalues(-1)
    with pytest.raises(ValueError, match="cannot be negative"):
        discrete_holm_mixed([-1, 3], [0.5, 0.125], [False, True])
    with pytest.raises(ValueError, match="2 discordant counts for 1 p-values"):
        discrete_holm([3, 4], [0.125])
    with pytest.raises(ValueError, match="1 discrete flags for 2 p-values"):
        discrete_holm_mixed([3, 4], [0.125, 0.5], [True])
    # Each of: not finite, below 0, above 1 (one bad member among good ones).
    for bad in (math.nan, -0.1, 1.5):
        with pytest.raises(ValueError, match=r"must lie in \[0, 1\]"):
            discrete_bonferroni([3, 4], [0.125, bad])


def _tarone_by_definition(ns, ps, alpha):
    """Tarone (1990) read off its definition: K the smallest k with at most k floors (2^-n) <= alpha / k;
    a test is counted when its floor is <= alpha / K and rejected when its p is too (both inclusive)."""
    floors = [2.0**-n if n else 1.0 for n in ns]
    k = next(k for k in range(1, len(ns) + 1) if sum(f <= alpha / k for f in floors) <= k)
    testable = tuple(f <= alpha / k for f in floors)
    return k, testable, tuple(t and p <= alpha / k for t, p in zip(testable, ps))


@pytest.mark.parametrize("seed", range(30))
def test_tarone_matches_its_definition_at_the_boundaries(seed):
    # Levels that are powers of two, so that floors and p-values fall exactly on alpha / K: the rule is <=.
    rng = np.random.default_rng(seed)
    m = int(rng.integers(1, 7))
    ns = [int(n) for n in rng.integers(0, 9, size=m)]
    ps = [upper_p(int(rng.integers(0, n + 1)), n) for n in ns]
    alpha = float(2.0 ** -rng.integers(1, 6))
    k, testable, rejected = _tarone_by_definition(ns, ps, alpha)
    result = tarone_bonferroni(ns, ps, alpha)
    assert (result.counted, result.testable, result.rejected) == (k, testable, rejected)
    # The Holm form: K recounted on the hypotheses not yet rejected, stepping through the p-values in order.
    remaining, stepped = sorted(range(m), key=lambda j: ps[j]), [False] * m
    while remaining:
        k_now = _tarone_by_definition([ns[j] for j in remaining], [ps[j] for j in remaining], alpha)[0]
        j = remaining[0]
        if not (2.0 ** -ns[j] if ns[j] else 1.0) <= alpha / k_now >= ps[j]:
            break
        stepped[j] = True
        remaining.pop(0)
    holm = tarone_holm(ns, ps, alpha)
    assert (holm.counted, holm.testable, holm.rejected) == (k, testable, tuple(stepped))


def test_tarone_counts_all_but_one():
    # Two tests that reach 2^-20 and one that cannot reach 0.05: K = 2 (at k = 1 two floors are below alpha).
    ns, ps = [20, 20, 2], [2.0**-20, 0.5, 1.0]
    assert _tarone_by_definition(ns, ps, 0.05)[0] == 2
    assert tarone_bonferroni(ns, ps, 0.05).counted == 2
    assert tarone_holm(ns, ps, 0.05).counted == 2
    # p exactly at alpha / K is rejected (Tarone's rule is p <= alpha / K).
    assert tarone_bonferroni([4], [1 / 16], 1 / 16).rejected == (True,)
    assert tarone_holm([4], [1 / 16], 1 / 16).rejected == (True,)
    assert tarone_holm([4], [1.0], 1 / 16).testable == (True,)  # a floor exactly at alpha / K counts


def test_the_best_case_of_one_pair():
    from releasegate.stats.discrete import discrete_best_case_adjusted

    # One discordant pair, broken: p = 1/2; alone in its family that is its adjusted p; no pair: 1.
    assert discrete_best_case_adjusted(1, [], [], []) == 0.5
    assert discrete_best_case_adjusted(0, [], [], []) == 1.0
    # Beside a continuous member at p = 0.2, stepped first: 0 + 0.2 (one pair cannot reach 0.2), then 1/2.
    assert discrete_best_case_adjusted(1, [0], [0.2], [False]) == 0.5
    # Beside one at p = 0.6, stepped after it: 1/2 + 1/2 (the continuous member read at t = 1/2).
    assert discrete_best_case_adjusted(1, [0], [0.6], [False]) == 1.0


def test_discrete_bonferroni_values_by_hand():
    # n = 3 attains 1/8, 1/2, 7/8, 1; n = 5 attains 1/32, 6/32, 16/32, ...: at p = 1/8 the sum is
    # F_3(1/8) + F_5(1/8) = 1/8 + 1/32, at p = 1/32 it is 0 + 1/32 (Bonferroni would give 1/4 and 1/16).
    result = discrete_bonferroni([3, 5], [0.125, 1 / 32])
    assert result.adjusted == (0.125 + 1 / 32, 1 / 32)
    assert result.rejected(1 / 32) == (False, True)
    # Large p-values: the sum passes 1 and is capped there.
    assert discrete_bonferroni([3, 3], [0.875, 1.0]).adjusted == (1.0, 1.0)


def test_large_attainable_sets_match_scipy():
    # Beyond the integer sums (n > 2000) the sets come from the saddle-point pmf: scipy's binomial tails, exact
    # and mid-p, compared where the values are not lost below the smallest double.
    from scipy.stats import binom

    n = 2501
    k = np.arange(n + 1)
    exact = binom.sf(k - 1, n, 0.5)
    midp = exact - binom.pmf(k, n, 0.5) / 2
    for got, want in ((attainable_pvalues(n), exact), (attainable_pvalues(n, midp=True), midp)):
        want = np.sort(want)
        seen = want > 1e-250
        np.testing.assert_allclose(got[seen], want[seen], rtol=1e-9)


def test_a_p_of_zero_or_one_is_a_p_value():
    from releasegate.stats.discrete import discrete_holm_mixed

    # A continuous member can give p = 0 (a paired t on constant differences): it is read, not refused.
    result = discrete_holm_mixed([0, 3], [0.0, 0.125], [False, True])
    assert result.adjusted == (0.0, 0.125)
    assert discrete_holm([3, 3], [1.0, 0.125]).adjusted == (1.0, 0.125 + 0.125)
