"""The judge against gold labels: TPR and FPR (Wilson), Youden's J (Newcombe's hybrid score interval) and
Cohen's kappa (Fleiss, Cohen & Everitt's standard error), against statsmodels' own functions and exact values;
the difference between two releases against statsmodels (no shared units) and a case bootstrap (paired)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from statsmodels.stats.inter_rater import cohens_kappa as sm_kappa
from statsmodels.stats.proportion import confint_proportions_2indep, proportion_confint

from releasegate.stats.judge_agreement import cohens_kappa, judge_agreement, judge_difference


def _labels(tp: int, fn: int, fp: int, tn: int) -> tuple[np.ndarray, np.ndarray]:
    gold = np.array([1] * (tp + fn) + [0] * (fp + tn), float)
    judge = np.array([1] * tp + [0] * fn + [1] * fp + [0] * tn, float)
    return gold, judge


TABLES = [(90, 10, 20, 80), (45, 5, 30, 20), (12, 3, 1, 9), (130, 2, 4, 14), (7, 7, 7, 7), (60, 0, 0, 40)]


@pytest.mark.parametrize("table", TABLES, ids=str)
def test_tpr_fpr_and_j_match_statsmodels(table):
    tp, fn, fp, tn = table
    r = judge_agreement(*_labels(*table))
    assert (r.positives, r.negatives, r.true_positives, r.false_positives) == (tp + fn, fp + tn, tp, fp)
    assert (r.tpr.low, r.tpr.high) == pytest.approx(proportion_confint(tp, tp + fn, method="wilson"), abs=1e-12)
    assert (r.fpr.low, r.fpr.high) == pytest.approx(proportion_confint(fp, fp + tn, method="wilson"), abs=1e-12)
    assert r.youden.estimate == pytest.approx(tp / (tp + fn) - fp / (fp + tn))
    low, high = confint_proportions_2indep(tp, tp + fn, fp, fp + tn, method="newcomb", compare="diff")
    assert (r.youden.low, r.youden.high) == pytest.approx((max(low, -1), min(high, 1)), abs=1e-12)


@pytest.mark.parametrize("table", TABLES[:-1], ids=str)
def test_kappa_matches_statsmodels(table):
    tp, fn, fp, tn = table
    # statsmodels' table: rows are the first rater (gold), columns the second (judge), category 0 first.
    ref = sm_kappa(np.array([[tn, fp], [fn, tp]]), return_results=True)
    r = judge_agreement(*_labels(*table)).kappa
    assert r.estimate == pytest.approx(ref.kappa, abs=1e-12)
    assert r.se == pytest.approx(ref.std_kappa, abs=1e-12)
    assert (r.low, r.high) == pytest.approx((max(ref.kappa_low, -1), min(ref.kappa_upp, 1)), abs=1e-12)


def test_a_perfect_judge_has_j_one_and_kappa_one():
    r = judge_agreement(*_labels(60, 0, 0, 40))
    assert r.youden.estimate == 1.0 and r.kappa.estimate == pytest.approx(1.0) and r.kappa.se == pytest.approx(0)
    assert r.tpr.high == 1.0 and r.fpr.low == 0.0 and r.youden.high == 1.0


def test_kappa_by_hand():
    # 2x2 table (gold x judge) 40 10 / 5 45: po = 0.85, pe = 0.45*0.5 + 0.55*0.5 = 0.5, kappa = 0.7.
    gold, judge = _labels(45, 5, 10, 40)
    assert cohens_kappa(gold, judge).estimate == pytest.approx(0.7)


def test_one_class_only_is_not_measured():
    r = judge_agreement(np.ones(30), np.r_[np.ones(25), np.zeros(5)])
    assert not r.defined and r.negatives == 0
    assert math.isnan(r.fpr.estimate) and math.isnan(r.youden.estimate) and math.isnan(r.kappa.estimate)
    assert (r.youden.low, r.youden.high) == (-1.0, 1.0)


def test_non_binary_labels_are_refused():
    with pytest.raises(ValueError):
        judge_agreement(np.array([0, 1, 0.5]), np.array([0, 1, 1]))


def test_difference_without_shared_units_is_newcombe_independent():
    gb, jb = _labels(90, 10, 10, 90)
    gc, jc = _labels(85, 15, 40, 60)
    nan = np.full(200, np.nan)
    # Baseline labels on the first 200 units, the candidate's on the next 200: no unit shared.
    d = judge_difference(np.r_[gb, nan], np.r_[jb, nan], np.r_[nan, gc], np.r_[nan, jc])
    assert d.shared_units == 0 and d.fpr.correlation == 0.0
    low, high = confint_proportions_2indep(40, 100, 10, 100, method="newcomb", compare="diff")
    assert d.fpr.estimate == pytest.approx(0.3)
    assert (d.fpr.low, d.fpr.high) == pytest.approx((low, high), abs=1e-12)
    low, high = confint_proportions_2indep(85, 100, 90, 100, method="newcomb", compare="diff")
    assert (d.tpr.low, d.tpr.high) == pytest.approx((low, high), abs=1e-12)
    assert d.youden.estimate == pytest.approx((0.85 - 0.4) - (0.9 - 0.1))


def test_paired_correlation_matches_a_case_bootstrap():
    """The delta-method correlation of the two releases' J on shared cases is the correlation of the two
    estimates over case resamples (an independent computation), within Monte Carlo error."""
    rng = np.random.default_rng(7)
    n = 400
    hard = rng.random(n) < 0.3  # hard cases fool the judge on both releases: the estimates correlate
    gb = (rng.random(n) < 0.7).astype(float)
    gc = np.where(rng.random(n) < 0.8, gb, 1 - gb)
    miss = np.where(hard, 0.45, 0.05)
    jb = np.where(rng.random(n) < miss, 1 - gb, gb)
    jc = np.where(rng.random(n) < miss, 1 - gc, gc)
    d = judge_difference(gb, jb, gc, jc)
    boot = []
    for _ in range(3000):
        i = rng.integers(0, n, n)
        a, b = judge_agreement(gb[i], jb[i]), judge_agreement(gc[i], jc[i])
        boot.append((a.youden.estimate, b.youden.estimate))
    expected = np.corrcoef(np.array(boot).T)[0, 1]
    assert d.youden.correlation > 0.2
    assert d.youden.correlation == pytest.approx(expected, abs=0.06)


def test_difference_coverage_with_paired_labels():
    """95% intervals of the J difference cover the true difference in about 95% of simulated samples."""
    rng = np.random.default_rng(11)
    n, reps, covered = 300, 400, 0
    for _ in range(reps):
        gb = (rng.random(n) < 0.8).astype(float)
        gc = np.where(rng.random(n) < 0.85, gb, 1 - gb)
        jb = np.where(gb == 1, rng.random(n) < 0.9, rng.random(n) < 0.1).astype(float)
        jc = np.where(gc == 1, rng.random(n) < 0.9, rng.random(n) < 0.4).astype(float)
        d = judge_difference(gb, jb, gc, jc)
        covered += d.youden.low <= -0.3 <= d.youden.high
    assert 0.92 <= covered / reps <= 0.985


def test_difference_is_undefined_when_a_release_has_one_class():
    g = np.ones(20)
    d = judge_difference(g, g, np.r_[np.ones(10), np.zeros(10)], np.ones(20))
    assert not d.youden.defined and math.isnan(d.youden.estimate) and (d.youden.low, d.youden.high) == (-2, 2)
