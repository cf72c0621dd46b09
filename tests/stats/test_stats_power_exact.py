"""Exact power of the one-sided exact McNemar test and the minimum detectable drop, against enumeration and
simulation."""

from __future__ import annotations

import math

import numpy as np
import pytest

from releasegate.stats.mcnemar import mcnemar_test
from releasegate.stats.power import (
    exact_mcnemar_power,
    minimum_detectable_drop,
    regression_cells,
)


def enumerated_power(n, b, c, alpha, midp=False):
    """Sum of multinomial(n; broke, fixed, rest) over every table whose one-sided p is <= alpha."""
    total = 0.0
    for broke in range(n + 1):
        for fixed in range(n - broke + 1):
            r = mcnemar_test(fixed, broke)
            p = r.midp_regression if midp else r.p_regression
            if p <= alpha:
                ways = math.factorial(n) // (math.factorial(broke) * math.factorial(fixed)
                                             * math.factorial(n - broke - fixed))
                total += ways * b**broke * c**fixed * (1 - b - c) ** (n - broke - fixed)
    return total


@pytest.mark.parametrize(("n", "b", "c", "alpha", "midp"), [
    (6, 0.3, 0.05, 0.05, False), (12, 0.2, 0.1, 0.05, False), (12, 0.2, 0.1, 0.05, True),
    (20, 0.15, 0.02, 0.01, False), (9, 0.5, 0.5, 2**-5, False), (15, 0.05, 0.05, 0.10, False),
])
def test_power_equals_enumeration(n, b, c, alpha, midp):
    assert exact_mcnemar_power(n, b, c, alpha, midp).power == pytest.approx(enumerated_power(n, b, c, alpha, midp),
                                                                            rel=1e-10, abs=1e-14)


def test_power_matches_simulation_at_400_cases():
    b, c = regression_cells(0.9, 0.10, 0.03, "added")
    exact = exact_mcnemar_power(400, b, c, 0.05).power
    rng = np.random.default_rng(11)
    cells = rng.multinomial(400, [b, c, 1 - b - c], size=4000)
    hits = np.mean([mcnemar_test(int(f), int(k)).p_regression <= 0.05 for k, f, _ in cells])
    assert abs(hits - exact) < 4 * math.sqrt(exact * (1 - exact) / 4000)


def test_size_under_no_change_is_at_most_the_level():
    for n in (10, 50, 400):
        size = exact_mcnemar_power(n, 0.05, 0.05, 0.05).power
        assert 0 <= size <= 0.05


def test_cells_have_the_asked_marginals():
    for mode in ("added", "tilted"):
        b, c = regression_cells(0.9, 0.10, 0.03, mode)
        assert b - c == pytest.approx(0.03)  # the pass rate drops by the drop
    assert regression_cells(0.9, 0.10, 0.03, "tilted") == pytest.approx((0.065, 0.035))
    assert sum(regression_cells(0.9, 0.05, 0.05, "tilted")) == pytest.approx(0.05)  # every change a break
    with pytest.raises(ValueError):
        regression_cells(0.9, 0.10, 0.95)
    with pytest.raises(ValueError):
        regression_cells(0.9, 0.25, 0.0)  # two runs cannot disagree on more than 2 min(p0, 1 - p0)


def test_minimum_detectable_drop_reaches_its_power_and_no_less():
    result = minimum_detectable_drop(400, 0.9, 0.10, alpha=0.05)
    assert result.drop is not None and 0.0 < result.drop < 0.9
    assert result.power >= 0.8
    b, c = regression_cells(0.9, 0.10, result.drop - 0.002)
    assert exact_mcnemar_power(400, b, c, 0.05).power < 0.8
    # More cases detect less; a harsher family level needs more.
    assert minimum_detectable_drop(2000, 0.9, 0.10).drop < result.drop
    assert minimum_detectable_drop(400, 0.9, 0.10, alpha=0.005).drop > result.drop


def test_nothing_detectable_on_three_cases_and_bounded_by_the_baseline_rate():
    # The old normal formula said "a true drop of 117.2 points" on 3 cases; the exact test's floor is 1/8.
    three = minimum_detectable_drop(3, 0.9, 0.10)
    assert three.drop is None and three.reason == "floor"
    # Five cases can reach 1/32 < 0.05 only if all five break: a drop of the whole rate is still short of 80%.
    five = minimum_detectable_drop(5, 0.9, 0.10)
    assert five.drop is None and five.reason == "infeasible" and five.power < 0.8
    # A category of 50 at the level Holm leaves it in a family of ten.
    fifty = minimum_detectable_drop(50, 0.9, 0.10, alpha=0.005)
    assert fifty.drop is not None and fifty.drop <= 0.9
