"""Binary-outcome statistics against shared/reference/stat-vectors.json (values copied here) and properties."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from releasegate.stats.mcnemar import discordant_needed, mcnemar_test, smallest_regression_p
from releasegate.stats.multiplicity import adjust_pvalues
from releasegate.stats.power import minimum_detectable_difference, required_sample_size
from releasegate.stats.proportions import newcombe_paired_interval, wilson_interval

REL = 1e-9

# stat-vectors.json "mcnemar": (fixed, broke) -> exact two-sided, Fagerland mid-p, exact one-sided regression,
# one-sided mid-p, chi2 (no correction), chi2 with R's continuity correction (recommended_tool_values).
MCNEMAR = [
    (12, 6, 0.237884521484375, 0.16706848144531244, 0.951873779296875, 0.9164657592773438,
     0.15729920705028105, 0.2385928293164321),
    (1, 14, 0.0009765625, 0.0005187988281249997, 0.00048828125, 0.00025939941406250016,
     0.0007891129890156312, 0.0019457736937391556),
    (0, 0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0),
    (0, 3, 0.25, 0.125, 0.125, 0.0625, 0.08326451666355042, 0.24821307898992026),
    (5, 5, 1.0, 0.876953125, 0.623046875, 0.5, 1.0, 1.0),
    (40, 25, 0.08168153394154003, 0.06401750413722561, 0.9768232628335444, 0.9679912479313872,
     0.06281184751609843, 0.08247788747320971),
    (200, 150, 0.008720036530555947, 0.007524139788171171, 0.9968358784771069, 0.9962379301059144,
     0.007526315166457882, 0.008814654904213312),
]


@pytest.mark.parametrize("fixed,broke,exact,midp,one,one_mid,chi2,chi2cc", MCNEMAR)
def test_mcnemar_matches_reference(fixed, broke, exact, midp, one, one_mid, chi2, chi2cc):
    r = mcnemar_test(fixed, broke)
    assert r.p_two_sided == pytest.approx(exact, rel=REL)
    assert r.p_regression == pytest.approx(one, rel=REL)
    assert r.midp_regression == pytest.approx(one_mid, rel=REL)
    assert r.chi2_p == pytest.approx(chi2, rel=REL)
    assert r.chi2_cc_p == pytest.approx(chi2cc, rel=REL)
    if (fixed, broke) == (0, 0):
        # Fagerland's mid-p for 0 pairs is 0.5; the tool's rule is p = 1 for every variant, flagged.
        assert r.midp_two_sided == 1.0 and r.degenerate
    else:
        assert r.midp_two_sided == pytest.approx(midp, rel=REL)
        assert not r.degenerate


def test_mcnemar_large_counts_do_not_overflow():
    r = mcnemar_test(50_000, 50_400)
    assert 0 < r.p_two_sided < 1 and 0 < r.p_regression < 1
    assert math.isfinite(r.midp_two_sided)


@settings(max_examples=200, derandomize=True, deadline=None)
@given(st.integers(0, 400), st.integers(0, 400))
def test_mcnemar_properties(fixed, broke):
    r = mcnemar_test(fixed, broke)
    mirror = mcnemar_test(broke, fixed)
    for p in (r.p_two_sided, r.midp_two_sided, r.p_regression, r.midp_regression, r.chi2_p, r.chi2_cc_p):
        assert 0.0 <= p <= 1.0
    assert r.p_two_sided == pytest.approx(mirror.p_two_sided, rel=1e-12)
    assert r.midp_two_sided <= r.p_two_sided + 1e-15
    if fixed + broke:
        # One-sided tails of the mirror image add to 1 + P(X = broke).
        assert r.p_regression >= smallest_regression_p(fixed + broke) * (1 - 1e-12)
    if broke > fixed:
        assert r.p_regression <= r.p_two_sided + 1e-15


def test_smallest_p_and_discordant_needed():
    assert smallest_regression_p(6) == 2**-6
    assert smallest_regression_p(0) == 1.0
    # 10 tests at alpha 0.05: 10 * 2^-n < 0.05 needs n >= 8.
    assert discordant_needed(0.05, 10) == 8
    assert 10 * 2.0**-8 < 0.05 <= 10 * 2.0**-7
    assert discordant_needed(0.05, 1) == 5


@pytest.mark.parametrize("fixed,broke", [(-1, 3), (3, -1), (-2, -2)])
def test_mcnemar_refuses_a_negative_count(fixed, broke):
    # Either count negative alone is refused, not only both: a negative broke would read as fixes.
    with pytest.raises(ValueError, match="cannot be negative"):
        mcnemar_test(fixed, broke)


def test_mcnemar_without_discordant_pairs():
    r = mcnemar_test(0, 0)
    assert (r.fixed, r.broke, r.n_discordant, r.degenerate) == (0, 0, 0, True)
    assert (r.p_two_sided, r.midp_two_sided, r.p_regression, r.midp_regression, r.chi2_p, r.chi2_cc_p) == (1.0,) * 6
    # No pair can go either way: the floor is 1 whether read exact or as a mid-p.
    assert smallest_regression_p(0, midp=True) == smallest_regression_p(0) == 1.0


@pytest.mark.parametrize("alpha,multiplier", [(0.05, 10), (0.05, 1), (0.01, 3), (1 / 16, 1), (0.1, 40), (0.6, 1)])
@pytest.mark.parametrize("midp", [False, True])
def test_discordant_needed_is_the_fewest_pairs_by_search(alpha, multiplier, midp):
    # Counted directly: the fewest n whose all-one-way p (2^-n exact, 2^-(n+1) mid-p) times the multiplier
    # is below alpha; mid-p needs one pair fewer.
    def floor_p(n):
        return 2.0 ** -(n + (1 if midp else 0))

    fewest = next(n for n in range(1, 200) if multiplier * floor_p(n) < alpha)
    assert discordant_needed(alpha, multiplier, midp) == fewest
    assert smallest_regression_p(fewest, midp) == floor_p(fewest)


def test_discordant_needed_refuses_a_level_of_zero():
    # Without its own check alpha = 0 would fail as a division by zero, not as the bad value it is.
    with pytest.raises(ValueError, match="alpha must be positive"):
        discordant_needed(0.0, 10)


# stat-vectors.json "single_proportion_ci" (Wilson).
@pytest.mark.parametrize("x,n,low,high", [
    (367, 400, 0.8864031104605777, 0.9406541237702847),
    (0, 10, 0.0, 0.27753279986288926),
])
def test_wilson_matches_reference(x, n, low, high):
    w = wilson_interval(x, n)
    assert w.low == pytest.approx(low, rel=REL, abs=1e-15)
    assert w.high == pytest.approx(high, rel=REL)


def test_wilson_without_cases_and_at_every_case_passing():
    """No case: nothing is measured, so the interval is the whole of [0, 1] around NaN. One case, and ten of ten:
    statsmodels' Wilson limits, the upper one exactly 1 (at x = n the score interval's upper root is 1)."""
    from statsmodels.stats.proportion import proportion_confint

    none = wilson_interval(0, 0)
    assert math.isnan(none.estimate) and (none.low, none.high) == (0.0, 1.0)
    for x, n in [(1, 1), (10, 10)]:
        w = wilson_interval(x, n)
        low, high = proportion_confint(x, n, alpha=0.05, method="wilson")
        assert w.low == pytest.approx(low, rel=REL) and w.high == high == 1.0


@settings(max_examples=200, derandomize=True, deadline=None)
@given(st.integers(1, 2000), st.data())
def test_wilson_properties(n, data):
    x = data.draw(st.integers(0, n))
    w = wilson_interval(x, n)
    assert 0.0 <= w.low <= x / n <= w.high <= 1.0
    m = wilson_interval(n - x, n)
    assert m.low == pytest.approx(1 - w.high, abs=1e-12)


# stat-vectors.json "paired_diff_ci", "anchor_cavo_2012", "check_36_12_2_0": (a, b, c, d) with
# a both pass, b baseline only, c candidate only, d both fail -> Newcombe method 10 (corrected phi).
NEWCOMBE = [
    ((350, 6, 12, 32), (-0.007002139970463343, 0.03801062824611359), 0.7444632527646945),
    ((345, 14, 1, 40), (-0.05412892672033202, -0.013068225419480748), 0.8192520339931421),
    ((10, 0, 0, 0), (-0.27753279986288915, 0.27753279986288915), 0.0),
    ((0, 5, 0, 5), (-0.7634069094874361, -0.11736746745022214), 0.0),
]


@pytest.mark.parametrize("table,ci,phi", NEWCOMBE)
def test_newcombe_matches_reference(table, ci, phi):
    r = newcombe_paired_interval(*table)
    assert (r.low, r.high) == pytest.approx(ci, rel=REL)
    assert r.phi == pytest.approx(phi, rel=REL, abs=1e-15)


def test_newcombe_published_anchor():
    # Cavo 2012 table as (n11, n12, n21, n22) = (59, 6, 16, 80) for p1 - p2, p1 = row margin: in our
    # orientation the "candidate" is the row variable, so a = 59, c = 6 (row pass only), b = 16, d = 80.
    r = newcombe_paired_interval(59, 16, 6, 80)
    assert r.estimate == pytest.approx(-0.06211180124223603, rel=REL)
    assert (r.low, r.high) == pytest.approx((-0.11862119563870996, -0.00462511393305004), rel=REL)
    assert (round(r.low, 4), round(r.high, 4)) == (-0.1186, -0.0046)


def test_newcombe_negative_phi_case():
    # check_36_12_2_0: theta = (12 - 2)/50 with the candidate passing 12 alone; phi < 0 branch.
    r = newcombe_paired_interval(36, 2, 12, 0)
    assert r.estimate == pytest.approx(0.2, rel=REL)
    assert (r.low, r.high) == pytest.approx((0.05692958400323875, 0.3404276029749408), rel=REL)
    assert r.phi == pytest.approx(-0.11470786693528089, rel=REL)


def test_newcombe_noninferiority_90():
    # stat-vectors.json "noninferiority": newcombe10_ci90.
    r = newcombe_paired_interval(350, 6, 12, 32, confidence=0.90)
    assert (r.low, r.high) == pytest.approx((-0.0032357684211723574, 0.03396439147259976), rel=REL)
    r = newcombe_paired_interval(345, 14, 1, 40, confidence=0.90)
    assert (r.low, r.high) == pytest.approx((-0.050237667547966325, -0.016350981221174853), rel=REL)


def test_newcombe_phi_at_its_branch_edges_by_hand():
    """Newcombe's corrected phi by hand, with statsmodels' Wilson limits for the square-and-add.

    No case: the difference is unmeasured, NaN inside [-1, 1], phi 0 and n 0.
    (0, 1, 1, 0): margins (a+b)(c+d)(a+c)(b+d) = 1 and A = ad - bc = -1 < 0, so phi = A / sqrt(1) = -1; the two
    Wilson intervals (1 of 2 each) are symmetric about 1/2 with half-width h, and with phi = -1 the square-and-add
    is sqrt(h^2 + 2h^2 + h^2) = 2h: the interval is 0 +- 2h.
    (2.5, 1, 1, 0.5) (fractional cells, as analyze.sparse_cases gives): A = 1.25 - 1 = 0.25, between 0 and n/2 =
    2.5, so phi = 0 and both proportions are 3.5/5 = 0.7: low = -sqrt((0.7 - L)^2 + (U - 0.7)^2) with (L, U)
    Wilson's limits for 3.5 of 5, and high = -low."""
    from statsmodels.stats.proportion import proportion_confint

    none = newcombe_paired_interval(0, 0, 0, 0)
    assert math.isnan(none.estimate) and (none.low, none.high, none.phi, none.n) == (-1.0, 1.0, 0.0, 0)
    r = newcombe_paired_interval(0, 1, 1, 0)
    h = 0.5 - proportion_confint(1, 2, alpha=0.05, method="wilson")[0]
    assert r.phi == -1.0
    assert (r.low, r.high) == pytest.approx((-2 * h, 2 * h), rel=REL)
    r = newcombe_paired_interval(2.5, 1, 1, 0.5)
    low, high = proportion_confint(3.5, 5, alpha=0.05, method="wilson")
    half = math.hypot(0.7 - low, high - 0.7)
    assert r.phi == 0.0
    assert (r.estimate, r.low, r.high) == pytest.approx((0.0, -half, half), rel=REL, abs=1e-15)


@settings(max_examples=200, derandomize=True, deadline=None)
@given(st.integers(0, 60), st.integers(0, 60), st.integers(0, 60), st.integers(0, 60))
def test_newcombe_properties(a, b, c, d):
    if a + b + c + d == 0:
        return
    r = newcombe_paired_interval(a, b, c, d)
    assert -1.0 <= r.low <= r.estimate + 1e-12 and r.estimate - 1e-12 <= r.high <= 1.0
    # Swapping baseline and candidate mirrors the interval.
    m = newcombe_paired_interval(a, c, b, d)
    assert m.low == pytest.approx(-r.high, abs=1e-12) and m.high == pytest.approx(-r.low, abs=1e-12)
    # A wider confidence level never gives a narrower interval.
    w = newcombe_paired_interval(a, b, c, d, confidence=0.99)
    assert w.low <= r.low + 1e-12 and w.high >= r.high - 1e-12


# stat-vectors.json "multiplicity".
P = [0.001, 0.01, 0.02, 0.04, 0.2, 0.5, 0.9, 0.03, 0.045]
ADJUSTED = {
    "holm": [0.009, 0.08, 0.14, 0.2, 0.6, 1.0, 1.0, 0.18, 0.2],
    "hochberg": [0.009, 0.08, 0.14, 0.18, 0.6, 0.9, 0.9, 0.18, 0.18],
    "bh": [0.009, 0.045, 0.06, 0.0675, 0.2571428571428572, 0.5625, 0.9, 0.0675, 0.0675],
    "bonferroni": [0.009, 0.09, 0.18, 0.36, 1.0, 1.0, 1.0, 0.27, 0.405],
}


@pytest.mark.parametrize("method", sorted(ADJUSTED))
def test_adjustments_match_reference(method):
    assert adjust_pvalues(np.array(P), method) == pytest.approx(ADJUSTED[method], rel=1e-12)


def test_adjust_none_and_unknown():
    assert list(adjust_pvalues(np.array(P), "none")) == P
    with pytest.raises(ValueError, match="unknown correction"):
        adjust_pvalues(np.array(P), "sidak")


@settings(max_examples=200, derandomize=True, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=30), st.sampled_from(sorted(ADJUSTED)))
def test_adjustment_properties(p, method):
    p = np.array(p)
    adj = adjust_pvalues(p, method)
    assert np.all(adj >= p - 1e-15) and np.all(adj <= 1.0)
    # Order is kept: a smaller raw p never gets a larger adjusted p.
    order = np.argsort(p, kind="stable")
    assert np.all(np.diff(adj[order]) >= -1e-15)
    # Permuting the family permutes the result.
    perm = np.random.default_rng(0).permutation(p.size)
    assert adjust_pvalues(p[perm], method) == pytest.approx(adj[perm], rel=1e-12)


def test_power_matches_reference():
    # stat-vectors.json "power": case2_mde (two-sided), case1 and case3 (sample size).
    assert minimum_detectable_difference(0.3, 400, one_sided=False).mde == pytest.approx(0.042023778271694526,
                                                                                          rel=REL)
    assert required_sample_size(0.3, 0.03) == pytest.approx(784.8879734349088, rel=REL)
    assert required_sample_size(math.sqrt(0.09910000000000001), 0.03) == pytest.approx(864.2488685266608, rel=REL)


def test_power_design_effect_and_monotone():
    base = minimum_detectable_difference(0.3, 400)
    clustered = minimum_detectable_difference(0.3, 400, design_effect=4.0)
    assert clustered.mde == pytest.approx(2 * base.mde, rel=1e-12)
    assert minimum_detectable_difference(0.3, 1600).mde == pytest.approx(base.mde / 2, rel=1e-12)
    assert base.mde < minimum_detectable_difference(0.3, 400, one_sided=False).mde
