"""The pure-Python normal and Student t functions against scipy (Boost's Student t, cephes/xsf normal), exact
closed forms and their own inverses.

Tolerance 1e-12 relative everywhere, including tails down to 1e-300. The implementation's own error is below
2e-13 (checked against 40-digit mpmath during development): in the far tails of large df, P(T > t) is about
exp(-t^2 / 2), so rounding t^2 / df costs t^2 * eps ~ 1e-13 at t = 37 in any double-precision method.
"""

from __future__ import annotations

import itertools
import math
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import special

from releasegate.stats.distributions import (
    normal_cdf,
    normal_quantile,
    normal_sf,
    t_cdf,
    t_quantile,
    t_sf,
)

RTOL = 1e-12
DFS = (1, 1.5, 2, 3, 4.4544, 7.3, 10, 30, 100, 1e3, 1e5, 1e7, math.inf)
TS = tuple(s * t for t in (0.0, 1e-8, 0.5, 2.0, 10.0, 1e3, 1e8) for s in (1, -1))
PS = (1e-300, 1e-12, 1e-4, 0.025, 0.05, 0.3, 0.5, 0.95, 0.975, 1 - 1e-12)


def _close(got: float, want: float, rtol: float = RTOL) -> bool:
    return got == want or abs(got - want) <= rtol * abs(want)


def _cauchy_cdf(t: float) -> float:
    """Exact for df = 1, each tail from the arctangent of the small argument so nothing cancels."""
    if abs(t) <= 1.0:
        return 0.5 + math.atan(t) / math.pi
    tail = math.atan(1.0 / abs(t)) / math.pi
    return tail if t < 0 else 1.0 - tail


@pytest.mark.parametrize("df", DFS)
@pytest.mark.parametrize("t", TS)
def test_t_cdf_and_sf_match_scipy(df, t):
    if df == 1:
        # scipy's stdtr(1, 1e-8) is off by 3e-9 relative; the Cauchy distribution has a closed form.
        cdf, sf = _cauchy_cdf(t), _cauchy_cdf(-t)
    else:
        cdf, sf = float(special.stdtr(df, t)), float(special.stdtr(df, -t))
    assert _close(t_cdf(t, df), cdf), (t_cdf(t, df), cdf)
    assert _close(t_sf(t, df), sf), (t_sf(t, df), sf)


@pytest.mark.parametrize("df", DFS)
@pytest.mark.parametrize("p", PS)
def test_t_quantile_matches_scipy_and_inverts_the_cdf(df, p):
    q = t_quantile(p, df)
    if p < 0.5:
        assert _close(t_cdf(q, df), p), (q, t_cdf(q, df))
    else:  # the upper tail holds the information when p is near 1 (and 1 - p is exact)
        assert _close(t_sf(q, df), 1.0 - p), (q, t_sf(q, df))
    reference = float(special.stdtrit(df, p))
    if p == 1e-300 and df < 30 and df not in (1, 2):
        # scipy squares t, which overflows here: it returns inf or a wrong finite value. The round trip above
        # and the power tail below check these points.
        assert math.isinf(reference) or not _close(reference, q)
        return
    assert _close(q, reference), (q, reference)


@pytest.mark.parametrize("df", (1.5, 3, 4.4544, 7.3, 10))
def test_t_quantile_far_tail_follows_the_power_law(df):
    """P(T < t) ~ C |t|^-df this far out (where scipy fails): 1e10 times smaller p moves t by 10^(10/df)."""
    q1, q2 = t_quantile(1e-290, df), t_quantile(1e-300, df)
    assert _close(q2 / q1, 10.0 ** (10.0 / df))


@pytest.mark.parametrize("df", (1, 2))
@pytest.mark.parametrize("d", (1e-12, 1e-8, 1e-4, 0.01, 0.1, 0.2, 0.3, 0.45))
def test_closed_form_quantiles_keep_full_precision_near_the_centre(df, d):
    """Near p = 1/2 the quantile is about (p - 1/2) / f(0), and p - 1/2 is exact in floats: the closed forms of
    df = 1 and 2 keep all of its digits (scipy's stdtrit is 1e-5 off at p = 1/2 + 1e-12, so it is no reference
    here). Reference: each distribution's own closed form of P(T <= t) - 1/2 at the returned t, atan(t) / pi
    (Cauchy) and t / (2 sqrt(2 + t^2)), against p - 1/2."""
    for p in (0.5 + d, 0.5 - d):
        t = t_quantile(p, df)
        half = math.atan(t) / math.pi if df == 1 else t / (2.0 * math.sqrt(2.0 + t * t))
        assert _close(half, p - 0.5), (p, t, half, p - 0.5)


@pytest.mark.parametrize("df", (0.1, 0.5, 1, 1.5, 2, 4.4544, 30, 1e5, 1e9))
def test_quantile_is_odd_and_monotone(df):
    ps = [2.0**-k for k in (1000, 200, 40, 20, 7, 3, 2)] + [0.3, 0.45, 0.499]
    qs = [t_quantile(p, df) for p in ps]
    assert all(a < b or a == b == -math.inf for a, b in itertools.pairwise(qs)) and qs[-1] < 0.0
    for p, q in zip(ps, qs):
        if 1.0 - (1.0 - p) == p:  # 1 - p exact: the upper quantile is the mirror image
            assert t_quantile(1.0 - p, df) == -q


def _switch_points(df: float) -> list[float]:
    """t on the boundaries between the three methods of the t tail: centre continued fraction, tail continued
    fraction, large-a expansion (y = t^2 / (df + t^2) = 1.5 / (df/2 + 2.5) and y = 0.3)."""
    points = []
    for y in (1.5 / (0.5 * df + 2.5), 0.3):
        if y < 1.0:
            points.append(math.sqrt(df * y / (1.0 - y)))
    return points


@pytest.mark.parametrize("df", (0.7, 4.4544, 29.999999, 30.0, 30.000001, 57.0, 1e4, 1e8))
def test_cdf_is_continuous_and_monotone_across_method_switches(df):
    for t in _switch_points(df):
        ts = [t * (1.0 + k * 1e-10) for k in range(-3, 4)]
        values = [t_sf(x, df) for x in ts]
        assert all(a >= b for a, b in itertools.pairwise(values)), values
        assert all(_close(v, float(special.stdtr(df, -x))) for x, v in zip(ts, values))
    # and across the a = 15 boundary in df at fixed t
    assert _close(t_sf(3.0, 29.999999999), t_sf(3.0, 30.0), rtol=1e-9)


@settings(max_examples=300, deadline=None)
@given(df=st.floats(0.05, 1e12), t1=st.floats(-1e12, 1e12), t2=st.floats(-1e12, 1e12))
def test_cdf_properties(df, t1, t2):
    lo, hi = sorted((t1, t2))
    a, b = t_cdf(lo, df), t_cdf(hi, df)
    assert 0.0 <= a <= b <= 1.0
    assert abs(t_cdf(lo, df) + t_cdf(-lo, df) - 1.0) <= 2.3e-16


@settings(max_examples=300, deadline=None)
@given(df=st.floats(0.2, 1e12), p=st.floats(1e-300, 0.4999999))
def test_quantile_round_trip(df, p):
    q = t_quantile(p, df)
    if q == -math.inf:  # only when even the largest float is not far enough out
        assert t_cdf(-sys.float_info.max, df) > p
        return
    assert _close(t_cdf(q, df), p)
    assert _close(t_sf(-q, df), p)


@pytest.mark.parametrize("df", (0.05, 0.1, 0.2, 0.5, 0.9))
def test_quantile_at_the_largest_float(df):
    """Below df = 1 the tail beyond the largest float is still above 1e-300. At that tail and just inside it the
    quantile is finite and inverts the cdf; just beyond it the quantile is -inf (the largest float is not far
    enough out), never an error from Newton's method stepping against the cap."""
    edge = t_cdf(-sys.float_info.max, df)
    assert edge > 0.0
    for p in (edge, edge * (1.0 + 1e-6), edge * 1.01):
        q = t_quantile(p, df)
        assert math.isfinite(q) and _close(t_cdf(q, df), p), (p, q)
    for p in (edge * (1.0 - 1e-6), edge * 0.99, edge * 0.5):
        assert t_quantile(p, df) == -math.inf


@pytest.mark.parametrize("df", (1e30, 1e300))
def test_huge_df_is_the_normal(df):
    """The tails differ from the normal by a factor of about 1 + t^4 / (4 df): below 1e-12 only past df 1e20."""
    for t in (-37.0, -10.0, -1.0, 0.3, 5.0):
        assert _close(t_cdf(t, df), normal_cdf(t))
    for p in (1e-300, 0.025, 0.975):
        assert _close(t_quantile(p, df), normal_quantile(p))


def test_edges():
    assert t_quantile(0.0, 3.0) == -math.inf and t_quantile(1.0, 3.0) == math.inf
    assert t_quantile(0.5, 3.0) == 0.0 and t_cdf(0.0, 0.3) == 0.5
    assert t_cdf(-math.inf, 2.5) == 0.0 and t_cdf(math.inf, 2.5) == 1.0
    assert math.isnan(t_cdf(math.nan, 3.0)) and math.isnan(t_quantile(math.nan, 3.0))
    assert t_quantile(1e-300, 0.1) == -math.inf  # about -1e3000, beyond the largest float
    assert t_sf(1e300, 0.5) > 0.0  # the far tail comes from logarithms: no overflow of t^2
    for bad in (0.0, -1.0, math.nan):
        with pytest.raises(ValueError, match="degrees of freedom"):
            t_cdf(1.0, bad)
        with pytest.raises(ValueError, match="degrees of freedom"):
            t_quantile(0.3, bad)
    for bad in (-0.1, 1.5):
        with pytest.raises(ValueError, match="probability"):
            t_quantile(bad, 3.0)
        with pytest.raises(ValueError, match="probability"):
            normal_quantile(bad)


@pytest.mark.parametrize("z", (-37.5, -10.0, -1.0, -0.5, -1e-8, 0.0, 1e-8, 0.7, 3.0, 9.0))
def test_normal_cdf_matches_scipy(z):
    assert _close(normal_cdf(z), float(special.ndtr(z)))
    assert _close(normal_sf(z), float(special.ndtr(-z)))


@pytest.mark.parametrize("df", DFS)
def test_t_cdf_at_one_matches_scipy(df):
    # t = 1 (not in TS): Cauchy's P(T <= 1) is 3/4 exactly
    assert _close(t_cdf(1.0, df), float(special.stdtr(df, 1.0)))
    assert _close(t_cdf(-1.0, df), float(special.stdtr(df, -1.0)))
    if df == 1:
        assert _close(t_cdf(1.0, df), 0.75)


@pytest.mark.parametrize("x", (0.0, 1.0, 25.5, 26.0, 26.5, 26.7, 26.9, 27.5, 40.0, 1e5))
def test_scaled_erfc_matches_scipy_across_its_switch(x):
    # exp(x^2) overflows just above x = 26.64 and erfc underflows soon after: the asymptotic series takes over
    # at 26, which the far t tails (about 1e-300 and below, large df) reach through the incomplete beta expansion
    from releasegate.stats.distributions import _erfcx

    assert _close(_erfcx(x), float(special.erfcx(x)), rtol=1e-13)


def test_normal_quantile_at_its_ends_and_nan_is_scipys():
    # ndtri(0) = -inf, ndtri(1) = inf, ndtri(nan) = nan: the ends are answers, not refusals
    for p in (0.0, 1.0):
        assert normal_quantile(p) == float(special.ndtri(p)) == (math.inf if p else -math.inf)
    assert math.isnan(normal_quantile(math.nan)) and math.isnan(float(special.ndtri(math.nan)))


@pytest.mark.parametrize("p", (*PS, 5e-324, 1e-100))
def test_normal_quantile_matches_scipy(p):
    assert _close(normal_quantile(p), float(special.ndtri(p)), rtol=1e-14)


@pytest.mark.parametrize("df", (0.05, 0.3, 0.9, 1.5, 3, 10))
@pytest.mark.parametrize("q", (1e-300, 1e-40, 1e-6, 1e-3, 0.05, 0.2, 0.45, 0.4999))
def test_power_tail_start_lies_at_or_above_the_quantile(df, q):
    """Outside Cornish-Fisher's range the start is the root of the power tail's leading term, which bounds
    P(T > t) from above (the density lies below its power law): the start is never below the quantile, scipy's."""
    from releasegate.stats.distributions import _t_start

    z = -normal_quantile(q)
    if df >= 1.0 and z * z < df:
        return  # Cornish-Fisher's start, not the power tail's
    start, quantile = _t_start(q, df), -float(special.stdtrit(df, q))
    assert start >= quantile * (1.0 - 1e-12) or not math.isfinite(quantile), (start, quantile)
