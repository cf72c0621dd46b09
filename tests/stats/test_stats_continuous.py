"""Tests for releasegate.stats.continuous: paired t, sign flip, Welch, Hodges-Lehmann."""

from __future__ import annotations

import ast
import itertools
import math
import time
from pathlib import Path

import numpy as np
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st

from releasegate.stats import continuous
from releasegate.stats.continuous import hodges_lehmann, paired_t_test, signflip_test, welch_t_test

# stat-vectors.json, continuous_paired: base / cand / d_cand_minus_base
BASE = np.array(
    [0.7126, 0.6868, 0.764, 0.7105, 0.6464, 0.7362, 0.8304, 0.7947, 0.6296, 0.5735, 0.6377, 0.7041]
)
CAND = np.array(
    [0.5663, 0.6459, 0.6717, 0.6439, 0.5892, 0.6904, 0.821, 0.8168, 0.5932, 0.6118, 0.5744, 0.6917]
)
D = np.array(
    [-0.1463, -0.0409, -0.0923, -0.0666, -0.0572, -0.0458, -0.0094, 0.0221, -0.0364, 0.0383, -0.0633, -0.0124]
)

SETTINGS = settings(max_examples=50, derandomize=True, deadline=None)
values = st.floats(-1.0, 1.0, allow_nan=False, allow_infinity=False, allow_subnormal=False)
# Rounded values produce ties and zeros, the hard cases of the sign-flip enumeration.
rounded = st.integers(-20, 20).map(lambda k: k / 10.0)
samples = st.lists(st.one_of(values, rounded), min_size=0, max_size=25)


def _rel(a: float, b: float, tol: float = 1e-9) -> bool:
    return math.isclose(a, b, rel_tol=tol, abs_tol=0.0)


# ------------------------------------------------------------------------------------------ reference vectors


def test_vectors_d_is_cand_minus_base():
    np.testing.assert_allclose(CAND - BASE, D, atol=1e-12)


def test_paired_t_matches_vectors():
    r = paired_t_test(D)
    # continuous_paired: mean_d, sd_d, paired_t.{t, df, p_two_sided, ci95}
    assert _rel(r.mean, -0.042516666666666654)
    assert _rel(r.sd, 0.049761336457742035)
    assert _rel(r.t, -2.9597688517740552)
    assert r.df == 11
    assert _rel(r.p_two_sided, 0.012980651512273214)
    assert _rel(r.low, -0.07413351145297699)
    assert _rel(r.high, -0.010899821880356361)
    assert r.n == 12 and r.defined
    assert _rel(r.p_regression, r.p_two_sided / 2)
    assert _rel(r.p_regression + r.p_improvement, 1.0)


def test_paired_t_noninferiority_shift_matches_vectors():
    # continuous_paired.noninferiority_paired_t_margin_0.05: t and one-sided p of H0 mean <= -0.05
    r = paired_t_test(D + 0.05)
    assert _rel(r.t, 0.5209471636403594, 1e-9)
    assert _rel(r.p_regression, 1 - 0.30636466010347285, 1e-9)
    assert _rel(r.p_improvement, 0.30636466010347285, 1e-9)


def test_paired_t_other_confidence_matches_scipy():
    res = scipy.stats.ttest_rel(CAND, BASE)
    ci = res.confidence_interval(0.9)
    r = paired_t_test(D, confidence=0.9)
    assert _rel(r.low, ci.low, 1e-8) and _rel(r.high, ci.high, 1e-8)


def test_signflip_exact_matches_vectors():
    r = signflip_test(D)
    # continuous_paired.signflip_exact_p_two_sided (= scipy_permutation_test_p)
    assert r.p_two_sided == 0.01220703125
    assert r.exact and r.n_resamples == 2**12 and r.n == 12


def test_signflip_one_sided_matches_scipy_permutation_test():
    for alt, field in (("less", "p_regression"), ("greater", "p_improvement")):
        ref = scipy.stats.permutation_test(
            (D,), np.mean, permutation_type="samples", alternative=alt, n_resamples=np.inf
        ).pvalue
        assert _rel(getattr(signflip_test(D), field), ref, 1e-12)


def test_signflip_monte_carlo_close_to_exact():
    r = signflip_test(D, exact_max_n=5, n_resamples=40_000, seed=3)
    assert not r.exact and r.n_resamples == 40_000
    # Binomial MC error of p ~ 0.012 with B = 40,000 is about 0.00055
    assert abs(r.p_two_sided - 0.01220703125) < 0.003
    assert abs(r.p_regression - 0.006103515625) < 0.002


def test_hodges_lehmann_matches_vectors():
    # continuous_paired.hodges_lehmann_median_walsh
    assert math.isclose(hodges_lehmann(D), -0.040999999999999995, abs_tol=1e-12)


# ------------------------------------------------------------------------------------------ edge cases


def test_paired_t_small_n_is_undefined():
    r1 = paired_t_test([0.3])
    assert not r1.defined and r1.n == 1 and r1.mean == 0.3 and math.isnan(r1.p_two_sided) and math.isnan(r1.low)
    r0 = paired_t_test([])
    assert not r0.defined and r0.n == 0 and math.isnan(r0.mean)
    # n - 1 degrees of freedom, never below 0: one case has none, and so has no case.
    assert r1.df == 0 and r0.df == 0


def test_paired_t_all_zero():
    r = paired_t_test(np.zeros(7))
    assert r.defined and r.sd == 0.0 and r.t == 0.0
    assert r.p_two_sided == r.p_regression == r.p_improvement == 1.0
    assert r.low == r.high == 0.0


@pytest.mark.parametrize("value", [-0.1, 0.1])
def test_paired_t_constant_nonzero(value):
    r = paired_t_test(np.full(9, value))
    assert r.mean == value and r.sd == 0.0 and r.p_two_sided == 0.0
    assert r.low == r.high == value
    assert (r.p_regression, r.p_improvement) == ((0.0, 1.0) if value < 0 else (1.0, 0.0))
    assert math.isinf(r.t) and math.copysign(1, r.t) == math.copysign(1, value)


def test_bad_inputs_raise():
    with pytest.raises(ValueError, match="NaN"):
        paired_t_test([0.1, math.nan])
    with pytest.raises(ValueError, match="one-dimensional"):
        signflip_test(np.zeros((2, 2)))
    with pytest.raises(ValueError, match="confidence"):
        paired_t_test(D, confidence=95)
    with pytest.raises(ValueError, match="n_resamples"):
        signflip_test(np.arange(30.0), n_resamples=0)


def test_signflip_all_zero_and_empty():
    for d in (np.zeros(5), np.zeros(40), np.array([])):
        r = signflip_test(d)
        assert r.p_two_sided == r.p_regression == r.p_improvement == 1.0 and r.exact


def test_signflip_zeros_kept_and_do_not_change_p():
    with_zeros = np.concatenate([D, np.zeros(15)])
    r = signflip_test(with_zeros)
    assert r.n == 27 and r.exact  # 12 non-zero values: still enumerated exactly
    assert r.p_two_sided == signflip_test(D).p_two_sided
    assert r.n_resamples == 2**12


def test_signflip_exact_equals_brute_force_with_zeros_and_ties():
    d = np.array([0.2, -0.2, 0.0, 0.5, -0.1, 0.1, 0.3, 0.0, -0.4])
    obs = d.sum()
    sums = np.array([np.dot(s, d) for s in itertools.product((-1.0, 1.0), repeat=d.size)])
    tol = 1e-9
    r = signflip_test(d)
    assert r.p_two_sided == pytest.approx(np.mean(np.abs(sums) >= abs(obs) - tol), abs=1e-15)
    assert r.p_regression == pytest.approx(np.mean(sums <= obs + tol), abs=1e-15)
    assert r.p_improvement == pytest.approx(np.mean(sums >= obs - tol), abs=1e-15)


def test_signflip_exact_agrees_with_scipy_n16():
    d = np.random.default_rng(4).normal(-0.3, 1.0, 16)
    ref = scipy.stats.permutation_test((d,), np.sum, permutation_type="samples", n_resamples=np.inf).pvalue
    assert signflip_test(d).p_two_sided == pytest.approx(ref, abs=1e-12)


def test_signflip_defaults_are_the_documented_ones():
    # docs/methods.md: every sign assignment enumerated up to 20 non-zero differences, else 10,000 draws.
    d = np.random.default_rng(5).normal(-0.2, 1.0, 21)
    r = signflip_test(d)
    assert not r.exact and r.n_resamples == 10_000
    assert signflip_test(d[:20]).exact


def test_signflip_exact_n20_is_fast():
    d = np.random.default_rng(5).normal(-0.2, 1.0, 20)
    t0 = time.perf_counter()
    r = signflip_test(d)
    assert time.perf_counter() - t0 < 1.0
    assert r.exact and r.n_resamples == 2**20
    # Independent reference: all 2^20 signed sums as an outer sum of two 2^10 halves.
    half = np.array(list(itertools.product((-1.0, 1.0), repeat=10)))
    sums = np.add.outer(half @ d[:10], half @ d[10:]).ravel()
    assert r.p_two_sided == pytest.approx(np.mean(np.abs(sums) >= abs(d.sum()) - 1e-9), abs=1e-15)
    assert r.p_regression == pytest.approx(np.mean(sums <= d.sum() + 1e-9), abs=1e-15)


def test_signflip_monte_carlo_p_never_zero_and_seeded():
    d = np.full(50, -1.0)
    r = signflip_test(d, n_resamples=999, seed=1)
    assert not r.exact
    assert r.p_regression == pytest.approx(1 / 1000)
    assert r.p_two_sided == pytest.approx(1 / 1000)
    # Every flipped sum is at least -50, so each of the 999 draws counts in the improvement tail: (999 + 1) / (999
    # + 1) by hand. One draw is a Monte Carlo test too: (1 + 1) / 2 and (0 + 1) / 2 (the all-minus draw has
    # chance 2^-50).
    assert r.p_improvement == 1.0
    one = signflip_test(d, n_resamples=1, seed=1)
    assert (one.p_improvement, one.p_regression, one.n_resamples) == (1.0, 0.5, 1)
    # Eight equal differences, drawn (exact_max_n 0): the sum reaches 8 only when no sign flips, chance 2^-8 by
    # hand; 20,000 draws put the Monte Carlo p within 5 of its standard errors (4.4e-4) of it.
    eight = signflip_test(np.ones(8), n_resamples=20_000, seed=0, exact_max_n=0)
    assert abs(eight.p_improvement - 2**-8) < 5 * math.sqrt(2**-8 * (1 - 2**-8) / 20_000)
    # Two-sided, a draw ties the observed |sum| of 8 when every sign agrees (2^-7), and a tie counts; every
    # flipped sum is at least -8, so the regression tail counts every draw.
    assert abs(eight.p_two_sided - 2**-7) < 5 * math.sqrt(2**-7 * (1 - 2**-7) / 20_000)
    assert eight.p_regression == 1.0
    x = np.random.default_rng(2).normal(0.05, 1.0, 300)
    assert signflip_test(x, seed=7) == signflip_test(x, seed=7)
    assert signflip_test(x, seed=7) != signflip_test(x, seed=8)


def test_welch_matches_scipy():
    rng = np.random.default_rng(11)
    a = rng.normal(0.8, 0.02, 5)
    b = rng.normal(0.78, 0.05, 7)
    ref = scipy.stats.ttest_ind(b, a, equal_var=False)
    ci = ref.confidence_interval(0.95)
    r = welch_t_test(baseline=a, candidate=b)
    assert r.defined
    assert _rel(r.diff, b.mean() - a.mean())
    assert _rel(r.t, ref.statistic) and _rel(r.df, ref.df) and _rel(r.p_two_sided, ref.pvalue)
    assert _rel(r.low, ci.low, 1e-8) and _rel(r.high, ci.high, 1e-8)
    less = scipy.stats.ttest_ind(b, a, equal_var=False, alternative="less").pvalue
    assert _rel(r.p_regression, less)


def test_welch_undefined_and_constant():
    r = welch_t_test([0.8], [0.7, 0.75, 0.72])
    assert not r.defined and math.isnan(r.p_two_sided) and math.isnan(r.df)
    assert r.diff == pytest.approx(0.7233333333333333 - 0.8)
    r = welch_t_test([], [0.7])
    assert not r.defined and math.isnan(r.diff)
    r = welch_t_test([0.5, 0.5], [0.5, 0.5, 0.5])
    assert r.defined and r.p_two_sided == 1.0 and r.low == r.high == 0.0
    r = welch_t_test([0.5, 0.5], [0.4, 0.4])
    assert r.p_two_sided == 0.0 and r.p_regression == 0.0 and r.low == r.high == pytest.approx(-0.1)
    # both constant: no spread, so the standard error is 0 (and df undefined) whatever the means
    assert r.se == 0.0 and math.isnan(r.df)


def test_hodges_lehmann_large_n_selection_equals_direct(monkeypatch):
    rng = np.random.default_rng(9)
    for n in (300, 301):  # even and odd number of Walsh averages
        for x in (rng.normal(size=n), rng.integers(-3, 4, size=n).astype(float)):
            direct = hodges_lehmann(x)
            monkeypatch.setattr(continuous, "_HL_DIRECT_MAX_N", 10)
            selected = hodges_lehmann(x)
            monkeypatch.undo()
            assert selected == pytest.approx(direct, abs=1e-12)
    assert math.isnan(hodges_lehmann([]))
    assert hodges_lehmann([0.25]) == 0.25


def test_hodges_lehmann_selection_on_samples_of_one_sign_is_the_median_of_every_walsh_average(monkeypatch):
    """The selection path's bracket must hold whatever the sign of the smallest value: all positive (the
    smallest Walsh sum is then 2 min, far below e.g. 2 / min), all negative (tightly clustered too, where
    3 max would be below the median sum), and near zero. Reference: the
    median of all n(n+1)/2 pairwise averages, formed here."""
    rng = np.random.default_rng(21)
    monkeypatch.setattr(continuous, "_HL_DIRECT_MAX_N", 10)
    for n in (200, 201):
        for x in (rng.uniform(0.1, 0.2, size=n), rng.normal(5.0, 1.0, size=n), -rng.uniform(1.0, 3.0, size=n),
                  -rng.uniform(1.0, 1.1, size=n), rng.uniform(1e-6, 1.0, size=n)):
            i, j = np.triu_indices(n)
            assert hodges_lehmann(x) == float(np.median((x[i] + x[j]) / 2.0))
    monkeypatch.undo()
    # The selection path as it runs (n above 2,000): a Walsh sum equal to the bisection's point in floats but
    # missed by searching for two_x - s_i once made the estimate the next average (9.6e-8 off here).
    x = np.random.default_rng(3).normal(5.0, 1.0, size=2500)
    i, j = np.triu_indices(x.size)
    assert hodges_lehmann(x) == float(np.median((x[i] + x[j]) / 2.0))


def test_walsh_pairs_at_or_below_a_sum_are_counted_as_the_floats_add():
    """Counting pairs i <= j with s_i + s_j <= two_x, at every Walsh sum itself and one float either side of it
    (where searching for two_x - s_i rounds one way or the other): the count of the pairs formed here."""
    rng = np.random.default_rng(5)
    for s in (np.sort(rng.normal(5.0, 1.0, size=120)), np.sort(rng.uniform(-1.0, 3.0, size=121))):
        i, j = np.triu_indices(s.size)
        sums = np.sort(s[i] + s[j])
        probes = np.concatenate([sums[::7], np.nextafter(sums[::7], -np.inf), np.nextafter(sums[::7], np.inf)])
        for two_x in probes:
            assert continuous._walsh_count_le(s, float(two_x)) == int(np.count_nonzero(sums <= two_x))


def test_no_scipy_stats_import():
    # scipy.stats costs ~0.7 s of import time on the command's start-up path.
    for module in (continuous,):
        tree = ast.parse(Path(module.__file__).read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                assert not any(a.name.startswith("scipy.stats") for a in node.names)
            if isinstance(node, ast.ImportFrom):
                assert not (node.module or "").startswith("scipy.stats")
                assert not (node.module == "scipy" and any(a.name == "stats" for a in node.names))


# ------------------------------------------------------------------------------------------ properties


@SETTINGS
@given(samples)
def test_p_values_in_unit_interval(d):
    for r in (paired_t_test(d), signflip_test(d, n_resamples=200)):
        for p in (r.p_two_sided, r.p_regression, r.p_improvement):
            assert math.isnan(p) or 0.0 <= p <= 1.0


@SETTINGS
@given(st.lists(st.integers(-(10**6), 10**6).map(lambda k: k / 10**6), min_size=2, max_size=25))
def test_paired_t_agrees_with_scipy(d):
    # Six-decimal data: scipy's own sd underflows for values near 1e-160 (ours is scaled), so stay away.
    d = np.array(d)
    r = paired_t_test(d)
    if np.all(d == d[0]):
        return
    ref = scipy.stats.ttest_1samp(d, 0.0)
    assert r.t == pytest.approx(ref.statistic, rel=1e-7, abs=1e-9)
    assert r.p_two_sided == pytest.approx(ref.pvalue, rel=1e-7, abs=1e-12)


@SETTINGS
@given(samples)
def test_paired_t_mirror(d):
    d = np.array(d)
    r, m = paired_t_test(d), paired_t_test(-d)
    if not r.defined:
        return
    assert m.mean == -r.mean and m.low == -r.high and m.high == -r.low
    assert m.p_two_sided == r.p_two_sided
    assert m.p_regression == r.p_improvement and m.p_improvement == r.p_regression


@SETTINGS
@given(samples, st.sampled_from([20, 4]))
def test_signflip_mirror_swaps_tails(d, exact_max_n):
    # exact_max_n = 4 forces the Monte Carlo branch for most draws: the swap is exact there too.
    d = np.array(d)
    r = signflip_test(d, exact_max_n=exact_max_n, n_resamples=500, seed=1)
    m = signflip_test(-d, exact_max_n=exact_max_n, n_resamples=500, seed=1)
    assert m.p_two_sided == r.p_two_sided
    assert m.p_regression == r.p_improvement and m.p_improvement == r.p_regression


@SETTINGS
@given(samples, st.randoms(use_true_random=False))
def test_signflip_row_order_invariant(d, rnd):
    shuffled = list(d)
    rnd.shuffle(shuffled)
    for k in (20, 4):
        assert signflip_test(d, exact_max_n=k, n_resamples=300, seed=2) == signflip_test(
            shuffled, exact_max_n=k, n_resamples=300, seed=2
        )


@SETTINGS
@given(st.lists(values, min_size=1, max_size=8), st.lists(values, min_size=1, max_size=8))
def test_welch_properties(a, b):
    r = welch_t_test(a, b)
    m = welch_t_test(b, a)
    if not r.defined:
        assert math.isnan(r.p_two_sided)
        return
    assert 0.0 <= r.p_two_sided <= 1.0
    assert m.diff == -r.diff and m.p_two_sided == pytest.approx(r.p_two_sided)
    assert m.p_regression == pytest.approx(r.p_improvement)


# ------------------------------------------------------------------------------------------ mean interval, normal sign flip


def test_mean_interval_matches_scipy_one_sample_t():
    for x, level in ((BASE, 0.95), (CAND, 0.9), (D, 0.99)):
        r = continuous.mean_interval(x, level)
        ref = scipy.stats.ttest_1samp(x, 0.0).confidence_interval(level)
        assert r.n == x.size and _rel(r.mean, float(np.mean(x)))
        assert _rel(r.low, ref.low, 1e-10) and _rel(r.high, ref.high, 1e-10)


def test_mean_interval_edges():
    one = continuous.mean_interval([0.4])
    assert one.mean == 0.4 and math.isnan(one.low) and math.isnan(one.high)
    flat = continuous.mean_interval([0.7, 0.7, 0.7])
    assert (flat.low, flat.high) == (0.7, 0.7)


def test_signflip_normal_limit_agrees_with_monte_carlo():
    rng = np.random.default_rng(12)
    d = np.round(rng.normal(0.02, 0.3, 3000), 2)  # ties and zeros, as per-case means have
    approx = continuous.signflip_normal_test(d)
    mc = signflip_test(d, n_resamples=20_000, seed=4)
    assert not approx.exact and approx.n_resamples == 0 and approx.n == 3000
    # Monte Carlo error of p ~ 0.007 with B = 20,000 is about 0.0006
    assert abs(approx.p_two_sided - mc.p_two_sided) < 0.004
    assert abs(approx.p_regression - mc.p_regression) < 0.004
    assert abs(approx.p_improvement - mc.p_improvement) < 0.004


def test_signflip_normal_limit_closed_form_and_edges():
    d = np.array([0.5, -0.25, 0.0, 1.0])
    z = d.sum() / math.sqrt(np.sum(d**2))
    r = continuous.signflip_normal_test(d)
    assert _rel(r.p_regression, scipy.stats.norm.cdf(z)) and _rel(r.p_improvement, scipy.stats.norm.sf(z))
    assert _rel(r.p_two_sided, 2 * scipy.stats.norm.sf(abs(z)))
    # z = sum(d) / sqrt(sum(d^2)) has no unit: the same d in sevenths of a point (largest |d| 7) gives the same p.
    seven = continuous.signflip_normal_test(7 * d)
    assert _rel(seven.p_regression, scipy.stats.norm.cdf(z)) and _rel(seven.p_improvement, scipy.stats.norm.sf(z))
    zero = continuous.signflip_normal_test(np.zeros(5))
    assert (zero.p_two_sided, zero.p_regression, zero.p_improvement) == (1.0, 1.0, 1.0)
    assert zero.n_resamples == 0 and not zero.exact
    flipped = continuous.signflip_normal_test(-d)
    assert _rel(flipped.p_regression, r.p_improvement, 1e-12)


def test_a_mean_difference_zero_in_exact_arithmetic_is_zero_not_its_rounding():
    """As many cases up as down by the same amounts, shuffled: numpy's sum leaves 6e-18, which the note showed as
    "-<0.000001" beside a p of 0.999; the mean is 0 and t is 0. A difference as small but real stays."""
    rng = np.random.default_rng(0)
    v = rng.choice([1 / 3, 2 / 3, 1.0, 0.1, 0.7], size=100)
    d = np.concatenate([v, -v])
    rng.shuffle(d)
    assert d.mean() != 0  # the remainder the test is about
    r = paired_t_test(d)
    assert r.mean == 0.0 and r.t == 0.0 and r.p_two_sided == 1.0
    tiny = np.full(200, 1e-12) + rng.normal(0, 1e-13, 200)  # a tiny score range: a real difference of 1e-12
    assert paired_t_test(tiny).mean == pytest.approx(float(tiny.mean()), rel=0, abs=0)


def test_a_mean_zero_in_exact_arithmetic_is_zero_at_any_scale():
    """The rounding remainder scales with the values: the same shuffled ups and downs times 1000 leave a remainder
    of 7e-15, still zero (the quick bound is the largest |d| times the rounding, not divided by it)."""
    rng = np.random.default_rng(0)
    v = 1000 * rng.choice([1 / 3, 2 / 3, 1.0, 0.1, 0.7], size=100)
    d = np.concatenate([v, -v])
    rng.shuffle(d)
    assert d.mean() != 0
    r = paired_t_test(d)
    assert r.mean == 0.0 and r.t == 0.0 and r.p_two_sided == 1.0
