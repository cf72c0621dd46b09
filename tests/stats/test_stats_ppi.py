"""PPI++ for a judged pass rate and for the paired difference of two releases, against the authors' own
package (ppi_py: ppi_mean_pointestimate, ppi_mean_ci, _calc_lam_glm; its values frozen in ppi_py_values.py by
scripts/ppi_py_reference.py, since importing ppi_py costs 5 s of numba) and against properties: lam = 0 is the
classical estimate on the gold sample, a perfect judge gives the gold figures on every case, no gold labels
claim nothing, and the intervals cover in simulation (both designs)."""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from releasegate.stats.ppi import (
    gold_labels_for_width,
    power_tuned_lambda,
    ppi_difference_test,
    ppi_mean,
    ppi_paired_difference,
    predicted_ppi_se,
    shows_no_judge_error,
)

# The cases compared with ppi_py (scripts/ppi_py_reference.py computes its values for exactly these).
MEAN_CASES = [(seed, n) for n in (40, 150, 400) for seed in (1, 2, 3)]
FIXED_LAMBDAS = [0.0, 0.5, 1.0]
PAIRED_CASES = [(seed, n) for n in (50, 150) for seed in (1, 4, 9)]


def _suite(seed: int, n_cases: int = 1000, fpr_b: float = 0.1, fpr_c: float = 0.4, tpr: float = 0.9):
    """True outcomes (0.80 baseline, 0.75 candidate, paired) and a judge with the given error rates."""
    rng = np.random.default_rng(seed)
    u = rng.random(n_cases)
    yb = (u < 0.80).astype(float)  # both pass 0.70, baseline only 0.10, candidate only 0.05, neither 0.15
    yc = ((u < 0.70) | ((u >= 0.80) & (u < 0.85))).astype(float)
    fb = np.where(yb == 1, rng.random(n_cases) < tpr, rng.random(n_cases) < fpr_b).astype(float)
    fc = np.where(yc == 1, rng.random(n_cases) < tpr, rng.random(n_cases) < fpr_c).astype(float)
    return rng, yb, yc, fb, fc


def _sample(rng, n_cases: int, n: int) -> np.ndarray:
    mask = np.zeros(n_cases, bool)
    mask[rng.choice(n_cases, n, replace=False)] = True
    return mask


def _ppi_py():
    """ppi_py's values, as scripts/ppi_py_reference.py wrote them beside this file."""
    path = Path(__file__).with_name("ppi_py_values.py")
    spec = importlib.util.spec_from_file_location("ppi_py_values", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("seed, n", MEAN_CASES)
def test_ppi_mean_matches_ppi_py(seed, n):
    rng, yb, _, fb, _ = _suite(seed)
    lab = _sample(rng, yb.size, n)
    r = ppi_mean(yb[lab], fb[lab], fb[~lab], 0.95)
    estimate, low, high, lam = _ppi_py().MEAN[(seed, n)]
    assert r.estimate == pytest.approx(estimate, abs=1e-12)
    assert (r.low, r.high) == pytest.approx((low, min(high, 1.0)), abs=1e-12)
    assert r.lam == pytest.approx(lam, abs=1e-12)


@pytest.mark.parametrize("lam", FIXED_LAMBDAS)
def test_ppi_mean_fixed_lambda_matches_ppi_py(lam):
    rng, yb, _, fb, _ = _suite(5)
    lab = _sample(rng, yb.size, 120)
    r = ppi_mean(yb[lab], fb[lab], fb[~lab], 0.90, lam=lam)
    assert (r.low, r.high) == pytest.approx(_ppi_py().FIXED_LAMBDA[lam], abs=1e-12)


@pytest.mark.parametrize("seed, n", PAIRED_CASES)
def test_paired_difference_is_ppi_py_on_the_per_case_differences(seed, n):
    rng, yb, yc, fb, fc = _suite(seed)
    lab = _sample(rng, yb.size, n)
    d = ppi_paired_difference(fb, fc, np.where(lab, yb, np.nan), np.where(lab, yc, np.nan))
    assert d.design == "paired" and d.paired_cases == n and d.lam_baseline == d.lam_candidate
    estimate, low, high = _ppi_py().PAIRED[(seed, n)]
    assert d.estimate == pytest.approx(estimate, abs=1e-12)
    assert (d.low, d.high) == pytest.approx((low, high), abs=1e-12)


def test_lambda_zero_is_the_classical_estimate_on_the_gold_sample():
    rng, yb, yc, fb, fc = _suite(3)
    lab = _sample(rng, yb.size, 150)
    r = ppi_mean(yb[lab], fb[lab], fb[~lab], lam=0.0)
    assert r.estimate == pytest.approx(yb[lab].mean()) == pytest.approx(r.classical)
    assert r.se == pytest.approx(yb[lab].std() / math.sqrt(150)) == pytest.approx(r.classical_se)
    d = ppi_paired_difference(fb, fc, np.where(lab, yb, np.nan), np.where(lab, yc, np.nan), lam=0.0)
    diff = yc[lab] - yb[lab]
    assert d.estimate == pytest.approx(diff.mean()) == pytest.approx(d.classical)
    assert d.se == pytest.approx(diff.std() / math.sqrt(150)) == pytest.approx(d.classical_se)


def test_a_perfect_judge_gives_the_gold_figures_on_every_case():
    """With judge = truth and lam = N / (n + N) the two parts are one mean: the estimate is the true rate over
    every case, with the classical standard error of every case labelled. The tuned lam is that value up to
    ppi_py's divisors and the sample's own variance, so the tuned estimate is within 1e-3."""
    rng, yb, yc, _, _ = _suite(8)
    lab = _sample(rng, yb.size, 100)
    r = ppi_mean(yb[lab], yb[lab], yb[~lab], lam=900 / 1000)
    assert r.estimate == pytest.approx(yb.mean(), abs=1e-12)
    assert r.se == pytest.approx(yb.std() / math.sqrt(1000), rel=0.01)
    tuned = ppi_mean(yb[lab], yb[lab], yb[~lab])
    assert tuned.lam == pytest.approx(0.9, abs=0.02) and tuned.estimate == pytest.approx(yb.mean(), abs=1e-3)
    d = ppi_paired_difference(yb, yc, np.where(lab, yb, np.nan), np.where(lab, yc, np.nan), lam=0.9)
    assert d.estimate == pytest.approx((yc - yb).mean(), abs=1e-12)
    assert d.se == pytest.approx((yc - yb).std() / math.sqrt(1000), rel=0.02)
    # Tuned: the gold differences of the labelled and the other cases weighted (1 - lam, lam), near lam = 0.9.
    tuned = ppi_paired_difference(yb, yc, np.where(lab, yb, np.nan), np.where(lab, yc, np.nan))
    lam, z = tuned.lam_baseline, yc - yb
    assert tuned.estimate == pytest.approx((1 - lam) * z[lab].mean() + lam * z[~lab].mean(), abs=1e-12)
    assert lam == pytest.approx(0.9, abs=0.05)


def test_every_case_labelled_is_the_classical_figure():
    _, yb, yc, fb, fc = _suite(2, n_cases=300)
    d = ppi_paired_difference(fb, fc, yb, yc)
    assert d.lam_baseline == 0.0 and d.estimate == pytest.approx((yc - yb).mean())
    assert d.se == pytest.approx((yc - yb).std() / math.sqrt(300))


def test_no_gold_labels_claim_nothing():
    _, yb, yc, fb, fc = _suite(2, n_cases=100)
    none = np.full(100, np.nan)
    d = ppi_paired_difference(fb, fc, none, none)
    assert not d.defined and all(math.isnan(v) for v in (d.estimate, d.low, d.high, d.se))
    one = np.where(np.arange(100) == 0, yb, np.nan)
    assert not ppi_paired_difference(fb, fc, one, one).defined
    r = ppi_mean(yb[:1], fb[:1], fb[1:])
    assert not r.defined and math.isnan(r.low)


def test_a_constant_judge_borrows_nothing():
    assert power_tuned_lambda(np.array([0, 1, 1.0]), np.ones(3), np.ones(10)) == 0.0


def test_per_release_design_variance_matches_the_estimators_spread():
    """Gold labels drawn per release independently (partly shared cases): the pattern variance is the
    Monte Carlo variance of the estimate over resampled suites and gold samples, and the interval covers."""
    sds, ses, covered = [], [], 0
    reps = 600
    for seed in range(reps):
        rng, yb, yc, fb, fc = _suite(1000 + seed, n_cases=600)
        lb, lc = _sample(rng, 600, 100), _sample(rng, 600, 100)
        d = ppi_paired_difference(fb, fc, np.where(lb, yb, np.nan), np.where(lc, yc, np.nan))
        assert d.design == "per_release"
        sds.append(d.estimate)
        ses.append(d.se)
        covered += d.low <= -0.05 <= d.high
    assert np.mean(sds) == pytest.approx(-0.05, abs=0.006)  # unbiased
    assert np.mean(ses) == pytest.approx(np.std(sds), rel=0.1)
    assert 0.925 <= covered / reps <= 0.975


def test_paired_design_covers_the_true_difference():
    """1,000 simulated suites of 1,000 cases, 100 paired gold labels, the issue's unequal judge (FPR 0.1 on the
    baseline, 0.4 on the candidate): the 95% interval covers the true -0.05 (measured 94.6%; the bound is
    2.8 Monte Carlo standard errors below 95%)."""
    covered = 0
    reps = 1000
    for seed in range(reps):
        rng, yb, yc, fb, fc = _suite(5000 + seed)
        lab = _sample(rng, 1000, 100)
        d = ppi_paired_difference(fb, fc, np.where(lab, yb, np.nan), np.where(lab, yc, np.nan))
        covered += d.low <= -0.05 <= d.high
    assert 0.93 <= covered / reps <= 0.97


def test_predicted_se_closed_form_and_plan():
    var_gold, var_judge, cov, n_cases = 0.16, 0.2, 0.12, 1000
    rho2 = cov * cov / (var_gold * var_judge)
    n = np.array([50, 200, 600])
    # Unclipped lam: the optimum's closed form var_gold ((1 - rho^2)/n + rho^2/N).
    expected = np.sqrt(var_gold * ((1 - rho2) / n + rho2 / n_cases))
    assert predicted_ppi_se(var_gold, var_judge, cov, n_cases, n) == pytest.approx(expected, rel=1e-12)
    plan = gold_labels_for_width(var_gold, var_judge, cov, n_cases, 100, target_width=0.08)
    z = 1.959963984540054
    assert plan.reachable and plan.more == plan.needed - 100
    assert 2 * z * predicted_ppi_se(var_gold, var_judge, cov, n_cases, plan.needed) <= 0.08
    assert 2 * z * predicted_ppi_se(var_gold, var_judge, cov, n_cases, plan.needed - 1) > 0.08
    floor = 2 * z * math.sqrt(var_gold / n_cases)
    assert plan.width_all == pytest.approx(floor)
    unreachable = gold_labels_for_width(var_gold, var_judge, cov, n_cases, 100, target_width=floor * 0.99)
    assert not unreachable.reachable and unreachable.needed is None


def test_plan_predicts_the_measured_width():
    """The plan's predicted width at n labels is the width the estimator gives at n (same suite)."""
    rng, yb, yc, fb, fc = _suite(21, n_cases=2000)
    z, g = yc - yb, fc - fb
    predicted = 2 * 1.959963984540054 * predicted_ppi_se(z.var(), g.var(), float(np.mean((z - z.mean()) * (g - g.mean()))),
                                                         2000, 300)
    widths = []
    for _ in range(200):
        lab = _sample(rng, 2000, 300)
        d = ppi_paired_difference(fb, fc, np.where(lab, yb, np.nan), np.where(lab, yc, np.nan))
        widths.append(d.high - d.low)
    assert np.mean(widths) == pytest.approx(predicted, rel=0.05)


def test_gold_labels_that_show_the_judge_no_error_give_no_figure_the_rules_read():
    """Every label agrees with the judge: the variance holds none of the judge's error (its standard error is
    the judge-only cases' alone, not 0), so the figure is degenerate and its tests undefined, in both designs;
    one label that shows the judge wrong lifts it."""
    rng, yb, yc, _, _ = _suite(11)
    lab = _sample(rng, yb.size, 40)
    gb, gc = np.where(lab, yb, np.nan), np.where(lab, yc, np.nan)
    paired = ppi_paired_difference(yb, yc, gb, gc)  # the judge is the truth
    assert paired.design == "paired" and paired.se > 0 and paired.degenerate
    assert not ppi_difference_test(paired, 0.05).defined
    dropped = gb.copy()
    dropped[np.flatnonzero(lab)[0]] = np.nan
    per_release = ppi_paired_difference(yb, yc, dropped, gc)
    assert per_release.design == "per_release" and per_release.se > 0 and per_release.degenerate
    for wrong in (gb, gc):  # one label the judge got wrong, on either release
        k = np.flatnonzero(lab)[1]
        fixed = wrong.copy()
        fixed[k] = 1 - fixed[k]
        args = (fixed, gc) if wrong is gb else (gb, fixed)
        assert not shows_no_judge_error(yb, yc, *args)
        assert not ppi_paired_difference(yb, yc, *args).degenerate
    # Swapping the releases changes nothing of it.
    assert shows_no_judge_error(yc, yb, gc, dropped) and shows_no_judge_error(yc, yb, gc, gb)


def test_no_judge_error_reads_each_designs_own_rectifier():
    """Paired: the human's per-case difference less the judge's, so a judge wrong the same way on both releases
    of a case shows no error of the difference; per release: each release's own, which shows it. With runs the
    values are means over runs, and an equal shift is no spread."""
    fb, fc = np.array([1.0, 0, 1, 0, 1]), np.array([1.0, 1, 0, 0, 1])
    gb, gc = fb.copy(), fc.copy()
    gb[0] = gc[0] = 0.0  # the judge passed case 0 on both releases; the human failed it on both
    assert shows_no_judge_error(fb, fc, gb, gc)
    gc_release = gc.copy()
    gc_release[4] = np.nan  # per release now
    assert not shows_no_judge_error(fb, fc, gb, gc_release)
    means = np.array([0.5, 1.0, 0.0, 0.5])
    assert shows_no_judge_error(means, means, means, means)
    assert not shows_no_judge_error(means, means, means, np.array([0.5, 1.0, 0.0, 1.0]))


def test_a_rate_whose_gold_labels_show_the_judge_no_error_is_degenerate():
    """One release's rate: every label agrees with the judge, so Y - f has no spread and the variance holds only
    the judge-only cases' sampling (its standard error is not 0): degenerate, as the difference is on the same
    labels (shows_no_judge_error per release); one label that shows the judge wrong lifts it. The estimate and
    interval themselves are unchanged (ppi_py's, above)."""
    rng, yb, _, _, _ = _suite(11)
    lab = _sample(rng, yb.size, 40)
    agreeing = ppi_mean(yb[lab], yb[lab], yb[~lab])
    assert agreeing.se > 0 and agreeing.degenerate
    assert shows_no_judge_error(yb, yb, np.where(lab, yb, np.nan), np.where(lab, yb, np.nan))
    gold = yb[lab].copy()
    gold[0] = 1 - gold[0]
    wrong = ppi_mean(gold, yb[lab], yb[~lab])
    assert wrong.se > 0 and not wrong.degenerate
    # A judge wrong by the same amount on every labelled case (means over runs) shows no spread either.
    shifted = ppi_mean(np.array([0.5, 1.0, 0.5]), np.array([0.0, 0.5, 0.0]), np.array([1.0, 0.0]))
    assert shifted.degenerate
    # A judge with an ordinary error rate is no such case.
    _, yb, _, fb, _ = _suite(3)
    assert not ppi_mean(yb[lab], fb[lab], fb[~lab]).degenerate


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 1), st.integers(0, 1)), min_size=2, max_size=30),
       st.lists(st.integers(0, 1), min_size=0, max_size=30))
def test_a_rate_is_degenerate_exactly_when_its_se_is_0_or_its_labels_show_no_judge_error(pairs, others):
    y = np.array([p[0] for p in pairs], float)
    f = np.array([p[1] for p in pairs], float)
    r = ppi_mean(y, f, np.array(others, float))
    assert r.degenerate == (r.se == 0.0 or bool(np.all(y - f == (y - f)[0])))
