"""The exact unconditional test of paired pass/fail outcomes (stats.unconditional), against outside values, an
independent enumeration and its defining property (its size is at most its level)."""

from __future__ import annotations

import math
from itertools import pairwise

import numpy as np
import pytest
from scipy.optimize import minimize_scalar
from scipy.stats import binom, multinomial

from releasegate.stats.unconditional import unconditional_mcnemar

# (broke, fixed, cases, one-sided p). Computed outside the project with R 4.2.2 (Debian r-base-core) from the
# algorithm of contingencytables' McNemar_exact_unconditional_test_paired_2x2 (Fagerland, Lydersen & Laake
# 2017, section 8.5.4: trinomial enumeration, gamma = 0) with the one-sided statistic (x12 - x21) / sqrt(x12 +
# x21), the sup over a 2,000-point grid refined by R's optimize().
R_ONE_SIDED = [
    (2, 0, 50, 0.107785120406),
    (3, 0, 50, 0.049488044154),
    (4, 0, 50, 0.023921587714),
    (5, 0, 50, 0.016419568782),
    (6, 0, 50, 0.007673338916),
    (6, 0, 45, 0.008047180016),
    (12, 2, 50, 0.003749661171),
    (5, 3, 50, 0.267929918045),
    (9, 3, 50, 0.049488044154),
    (3, 1, 6, 0.279774840577),
    (4, 1, 6, 0.133841501946),
    (5, 1, 30, 0.065780941975),
    (3, 0, 10, 0.054687500000),
    (5, 0, 5, 0.031250000000),
    (10, 4, 100, 0.065144468410),
    (12, 3, 100, 0.010489367839),
    (20, 5, 60, 0.001335218141),
    (14, 1, 400, 0.000397210235),
    (3, 2, 400, 0.377087541274),
    (2, 2, 20, 0.589736841551),
    (1, 3, 20, 0.868412017822),
    (0, 4, 30, 0.983508726119),
]
# Two-sided, from the package's own function (statistic (x12 - x21)^2 / (x12 + x21), gamma = 0) in the same R:
# the book's two examples, Bentur et al. 2009 (1 and 7 discordant of 21; the 2013 paper prints 0.035) and Cavo
# et al. 2012 (6 and 16 of 161; printed 0.034). Z is symmetric under the null, so the two-sided p is twice the
# one-sided one.
R_TWO_SIDED = [(7, 1, 21, 0.035316027201), (16, 6, 161, 0.034204093986)]


@pytest.mark.parametrize(("broke", "fixed", "cases", "p"), R_ONE_SIDED)
def test_one_sided_p_agrees_with_r(broke, fixed, cases, p):
    assert unconditional_mcnemar(broke, fixed, cases).p_regression == pytest.approx(p, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize(("broke", "fixed", "cases", "p"), R_TWO_SIDED)
def test_twice_the_one_sided_p_is_the_packages_two_sided_p(broke, fixed, cases, p):
    assert 2 * unconditional_mcnemar(broke, fixed, cases).p_regression == pytest.approx(p, rel=1e-9)


def _enumerated(broke: int, fixed: int, cases: int) -> float:
    """sup over psi of P(Z >= z_obs) by listing every table with scipy's trinomial, maximised on a fine grid
    and by scipy's bounded search around its best point: no code shared with the module."""
    if broke + fixed == 0:
        return 1.0
    z0 = (broke - fixed) / math.sqrt(broke + fixed)
    tables = np.array([(b, c, cases - b - c) for b in range(cases + 1) for c in range(cases + 1 - b)
                       if b + c and (b - c) / math.sqrt(b + c) >= z0 - 1e-12]).reshape(-1, 3)

    def tail(psi: float) -> float:
        return float(multinomial.pmf(tables, cases, [psi / 2, psi / 2, 1 - psi]).sum())

    grid = np.linspace(1e-6, 1 - 1e-9, 400)
    values = [tail(x) for x in grid]
    k = int(np.argmax(values))
    lo, hi = grid[max(k - 1, 0)], grid[min(k + 1, grid.size - 1)]
    best = minimize_scalar(lambda x: -tail(x), bounds=(lo, hi), method="bounded", options={"xatol": 1e-12})
    return max(max(values), -float(best.fun), tail(1.0))


@pytest.mark.parametrize("seed", range(6))
def test_agrees_with_a_plain_enumeration(seed):
    rng = np.random.default_rng(seed)
    cases = int(rng.integers(4, 26))
    broke = int(rng.integers(0, cases + 1))
    fixed = int(rng.integers(0, cases - broke + 1))
    assert unconditional_mcnemar(broke, fixed, cases).p_regression == pytest.approx(
        _enumerated(broke, fixed, cases), rel=1e-7, abs=1e-10)


def _sup_over_every_local_maximum(broke: int, fixed: int, cases: int) -> float:
    """sup over psi of P(Z >= z_obs) with scipy's binomials (D ~ Bin(cases, psi) changed cases, broke ~ Bin(d, 1/2)
    among them, the region listed table by table), on a 4,001-point grid refined by scipy's bounded search around
    every grid point that is a local maximum: no code shared with the module."""
    z0 = (broke - fixed) / math.sqrt(broke + fixed)
    g = np.zeros(cases + 1)
    for d in range(1, cases + 1):
        b = np.arange(d + 1)
        g[d] = binom.pmf(b[(2 * b - d) / math.sqrt(d) >= z0 - 1e-12], d, 0.5).sum()
    d = np.arange(cases + 1)
    grid = np.linspace(0.0, 1.0, 4001)
    values = binom.pmf(d[None, :], cases, grid[:, None]) @ g
    best = float(values.max())
    for k in range(1, grid.size - 1):
        if values[k] >= values[k - 1] and values[k] >= values[k + 1]:
            r = minimize_scalar(lambda x: -float(binom.pmf(d, cases, x) @ g), bounds=(grid[k - 1], grid[k + 1]),
                                method="bounded", options={"xatol": 1e-13})
            best = max(best, -float(r.fun))
    return best


@pytest.mark.parametrize(("broke", "fixed", "cases"), [(52, 27, 300), (80, 72, 500)])
def test_the_sup_is_the_highest_of_many_local_maxima(broke, fixed, cases):
    # These tails have ten or more local maxima in psi, several within 1% of the highest (52 of 300: at psi near
    # 0.93 and 0.996, 0.00246 each): the sup must refine the highest peaks, not the first or every other one.
    assert unconditional_mcnemar(broke, fixed, cases).p_regression == pytest.approx(
        _sup_over_every_local_maximum(broke, fixed, cases), rel=1e-9, abs=0)


@pytest.mark.parametrize("cases", [8, 20, 50])
def test_its_size_is_at_most_its_level(cases):
    # The defining property: under "no worse" (broke as likely as fixed, psi / 2 each) P(p <= alpha) <= alpha for
    # every psi; a p-value that only approximates the sup would exceed it somewhere. Exact over every table.
    p = {(b, c): unconditional_mcnemar(b, c, cases).p_regression
         for b in range(cases + 1) for c in range(cases + 1 - b)}
    for alpha in (0.01, 0.05, 0.10):
        region = [(b, c) for (b, c), v in p.items() if v <= alpha]
        b = np.array([t[0] for t in region])
        c = np.array([t[1] for t in region])
        for psi in np.linspace(0.005, 1.0, 200):
            size = float(multinomial.pmf(np.c_[b, c, cases - b - c], cases, [psi / 2, psi / 2, 1 - psi]).sum()) \
                if region else 0.0
            assert size <= alpha * (1 + 1e-9)


def test_more_powerful_than_the_conditional_test_on_the_issues_drop():
    # A 20-point drop in a 50-case category at 10% churn: broke with probability 0.2389, fixed 0.0389 (bench/
    # verdicts.py critical_cells). The conditional test catches 84.0% at 0.05 (bench/verdicts.py --study ceiling);
    # this one about 89.4%, by enumerating every table.
    cases, pb, pf = 50, 0.05 + 0.85 * (0.2 / 0.9), 0.05 * (1 - 0.2 / 0.9)
    b, c = (np.array(v) for v in zip(*[(b, c) for b in range(cases + 1) for c in range(cases + 1 - b)]))
    w = multinomial.pmf(np.c_[b, c, cases - b - c], cases, [pb, pf, 1 - pb - pf])
    uncond = float(w @ np.array([unconditional_mcnemar(x, y, cases).p_regression <= 0.05 for x, y in zip(b, c)]))
    cond = float(w @ ((b + c > 0) & (binom.sf(b - 1, np.maximum(b + c, 1), 0.5) <= 0.05)))
    assert cond == pytest.approx(0.840, abs=5e-4)
    assert uncond == pytest.approx(0.894, abs=5e-4)


def test_monotone_in_the_counts_and_one_when_nothing_changed():
    assert unconditional_mcnemar(0, 0, 30).p_regression == 1.0
    for fixed in range(4):
        ps = [unconditional_mcnemar(b, fixed, 30).p_regression for b in range(20)]
        assert all(x >= y - 1e-15 for x, y in pairwise(ps))  # more broke: smaller p
    qs = [unconditional_mcnemar(6, f, 30).p_regression for f in range(10)]
    assert all(x <= y + 1e-15 for x, y in pairwise(qs))  # more fixed: larger p
    r = unconditional_mcnemar(6, 0, 45)
    assert r.statistic == pytest.approx(math.sqrt(6)) and 0 < r.nuisance <= 1
    # McNemar's z = (broke - fixed) / sqrt(broke + fixed) by hand: (12 - 2) / sqrt(14).
    assert unconditional_mcnemar(12, 2, 50).statistic == pytest.approx(10 / math.sqrt(14), rel=1e-12)
    # A p-value is a probability: where nearly every table is in the tail (none broke, 56 fixed of 300) the
    # mixture's rounding sums to 1 + 5e-14, which must not be reported.
    assert 0.999 < unconditional_mcnemar(0, 56, 300).p_regression <= 1.0


@pytest.mark.parametrize(("broke", "fixed", "cases"), [(-1, 0, 5), (3, 3, 5), (0, 1, 0)])
def test_refuses_counts_that_are_not_a_table(broke, fixed, cases):
    with pytest.raises(ValueError, match="counts"):
        unconditional_mcnemar(broke, fixed, cases)
