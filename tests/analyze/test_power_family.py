"""The minimum detectable difference (issue 21 item 3): exact power of the exact McNemar test at the level
the family leaves the overall test, within the feasible range, "nothing detectable" below the test's floor."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from releasegate.analyze.candidate import plan_arrays
from releasegate.model import Power
from releasegate.policy import Policy
from releasegate.stats.power import regression_cells
from releasegate.wording.method import power_sentence


def _pairs(n: int, broke: int, fixed: int, fails: int, categories: int = 1):
    base = np.ones(n)
    base[:fails] = 0
    cand = base.copy()
    cand[fails:fails + broke] = 0
    cand[:fixed] = 1
    codes = np.arange(n) % categories
    return base, cand, codes


def _plan(base, cand, codes, categories, **policy):
    labels = [f"c{k}" for k in range(categories)]
    return plan_arrays(base, cand, Policy(**policy), mcnemar=True,
                       category_codes=codes if categories > 1 else None, category_labels=labels)


def _scipy_power(n: int, broke_p: float, fixed_p: float, level: float) -> float:
    """Exact power from scipy, independently: m ~ Bin(n, b + c) discordant pairs, the test rejects when the
    broke count k has P(Bin(m, 1/2) >= k) <= level."""
    total = 0.0
    share = broke_p / (broke_p + fixed_p)
    for m in range(n + 1):
        ks = np.arange(m + 1)
        reject = stats.binom.sf(ks - 1, m, 0.5) <= level * (1 + 1e-9)
        if reject.any():
            k = int(ks[reject][0])
            total += stats.binom.pmf(m, n, broke_p + fixed_p) * stats.binom.sf(k - 1, m, share)
    return total


@pytest.mark.parametrize(("categories", "correction", "level"), [
    (1, "holm", 0.05),
    (9, "holm", 0.025),  # alpha w / W for the overall test at Holm's first step (1 of 1 + 9 x 1/9)
    (9, "none", 0.05),
])
def test_the_detectable_drop_has_the_wanted_exact_power_at_the_family_level(categories, correction, level):
    base, cand, codes = _pairs(300, 12, 10, 30, categories)
    power = _plan(base, cand, codes, categories, correction=correction).power
    assert power.method == "exact McNemar power" and power.level == pytest.approx(level)
    p0, churn = 270 / 300, 22 / 300
    at = _scipy_power(300, *regression_cells(p0, churn, power.mde), level)
    below = _scipy_power(300, *regression_cells(p0, churn, power.mde - 0.002), level)
    assert at >= 0.8 > below


def test_the_family_costs_detection():
    base, cand, _ = _pairs(300, 12, 10, 30, 9)
    codes = np.where(np.arange(300) < 60, 0, 1 + np.arange(300) % 8)  # every change falls in c0
    alone = _plan(base, cand, codes, 1, correction="holm").power.mde
    family = _plan(base, cand, codes, 9, correction="holm").power.mde
    discrete = _plan(base, cand, codes, 9).power
    assert alone < discrete.mde < family
    assert 0.005 < discrete.level < 0.05


def test_discrete_holm_leaves_the_whole_level_when_no_category_can_change():
    # No discordant pair in any category: they spend nothing, the overall test keeps alpha (weighted Holm: alpha
    # times the overall's weight 1 over the family's 2, the categories sharing one).
    same = np.r_[np.ones(270), np.zeros(30)]
    codes = np.arange(300) % 9
    assert _plan(same, same, codes, 9).power.level == 0.05
    assert _plan(same, same, codes, 9, correction="holm").power.level == pytest.approx(0.025)
    # Two changed cases per category (floor 0.25): still nothing spent below 0.05.
    base, cand, codes = _pairs(300, 9, 9, 30, 9)
    assert _plan(base, cand, codes, 9).power.level == 0.05


def test_three_cases_nothing_detectable_and_no_change_is_not_zero_points():
    tiny = _plan(np.ones(3), np.ones(3), None, 1).power
    assert tiny.undetectable == "floor" and math.isnan(tiny.mde)
    assert power_sentence(tiny, "nan points", "").startswith("nothing is detectable: the overall test's smallest")
    # Nothing changed on 400 cases: the old normal formula said "0.0 points"; the exact drop is positive.
    still = _plan(np.r_[np.ones(360), np.zeros(40)], np.r_[np.ones(360), np.zeros(40)], None, 1).power
    assert still.mde > 0.005 and not still.undetectable


def test_the_sentence_names_the_level_and_the_method():
    p = Power(0.049, 0.2, 1.0, 0.8, 0.05, 0.005, "exact McNemar power", "")
    text = power_sentence(p, "4.9 points", " at the level 0.005 the family leaves it")
    assert text == ("at 80% power at the level 0.005 the family leaves it the overall test detects a true drop "
                    "of 4.9 points (exact McNemar power)")
    assert power_sentence(Power(math.nan, 0.2, 1.0, 0.8, 0.05, 0.005, "exact McNemar power", "infeasible"),
                          "", "").startswith("nothing is detectable at 80% power")


def test_above_the_exact_limit_the_normal_formula_stands_in_near_the_exact_drop():
    from releasegate.analyze.family import EXACT_POWER_MAX_CASES
    from releasegate.stats.power import minimum_detectable_drop

    n = EXACT_POWER_MAX_CASES
    base, cand, codes = _pairs(n, n // 40, n // 40, n // 10)  # 5% of cases changed, pass rate 0.9
    at_limit = _plan(base, cand, codes, 1).power
    assert at_limit.method == "exact McNemar power"
    above = _plan(*_pairs(n + 1, n // 40, n // 40, n // 10), 1).power
    # The O(n^2) search would take hours at a million cases: one case over the limit, the normal formula.
    assert above.method == "normal approximation" and above.level == at_limit.level
    # 250 broke, none fixed, of 5,001: d = -1 on 250 cases, so sd = sqrt(250 / 5,001 - (250 / 5,001)^2).
    share = 250 / (n + 1)
    worse = _plan(*_pairs(n + 1, 250, 0, n // 10), 1).power
    assert worse.sd_of_difference == pytest.approx(math.sqrt(share - share * share))
    exact = minimum_detectable_drop(n + 1, 0.9, 0.05, at_limit.level, 0.8).drop
    assert abs(above.mde - exact) < 0.001  # within a tenth of a point at the limit


def test_one_case_is_read_by_the_exact_power_and_nothing_is_detectable():
    # One case: the exact test's floor 2^-1 is above any level, so no drop is detectable (the normal formula
    # would give a number).
    power = _plan(*_pairs(1, 1, 0, 0), 1).power
    assert power.method == "exact McNemar power" and math.isnan(power.mde)


@pytest.mark.parametrize(("broke", "fixed", "fails", "p0"), [(0, 360, 360, 0.1), (360, 0, 40, 0.9)])
def test_the_churn_the_exact_power_reads_is_at_most_twice_the_rarer_outcome(broke, fixed, fails, p0):
    from releasegate.stats.power import minimum_detectable_drop

    # Baseline pass rate 0.1 (0.9) and 360 of 400 cases fixed (broke): 90% changed, but a release of that pass
    # rate can change at most 2 x 0.1 of its cases both ways alike, so the power is that of a 20% churn.
    base, cand, codes = _pairs(400, broke, fixed, fails)
    plan = _plan(base, cand, codes, 1)
    expected = minimum_detectable_drop(400, p0, 0.2, plan.power.level, 0.8).drop
    assert plan.power.method == "exact McNemar power" and expected is not None
    assert plan.power.mde == pytest.approx(expected, abs=1e-12)
    assert plan.power.sd_of_difference == pytest.approx(0.3)  # d = +-1 on 90% of the cases: sqrt(0.9 - 0.9^2)
