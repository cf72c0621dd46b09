"""Issue 15, item 13: welch_t_test at extreme scales (it overflowed at |x| ~ 1e150 and divided by zero at
~1e-160). t, df and p do not depend on the unit; the interval scales with it.

Reference: scipy.stats.ttest_ind(b, a, equal_var=False) on the unscaled samples below (scipy 1.17.1):
t = 1.4976677603213118, df = 6.898369401896859, p = 0.17850885065223354,
95% interval [-0.8608080556045672, 3.8108080556045665].
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from releasegate.stats.continuous import welch_t_test

A = np.array([1.0, 2.0, 4.0, 3.5])
B = np.array([2.0, 3.1, 5.0, 4.4, 6.0])
T, DF, P = 1.4976677603213118, 6.898369401896859, 0.17850885065223354
LOW, HIGH = -0.8608080556045672, 3.8108080556045665


@pytest.mark.parametrize("unit", [1.0, 1e150, 1e-80, 1e-160, 1e300, 1e-300])
def test_welch_is_unit_free(unit):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow, underflow or division warning either
        result = welch_t_test(A * unit, B * unit)
    assert result.defined
    assert result.t == pytest.approx(T, rel=1e-12)
    assert result.df == pytest.approx(DF, rel=1e-12)
    assert result.p_two_sided == pytest.approx(P, rel=1e-10)
    assert result.low / unit == pytest.approx(LOW, rel=1e-12)
    assert result.high / unit == pytest.approx(HIGH, rel=1e-12)
    assert math.isfinite(result.se) and result.se > 0


def test_welch_sign_flips_with_the_samples():
    forward, backward = welch_t_test(A * 1e150, B * 1e150), welch_t_test(B * 1e150, A * 1e150)
    assert backward.t == pytest.approx(-forward.t, rel=1e-12)
    assert backward.p_regression == pytest.approx(forward.p_improvement, rel=1e-12)


@pytest.mark.parametrize("unit", [1e-170, 1e-200])
def test_a_varying_sample_whose_variance_underflows_is_not_taken_for_a_constant_one(unit):
    """One sample varies at ~1e-170 (its variance underflows to 0), the other is constant: the test is the
    one-sample t of the varying one against the constant (Welch's df is then n - 1), not the both-constant
    degenerate case (p 0, a zero-width interval). Reference: scipy.stats.ttest_1samp in units of `unit`."""
    from scipy import stats

    varying, constant = np.array([1.0, 2.0, 4.0, 3.5]), np.array([2.0, 2.0, 2.0])
    want = stats.ttest_1samp(varying, 2.0)
    for base, cand, sign in ((varying, constant, -1.0), (constant, varying, 1.0)):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            got = welch_t_test(base * unit, cand * unit)
        assert got.defined and got.se > 0
        assert got.t == pytest.approx(sign * want.statistic, rel=1e-12)
        assert got.df == pytest.approx(3.0, rel=1e-12)
        assert got.p_two_sided == pytest.approx(want.pvalue, rel=1e-10)


def test_samples_of_very_different_size_are_rescaled_by_the_larger():
    """One sample at 1e200 (its squares overflow), the other at 1: in units of the larger the small one's
    variance is nothing beside it, so the test is the one-sample t of the large sample (df n - 1). Reference:
    scipy.stats.ttest_1samp on the large sample in units of 1e200, its interval negated for candidate - baseline."""
    from scipy import stats

    large, small = np.array([1.0, 2.0, 4.0]), np.array([1.0, 2.0, 3.0])
    want = stats.ttest_1samp(large, 0.0)
    ci = want.confidence_interval(0.95)
    for base, cand, sign in ((large * 1e200, small, -1.0), (small, large * 1e200, 1.0)):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            got = welch_t_test(base, cand)
        assert got.t == pytest.approx(sign * want.statistic, rel=1e-12)
        assert got.df == pytest.approx(2.0, rel=1e-12)
        assert got.p_two_sided == pytest.approx(want.pvalue, rel=1e-10)
        low, high = (-ci.high, -ci.low) if sign < 0 else (ci.low, ci.high)
        assert got.low / 1e200 == pytest.approx(low, rel=1e-12)
        assert got.high / 1e200 == pytest.approx(high, rel=1e-12)


def test_a_difference_near_the_top_of_the_floats_with_an_ordinary_spread_keeps_its_spread():
    """Baseline constant at 1e300, candidate varying at 1e10: diff * se is beyond the floats but t = diff / se
    is not, so nothing needs rescaling (which would lose the candidate's spread to underflow and call both
    samples constant). Reference: scipy.stats.ttest_1samp(candidate, 1e300), df n - 1."""
    from scipy import stats

    base, cand = np.full(3, 1e300), np.array([1e10, 2e10, 4e10])
    want = stats.ttest_1samp(cand, 1e300)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = welch_t_test(base, cand)
    assert got.t == pytest.approx(want.statistic, rel=1e-12) and got.df == 2.0
    assert got.se == pytest.approx(np.std(cand, ddof=1) / math.sqrt(3), rel=1e-12)
    assert got.p_two_sided == want.pvalue == 0.0
