"""The pure-Python Bin(n, 1/2) tails against scipy (Boost's binomial, cephes' chdtrc) and exact fractions."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import special, stats

from releasegate.stats.binomial import (
    EXACT_MAX_N,
    binom_half_cdf,
    binom_half_pmf,
    binom_half_pmf_all,
    binom_half_sf_inclusive,
    chi2_1df_sf,
)

# Around the middle, in the far tails and at both ends, on both sides of the exact/saddle-point switch.
SIZES = (1, 2, 3, 10, 17, 100, EXACT_MAX_N - 1, EXACT_MAX_N, EXACT_MAX_N + 1, 2500, 10_000, 65_432, 100_400,
         1_000_000)


def _ks(n: int) -> list[int]:
    root = int(math.sqrt(n))
    ks = {0, 1, 2, n // 3, n // 2 - 1, n // 2, n // 2 + 1, n - 1, n, n // 2 - 3 * root, n // 2 + 2 * root}
    return sorted(k for k in ks if 0 <= k <= n)


GRID = [(k, n) for n in SIZES for k in _ks(n)]


@pytest.mark.parametrize("k,n", GRID)
def test_tails_match_boost(k, n):
    cdf, pmf, sf = stats.binom.cdf(k, n, 0.5), stats.binom.pmf(k, n, 0.5), stats.binom.sf(k - 1, n, 0.5)
    assert binom_half_cdf(k, n) == pytest.approx(cdf, rel=1e-12, abs=1e-300)
    assert binom_half_pmf(k, n) == pytest.approx(pmf, rel=1e-12, abs=1e-300)
    assert binom_half_sf_inclusive(k, n) == pytest.approx(sf, rel=1e-12, abs=1e-300)


@settings(max_examples=300, derandomize=True, deadline=None)
@given(st.integers(1, 300_000), st.floats(0.0, 1.0))
def test_cdf_matches_scipy_everywhere(n, where):
    k = int(where * n)
    expected = float(stats.binom.cdf(k, n, 0.5))
    if expected == 0.0 and n <= 5000:
        # scipy underflows to 0 in the far tail (n = 1075, k = 33: the true value is about 2e-261); the exact
        # fraction says what the answer is.
        expected = float(sum(Fraction(math.comb(n, i), 2**n) for i in range(k + 1)))
    assert binom_half_cdf(k, n) == pytest.approx(expected, rel=1e-11, abs=1e-300)


@settings(max_examples=100, derandomize=True, deadline=None)
@given(st.integers(1, 300), st.data())
def test_small_n_is_exact(n, data):
    k = data.draw(st.integers(0, n))
    exact = sum(Fraction(math.comb(n, i), 2**n) for i in range(k + 1))
    assert binom_half_cdf(k, n) == float(exact)
    assert binom_half_pmf(k, n) == float(Fraction(math.comb(n, k), 2**n))


def test_out_of_range():
    assert binom_half_cdf(-1, 5) == 0.0 and binom_half_cdf(5, 5) == 1.0 and binom_half_cdf(9, 5) == 1.0
    assert binom_half_pmf(-1, 5) == 0.0 and binom_half_pmf(6, 5) == 0.0
    assert binom_half_sf_inclusive(0, 5) == 1.0 and binom_half_sf_inclusive(6, 5) == 0.0


@pytest.mark.parametrize("x", [0.0, 1e-12, 0.5, 1.0, 2.0, 3.841458820694124, 10.0, 50.0, 200.0, 1400.0])
def test_chi2_matches_chdtrc(x):
    assert chi2_1df_sf(x) == pytest.approx(float(special.chdtrc(1, x)), rel=1e-13, abs=1e-300)


@pytest.mark.parametrize("x", [-1e-300, -1.0, -math.inf])
def test_chi2_below_its_support_is_one(x):
    """A chi-square variable is never negative, so P(X > x) = 1 for x < 0 (scipy.stats.chi2.sf; special.chdtrc
    answers NaN there)."""
    assert chi2_1df_sf(x) == float(stats.chi2.sf(x, 1)) == 1.0


@pytest.mark.parametrize("n", [2001, 2500, 9_999, 50_000])
def test_the_whole_range_at_once_matches_scipy_and_the_scalar_form(n):
    import numpy as np

    whole = binom_half_pmf_all(n)
    k = np.arange(n + 1)
    reference = stats.binom.pmf(k, n, 0.5)  # boost's ibeta_derivative: an independent computation
    shown = reference > 1e-300  # the far tails are subnormal or underflow to 0, in both
    assert np.all(whole[~shown] < 1e-290)
    # exp of a log near -700 carries its rounding into the relative error of the far tails
    np.testing.assert_allclose(whole[shown], reference[shown], rtol=1e-11)
    bulk = reference > 1e-100
    np.testing.assert_allclose(whole[bulk], reference[bulk], rtol=1e-12)
    picks = np.unique(np.linspace(0, n, 41).astype(int))
    np.testing.assert_allclose(whole[picks], [binom_half_pmf(int(j), n) for j in picks], rtol=1e-12)
    assert abs(whole.sum() - 1.0) < 1e-12


@pytest.mark.parametrize("n", [1, 2, 3, 17, 40, 100, 500])
def test_the_whole_range_at_once_matches_scipy_for_small_n_too(n):
    """binom_half_pmf_all is documented for any n > 0; below the exact switch the counts 16..30, whose
    Stirling series terms are largest, still have probabilities far from underflow. Reference: Boost's pmf."""
    import numpy as np

    np.testing.assert_allclose(binom_half_pmf_all(n), stats.binom.pmf(np.arange(n + 1), n, 0.5), rtol=1e-12)
