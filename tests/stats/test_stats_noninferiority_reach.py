"""The non-inferiority rule's chance to pass a candidate that changes nothing (issue 21 item 5)."""

import math
from itertools import pairwise

import numpy as np
import pytest

from releasegate.stats.noninferiority_reach import noninferiority_reach, noninferiority_reach_binary
from releasegate.stats.proportions import newcombe_paired_interval

# Exact power of the library's own rule (Newcombe 90% lower bound >= -0.05) at true difference 0, by
# enumerating every 2x2 table of the multinomial (p0 - q/2, q/2, q/2, 1 - p0 - q/2); computed once with
# releasegate.stats.proportions and scipy-free log-multinomial weights (n, p0, q, exact power).
EXACT = [(60, 0.85, 0.2, 0.19885642383478852), (109, 0.9, 0.1, 0.4648615049688041),
         (150, 0.9, 0.1, 0.5770962039916526)]


@pytest.mark.parametrize(("n", "p0", "q", "exact"), EXACT)
def test_normal_form_is_within_a_few_points_of_the_exact_rule(n, p0, q, exact):
    got = noninferiority_reach_binary(n, round(q * n), 0.05, 0.05).power
    # The normal form is 2-6 points above the exact power of the Newcombe bound at these sizes.
    assert exact <= got <= exact + 0.065


def test_closed_form_values():
    # Phi(0.05 sqrt(400) / sqrt(0.1) - 1.6449) = Phi(1.5174) = 0.93541
    r = noninferiority_reach_binary(400, 40, 0.05, 0.05)
    assert r.power == pytest.approx(0.935414, abs=1e-5)
    # even chance: n = 0.1 * 1.6449^2 / 0.05^2 = 108.2 -> 109; 80%: 0.1 (1.6449 + 0.8416)^2 / 0.0025 = 247.3
    assert (r.n_even, r.n_target) == (109, 248)


def power_at(n, sd):
    return noninferiority_reach(n, sd, 0.05, 0.05).power


def test_even_chance_and_target_are_crossings():
    for q in (0.03, 0.1, 0.17, 0.3):
        r = noninferiority_reach(100, math.sqrt(q), 0.05, 0.05)
        sd = math.sqrt(q)
        assert power_at(r.n_even, sd) >= 0.5 > power_at(r.n_even - 1, sd)
        assert power_at(r.n_target, sd) >= 0.8 > power_at(r.n_target - 1, sd)


def test_monotone_in_cases_margin_and_churn():
    ns = [noninferiority_reach(n, 0.3, 0.05).power for n in range(1, 2000, 37)]
    assert all(a < b for a, b in pairwise(ns))
    ms = [noninferiority_reach(200, 0.3, m).power for m in (0.01, 0.02, 0.03, 0.05, 0.1)]
    assert all(a < b for a, b in pairwise(ms))
    qs = [noninferiority_reach_binary(400, k, 0.05).power for k in (10, 20, 40, 68, 100)]
    assert all(a > b for a, b in pairwise(qs))


def test_matches_simulation_of_a_paired_t_bound():
    # Per-case mean differences of sd 0.3 on 150 cases, true mean 0: share whose 90% t lower bound >= -0.05.
    rng = np.random.default_rng(7)
    d = rng.normal(0.0, 0.3, size=(20_000, 150))
    low = d.mean(1) - 1.6551 * d.std(1, ddof=1) / math.sqrt(150)  # t_{0.95, 149}
    simulated = float(np.mean(low >= -0.05))
    assert noninferiority_reach(150, 0.3, 0.05).power == pytest.approx(simulated, abs=0.015)


def test_exact_enumeration_small_case():
    # The enumeration behind EXACT, run here on a size small enough to stay fast.
    n, p0, q = 30, 0.85, 0.2
    probs = np.array([p0 - q / 2, q / 2, q / 2, 1 - p0 - q / 2])
    total = 0.0
    for b in range(n + 1):
        for c in range(n + 1 - b):
            for a in range(n + 1 - b - c):
                d = n - a - b - c
                if newcombe_paired_interval(a, b, c, d, 0.9).low >= -0.05:
                    total += math.exp(math.lgamma(n + 1) - sum(math.lgamma(k + 1) for k in (a, b, c, d))
                                      + float(np.dot((a, b, c, d), np.log(probs))))
    got = noninferiority_reach_binary(n, round(q * n), 0.05).power
    assert 0.0 < total < got <= total + 0.08


def test_degenerate_inputs():
    assert math.isnan(noninferiority_reach(100, 0.3, 0.0).power)  # margin 0: the rule is off
    nothing = noninferiority_reach_binary(100, 0, 0.05)
    assert nothing.power == 1.0 and nothing.n_even is None
    with pytest.raises(ValueError):
        noninferiority_reach_binary(10, 11, 0.05)
    with pytest.raises(ValueError):
        noninferiority_reach(10, -1.0, 0.05)


def test_a_margin_no_count_of_cases_reaches_has_no_count():
    """A margin a googol times below the spread: the chance is the test's level alone (the bound at -margin is
    at 0), and the cases it would take are no float."""
    reach = noninferiority_reach(400, 0.3, 1e-300)
    assert reach.power == pytest.approx(0.05) and reach.n_even is None and reach.n_target is None
    finite = noninferiority_reach(400, 0.3, 1e-9)
    assert finite.n_even is not None and finite.n_target > finite.n_even


@pytest.mark.parametrize(("n", "alpha", "target"), [(-1, 0.05, 0.8), (0, 0.0, 0.8), (0, 0.5, 0.8), (0, 0.7, 0.8),
                                                    (0, 0.05, 0.5), (0, 0.05, 1.0), (0, 0.05, 1.5)])
def test_each_parameter_outside_its_range_is_refused_before_anything_is_computed(n, alpha, target):
    # margin 0 and no cases: the paths that would return without reaching a quantile that could refuse instead
    with pytest.raises(ValueError, match="required"):
        noninferiority_reach(n, 0.3, 0.0, alpha, target)
    with pytest.raises(ValueError, match="required"):
        noninferiority_reach(10 if n == 0 else n, 0.3, 0.05, alpha, target)


def test_no_cases_show_nothing_and_one_case_shows_its_normal_chance():
    from scipy.stats import norm

    for sd in (0.0, 0.3):
        none = noninferiority_reach(0, sd, 0.05)
        assert none.power == 0.0 and math.isnan(none.smallest_margin)
    # sd 0: the one case's difference is exactly 0, above -margin for sure
    assert noninferiority_reach(1, 0.0, 0.05).power == 1.0
    one = noninferiority_reach(1, 0.3, 0.05)
    assert one.power == pytest.approx(norm.cdf(0.05 / 0.3 - norm.ppf(0.95)), rel=1e-12)
    # smallest margin of one case: (z_0.95 + z_0.8) sd / sqrt(1)
    assert one.smallest_margin == pytest.approx((norm.ppf(0.95) + norm.ppf(0.8)) * 0.3, rel=1e-12)
    # every case discordant: q = 1, sd 1
    every = noninferiority_reach_binary(50, 50, 0.05)
    assert every.power == pytest.approx(norm.cdf(0.05 * math.sqrt(50) - norm.ppf(0.95)), rel=1e-12)
    assert noninferiority_reach_binary(0, 0, 0.05).n_even is None


@pytest.mark.parametrize("k", [7, 10, 12, 20, 30])
def test_an_even_chance_at_a_whole_number_of_cases_is_that_number(k):
    """sd = margin k / z_0.95 puts the bound's expected position at -margin on exactly k^2 cases, where the
    chance is one half in exact arithmetic; rounding in (z sd / margin)^2 must not add a case."""
    from scipy.stats import norm

    assert noninferiority_reach(50, 0.05 * k / norm.ppf(0.95), 0.05).n_even == k * k


def test_one_needed_case_is_one_case():
    from scipy.stats import norm

    # sd 0.01 against margin 0.05: Phi(5 - z_0.95) = 0.9996 on one case already
    r = noninferiority_reach(100, 0.01, 0.05)
    assert norm.cdf(0.05 / 0.01 - norm.ppf(0.95)) >= 0.8
    assert (r.n_even, r.n_target) == (1, 1)


def test_a_count_of_cases_beyond_the_floats_for_either_chance_gives_neither():
    from scipy.stats import norm

    margin = 1.5e-154
    # (z_0.95 / margin)^2 is a float, ((z_0.95 + z_0.8) / margin)^2 is not
    even, target = float(norm.ppf(0.95)) / margin, float(norm.ppf(0.95) + norm.ppf(0.8)) / margin
    assert math.isfinite(even * even) and math.isinf(target * target)
    r = noninferiority_reach(400, 1.0, margin)
    assert r.n_even is None and r.n_target is None


def _newcombe_rule_chance(n, q, p0, margin, alpha=0.05):
    """The chance that the (1 - 2 alpha) Newcombe lower bound is above -margin: discordant D ~ Bin(n, q),
    broke | D ~ Bin(D, 1/2), the n - D concordant cases at their expected both-pass share (the model of the
    exact smallest margin), summed over every (D, broke) with scipy's binomial weights."""
    from scipy.stats import binom

    share = (p0 - q / 2) / (1 - q) if q < 1 else 0.0
    total = 0.0
    for dd in range(n + 1):
        w = binom.pmf(dd, n, q)
        for broke in range(dd + 1):
            rest = n - dd
            low = newcombe_paired_interval(rest * share, broke, dd - broke, rest * (1 - share), 1 - 2 * alpha).low
            if low > -margin:
                total += w * binom.pmf(broke, dd, 0.5)
    return total


@pytest.mark.parametrize(("n", "discordant", "pass_rate", "margin"), [(40, 8, 0.85, 0.2), (1, 1, 0.5, 0.5)])
def test_the_exact_smallest_margin_is_where_the_enumerated_chance_reaches_the_target(n, discordant, pass_rate,
                                                                                      margin):
    # normal form sqrt(q / n) (z_0.95 + z_0.8): 0.176 of a margin 0.2 (above 0.8 of it), 2.49 -> 1 for one case:
    # the exact search runs; its answer is a jump of the enumerated chance through 0.8
    m = noninferiority_reach_binary(n, discordant, margin, pass_rate=pass_rate).smallest_margin
    q = discordant / n
    assert _newcombe_rule_chance(n, q, pass_rate, m - 1e-6) < 0.8
    if n == 1:  # the broken table's bound is -1 (by hand): no margin below 1 reaches 0.8, and 1 is the cap
        assert newcombe_paired_interval(0, 1, 0, 0, 0.9).low == -1.0 and m == 1.0
    else:
        assert _newcombe_rule_chance(n, q, pass_rate, m) >= 0.8


def test_a_suite_whose_normal_smallest_margin_is_well_inside_the_policy_keeps_the_normal_form():
    from scipy.stats import norm

    # 1,000 cases, 5% discordant (50 expected, so the exact search could run): 0.0176 is below 0.8 x 0.05
    r = noninferiority_reach_binary(1000, 50, 0.05, pass_rate=0.85)
    assert r.smallest_margin == pytest.approx((norm.ppf(0.95) + norm.ppf(0.8)) * math.sqrt(0.05 / 1000), rel=1e-12)


def test_one_discordant_case_shows_no_margin_below_one_even_where_the_normal_form_says_a_quarter():
    from scipy.stats import norm

    # alpha 0.45, target 0.55: the normal form's margin for one case at q = 1 is 2 z_0.55 = 0.25; but the table
    # where the one case broke has Newcombe bound -1 (by hand: p_candidate - p_baseline = -1 at its lowest), so
    # the rule's chance stays at 1/2 below margin 1: the smallest margin is the cap, 1
    assert 2 * norm.ppf(0.55) < 0.26 and newcombe_paired_interval(0, 1, 0, 0, 0.1).low == -1.0
    r = noninferiority_reach_binary(1, 1, 0.2, alpha=0.45, target=0.55, pass_rate=0.5)
    assert r.smallest_margin == 1.0
