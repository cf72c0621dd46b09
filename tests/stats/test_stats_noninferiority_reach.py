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
