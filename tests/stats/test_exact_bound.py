"""The bound that inverts the exact McNemar test (stats/exact_bound.py) against scipy's and statsmodels'
Clopper-Pearson limits, and against the test itself by enumeration: the bound is below zero exactly when the
test's one-sided p is below its level."""

from __future__ import annotations

import math

import pytest
from scipy import special, stats
from statsmodels.stats.proportion import proportion_confint

from releasegate.stats.exact_bound import binomial_upper_tail, regression_bound, regularized_beta, share_lower_bound
from releasegate.stats.mcnemar import mcnemar_test


@pytest.mark.parametrize("a,b,x", [(1, 1, 0.3), (0.5, 3.5, 0.01), (6, 1, 0.61), (30, 70, 0.25), (30, 70, 0.4),
                                   (1200, 800, 0.59), (60_000, 40_000, 0.601), (5, 2000, 1e-3), (2, 2, 0.999)])
def test_the_incomplete_beta_is_scipys(a, b, x):
    assert regularized_beta(a, b, x) == pytest.approx(special.betainc(a, b, x), rel=1e-9, abs=1e-300)


@pytest.mark.parametrize("a,b,x", [(1, 100, 1e-12), (0.5, 3.5, 1e-20), (2, 50, 1e-9)])
def test_a_tiny_incomplete_beta_keeps_its_relative_precision(a, b, x):
    # Far below the mean the fraction must be read on I_x's own side: 1 - I_(1-x)(b, a) would lose every digit
    # of a value near 1e-10. One break among 100 at theta 1e-12 is 1 - (1 - theta)^100 in closed form.
    assert regularized_beta(a, b, x) == pytest.approx(special.betainc(a, b, x), rel=1e-9, abs=0)
    closed = -math.expm1(100 * math.log1p(-1e-12))
    assert binomial_upper_tail(1, 100, 1e-12) == pytest.approx(closed, rel=1e-9, abs=0)


@pytest.mark.parametrize("a,b", [(2, 3), (0.5, 7)])
def test_the_incomplete_beta_at_the_ends_of_its_range_is_scipys(a, b):
    # I_0 = 0 and I_1 = 1 (an integral over an empty range, and the whole Beta density); the logarithms of 0
    # that the general formula would take are never reached.
    assert regularized_beta(a, b, 0.0) == special.betainc(a, b, 0.0) == 0.0
    assert regularized_beta(a, b, 1.0) == special.betainc(a, b, 1.0) == 1.0
    assert binomial_upper_tail(2, 5, 0.0) == stats.binom.sf(1, 5, 0.0) == 0.0
    assert binomial_upper_tail(2, 5, 1.0) == stats.binom.sf(1, 5, 1.0) == 1.0


@pytest.mark.parametrize("k,n,theta", [(6, 6, 0.5), (3, 10, 0.2), (40, 100, 0.5), (0, 5, 0.3), (6, 5, 0.5)])
def test_the_binomial_tail_is_scipys(k, n, theta):
    assert binomial_upper_tail(k, n, theta) == pytest.approx(stats.binom.sf(k - 1, n, theta), rel=1e-10)


@pytest.mark.parametrize("broke,changed", [(1, 1), (6, 6), (4, 4), (9, 11), (14, 15), (30, 80), (1, 40),
                                           (5_000, 9_000), (52_000, 100_000)])
@pytest.mark.parametrize("confidence", [0.9, 0.95, 0.975])
def test_the_share_bound_is_clopper_pearson(broke, changed, confidence):
    scipy_low = stats.beta.ppf(1 - confidence, broke, changed - broke + 1)
    # statsmodels' two-sided "beta" interval at 1 - 2(1 - confidence) has the one-sided bound as its low end.
    statsmodels_low = proportion_confint(broke, changed, alpha=2 * (1 - confidence), method="beta")[0]
    assert share_lower_bound(broke, changed, confidence) == pytest.approx(scipy_low, rel=1e-9)
    assert share_lower_bound(broke, changed, confidence) == pytest.approx(statsmodels_low, rel=1e-9)


def test_the_lessons_fraud_bound():
    """r2's Fraud: 6 broke, none fixed, of 50 cases. theta_low = 0.05^(1/6) = 0.6070 in closed form (all six
    changes broke), so the difference is at most 0.12 (1 - 2 x 0.6070) = -2.57 points."""
    b = regression_bound(6, 0, 50, 0.95)
    assert b.share_low == pytest.approx(0.05 ** (1 / 6), rel=1e-10)
    assert b.bound == pytest.approx(0.12 * (1 - 2 * 0.05 ** (1 / 6)), rel=1e-9)


def test_the_bound_and_the_test_never_disagree():
    """Every table of up to 40 changed cases: the bound is below zero exactly when the exact one-sided McNemar
    p is below the level, at three levels."""
    for confidence in (0.9, 0.95, 0.99):
        level = 1 - confidence
        for changed in range(1, 41):
            for broke in range(changed + 1):
                p = mcnemar_test(changed - broke, broke).p_regression
                if abs(p - level) < 1e-9:
                    continue  # the boundary itself: both are at equality
                bound = regression_bound(broke, changed - broke, 100, confidence).bound
                assert (bound < 0) == (p < level), (broke, changed, confidence, p, bound)


def test_the_bound_is_above_the_estimate_and_tightens_with_less_confidence():
    for broke, fixed, cases in [(6, 0, 50), (9, 2, 100), (20, 15, 400)]:
        estimate = (fixed - broke) / cases
        bounds = [regression_bound(broke, fixed, cases, c).bound for c in (0.8, 0.9, 0.95, 0.99)]
        assert all(estimate <= x for x in bounds) and bounds == sorted(bounds)


def test_nothing_changed_bounds_at_zero_and_bad_counts_are_refused():
    none = regression_bound(0, 0, 30, 0.95)
    assert none.bound == 0.0 and math.isnan(none.share_low)
    assert regression_bound(0, 5, 30, 0.95).bound == pytest.approx(5 / 30)  # nothing broke: theta_low = 0
    with pytest.raises(ValueError):
        regression_bound(5, 5, 8, 0.95)
    with pytest.raises(ValueError):
        regression_bound(1, 0, 8, 1.0)
    with pytest.raises(ValueError):
        regression_bound(1, 0, 8, 0.0)


def test_every_case_changed_is_a_table():
    """6 broke of 6 cases (every case changed, psi = 1): theta_low = 0.05^(1/6) in closed form, as in the lesson's
    Fraud, and the bound is 1 - 2 theta_low."""
    b = regression_bound(6, 0, 6, 0.95)
    assert b.bound == pytest.approx(1 - 2 * 0.05 ** (1 / 6), rel=1e-9)


def test_a_tiny_share_bound_keeps_its_relative_precision():
    """One break among 10^5 changes: P(X >= 1) = 1 - (1 - theta)^n = a gives theta_low = 1 - (1 - a)^(1/n) in
    closed form, about 1e-7 at a = 0.01; the bisection's width is relative to it, not 1e-12 absolute (and so is
    the check: pytest.approx would otherwise allow 1e-12 absolute)."""
    closed = -math.expm1(math.log1p(-0.01) / 100_000)
    assert share_lower_bound(1, 100_000, 0.99) == pytest.approx(closed, rel=1e-9, abs=0)
