"""Prediction-powered inference (PPI++) for a judged pass rate and for the paired difference of two releases.

The judge labels every case; humans label a random sample (the gold labels). PPI++ (Angelopoulos, Duchi &
Zrnic 2023, "PPI++: Efficient Prediction-Powered Inference", arXiv:2311.01453) estimates the true mean as

    theta(lam) = mean_labelled(Y - lam f) + lam mean_unlabelled(f),

unbiased for any fixed lam (the gold sample corrects the judge's bias), with the variance
lam^2 Var(f)/N + Var(Y - lam f)/n (n labelled cases, N unlabelled ones: the cases without a gold label, which
are an independent sample of the same cases when the gold sample is drawn at random). lam is tuned for power
from the data (the paper's eq. 7 for a mean, as ``ppi_py``'s ``_calc_lam_glm`` computes it: the labelled
covariance of Y and f over (1 + n/N) times the variance of f on every case, clipped to [0, 1]); lam = 0 is the
classical estimate on the gold sample alone, lam = 1 the original PPI (Angelopoulos et al. 2023, Science
382:669). The interval is the normal one, estimate +- z SE, clipped to the parameter's range.

The paired difference (candidate - baseline). When both releases' gold labels cover the same cases (the
paired design, the one to use) it is PPI++ for the mean of the per-case difference Z = Y_cand - Y_base with
the prediction g = f_cand - f_base: pairing removes the between-case variance that both releases share, as the
raw comparison's McNemar test and Newcombe interval do, and one lam is tuned for the figure that is gated on.
When the gold labels were sampled per release (different or partly shared cases) it is each release's own
PPI++ estimate, differenced, with a variance that keeps the covariance the two estimates get from the cases
they share (labelled on both, on one, or on neither): the estimate's first-order expansion is a sum of one
term per case whose form depends on which releases labelled the case, and the variance is the sum over the
four labelling patterns of (cases in the pattern) x (their terms' variance). In the paired design with one
lam this is exactly the PPI++ variance above.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from releasegate.stats.common import check_confidence
from releasegate.stats.distributions import normal_cdf
from releasegate.stats.proportions import two_sided_z

# Below this many gold labels a normal interval is not claimed (the figure is undefined, nothing is read).
MIN_LABELLED = 2


@dataclass(frozen=True)
class PPIEstimate:
    """A prediction-powered estimate of a mean (a pass rate) and its interval.

    ``lam`` is the power-tuning parameter used; ``classical`` and ``classical_se`` are the gold sample's own
    mean and standard error (lam = 0). ``defined`` is False below ``MIN_LABELLED`` gold labels (every figure
    NaN: nothing is claimed); ``degenerate`` is True when the standard error is 0 (no spread in the sample:
    the interval has no width and says nothing about what a larger sample would show), and when the gold labels
    show no error of the judge's (the human's value less the judge's has no spread on them, as
    :func:`shows_no_judge_error` reads one release): the variance then holds nothing of the judge's error, only
    the judge-only cases' sampling, as :class:`PPIDifference`'s does.
    """

    estimate: float
    se: float
    low: float
    high: float
    confidence: float
    lam: float
    n_labelled: int
    n_unlabelled: int
    classical: float
    classical_se: float
    defined: bool
    degenerate: bool


@dataclass(frozen=True)
class PPIDifference:
    """The prediction-powered paired difference, candidate - baseline, and its interval.

    ``design`` is "paired" (both releases labelled on the same cases: PPI++ on the per-case difference, one
    ``lam``) or "per_release" (each release's own estimate and ``lam``); ``paired_cases`` counts the cases
    labelled on both releases. ``classical`` is the gold sample's own difference (lam = 0). ``degenerate``
    is True when the standard error is 0, and when the gold labels show no error of the judge's
    (:func:`shows_no_judge_error`): the variance then holds nothing of the judge's error, only the judge-only
    cases' sampling, and the interval is about as narrow as the judge's own (a Wald interval at the
    boundary, as a binomial one at 0 of n).
    """

    estimate: float
    se: float
    low: float
    high: float
    confidence: float
    design: str
    lam_baseline: float
    lam_candidate: float
    n_cases: int
    labelled_baseline: int
    labelled_candidate: int
    paired_cases: int
    classical: float
    classical_se: float
    defined: bool
    degenerate: bool


def _floats(x: ArrayLike, name: str) -> np.ndarray:
    arr = np.asarray(x, dtype=np.float64)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {arr.shape}")
    return arr


def power_tuned_lambda(gold: ArrayLike, judge_labelled: ArrayLike, judge_unlabelled: ArrayLike) -> float:
    """PPI++'s lam for a mean (Angelopoulos, Duchi & Zrnic 2023, eq. 7): Cov(Y, f) on the labelled cases
    (divisor n) over (1 + n/N) Var(f) on all cases (divisor n + N - 1), clipped to [0, 1], as ppi_py computes
    it. 0 without unlabelled cases (nothing to borrow) or when the judge's labels do not vary."""
    y, f, fu = _floats(gold, "gold"), _floats(judge_labelled, "judge_labelled"), _floats(judge_unlabelled,
                                                                                          "judge_unlabelled")
    n, m = y.size, fu.size
    if m == 0 or n < 2:
        return 0.0
    cov = float(np.mean((y - y.mean()) * (f - f.mean())))
    var = float(np.var(np.concatenate([f, fu]), ddof=1))
    if var <= 0.0:
        return 0.0
    return float(np.clip(cov / ((1.0 + n / m) * var), 0.0, 1.0))


def _interval(estimate: float, se: float, confidence: float, bound: tuple[float, float]) -> tuple[float, float]:
    z = two_sided_z(confidence)
    return max(bound[0], estimate - z * se), min(bound[1], estimate + z * se)


def ppi_mean(gold: ArrayLike, judge_labelled: ArrayLike, judge_unlabelled: ArrayLike,
             confidence: float = 0.95, lam: float | None = None,
             bound: tuple[float, float] = (0.0, 1.0)) -> PPIEstimate:
    """PPI++ estimate of a mean with its normal interval (module docstring), the same point estimate and
    interval as ``ppi_py.ppi_mean_pointestimate`` / ``ppi_mean_ci`` before the clip to ``bound``.

    ``gold`` and ``judge_labelled`` are the human's and the judge's values on the gold-labelled cases,
    ``judge_unlabelled`` the judge's on the other cases; ``lam`` None tunes it (:func:`power_tuned_lambda`).
    """
    confidence = check_confidence(confidence)
    y, f, fu = _floats(gold, "gold"), _floats(judge_labelled, "judge_labelled"), _floats(judge_unlabelled,
                                                                                          "judge_unlabelled")
    if y.size != f.size:
        raise ValueError("gold and judge_labelled must have the same length")
    n, m = y.size, fu.size
    if n < MIN_LABELLED:
        nan = math.nan
        return PPIEstimate(nan, nan, nan, nan, confidence, nan, n, m, nan, nan, False, False)
    if lam is None:
        lam = power_tuned_lambda(y, f, fu)
    lam = 0.0 if m == 0 else float(lam)
    imputed = lam * float(fu.mean()) if m else 0.0
    estimate = float(np.mean(y - lam * f)) + imputed
    variance = float(np.var(y - lam * f)) / n + (lam * lam * float(np.var(fu)) / m if m else 0.0)
    se = math.sqrt(max(variance, 0.0))
    low, high = _interval(estimate, se, confidence, bound)
    classical_se = float(np.std(y)) / math.sqrt(n)
    return PPIEstimate(estimate, se, low, high, confidence, lam, n, m, float(y.mean()), classical_se, True,
                       se == 0.0 or _constant(y - f))


def _pattern_variance(terms: np.ndarray, labelled_b: np.ndarray, labelled_c: np.ndarray) -> float:
    """Sum over the four labelling patterns of (cases in it) x (variance of their terms, divisor = count)."""
    total = 0.0
    for pb in (False, True):
        for pc in (False, True):
            sel = (labelled_b == pb) & (labelled_c == pc)
            k = int(sel.sum())
            if k:
                total += k * float(np.var(terms[sel]))
    return total


def _terms(judge: np.ndarray, gold: np.ndarray, labelled: np.ndarray, lam: float) -> tuple[np.ndarray, float]:
    """One release's estimate and the per-case terms of its first-order expansion (their sum is the
    estimate): labelled cases (Y - lam f)/n, the others lam f/N."""
    n, m = int(labelled.sum()), int((~labelled).sum())
    terms = np.zeros(judge.size)
    terms[labelled] = (gold[labelled] - lam * judge[labelled]) / n
    if m:
        terms[~labelled] = lam * judge[~labelled] / m
    return terms, float(terms.sum())


def ppi_paired_difference(judge_baseline: ArrayLike, judge_candidate: ArrayLike, gold_baseline: ArrayLike,
                          gold_candidate: ArrayLike, confidence: float = 0.95,
                          lam: float | None = None) -> PPIDifference:
    """PPI++ for the paired difference of two releases' true pass rates, candidate - baseline (module
    docstring: "paired" design on the per-case difference, else "per_release").

    All four arrays are aligned on the compared cases: the judge's value on every case for each release, the
    gold value where that release's case was labelled and NaN elsewhere. ``lam`` fixes the tuning parameter
    (both releases' in the per-release design); None tunes it. Undefined (nothing claimed) when either release
    has fewer than ``MIN_LABELLED`` gold labels. The interval is clipped to [-1, 1].
    """
    confidence = check_confidence(confidence)
    fb, fc = _floats(judge_baseline, "judge_baseline"), _floats(judge_candidate, "judge_candidate")
    gb, gc = _floats(gold_baseline, "gold_baseline"), _floats(gold_candidate, "gold_candidate")
    if not (fb.shape == fc.shape == gb.shape == gc.shape):
        raise ValueError("the four arrays must be aligned on the same cases")
    lb, lc = np.isfinite(gb), np.isfinite(gc)
    nb, nc, both = int(lb.sum()), int(lc.sum()), int(np.sum(lb & lc))
    paired = bool(np.array_equal(lb, lc))
    design = "paired" if paired else "per_release"
    n_cases = int(fb.size)
    if min(nb, nc) < MIN_LABELLED:
        nan = math.nan
        return PPIDifference(nan, nan, nan, nan, confidence, design, nan, nan, n_cases, nb, nc, both, nan, nan,
                             False, False)
    if lam is not None:
        lam_b = lam_c = float(lam)
    elif paired:
        z, g = gc[lc] - gb[lb], fc - fb
        lam_b = lam_c = power_tuned_lambda(z, g[lc], g[~lc])
    else:
        lam_b = power_tuned_lambda(gb[lb], fb[lb], fb[~lb])
        lam_c = power_tuned_lambda(gc[lc], fc[lc], fc[~lc])
    # A release labelled on every case has nothing to borrow from the judge: its estimate is the gold mean.
    lam_b, lam_c = (lam_b if nb < n_cases else 0.0), (lam_c if nc < n_cases else 0.0)
    terms_c, est_c = _terms(fc, gc, lc, lam_c)
    terms_b, est_b = _terms(fb, gb, lb, lam_b)
    estimate = est_c - est_b
    se = math.sqrt(max(_pattern_variance(terms_c - terms_b, lb, lc), 0.0))
    classical_terms_c, classical_c = _terms(fc, gc, lc, 0.0)
    classical_terms_b, classical_b = _terms(fb, gb, lb, 0.0)
    classical_se = math.sqrt(max(_pattern_variance(classical_terms_c - classical_terms_b, lb, lc), 0.0))
    low, high = _interval(estimate, se, confidence, (-1.0, 1.0))
    return PPIDifference(estimate, se, low, high, confidence, design, lam_b, lam_c, n_cases, nb, nc, both,
                         classical_c - classical_b, classical_se, True,
                         se == 0.0 or shows_no_judge_error(fb, fc, gb, gc))


def _constant(values: np.ndarray) -> bool:
    return values.size > 0 and float(np.ptp(values)) <= 1e-12


def shows_no_judge_error(judge_baseline: np.ndarray, judge_candidate: np.ndarray, gold_baseline: np.ndarray,
                         gold_candidate: np.ndarray) -> bool:
    """True when the gold labels measure no error of the judge's: the human's value less the judge's has no
    spread on the labelled cases (in the paired design the per-case difference's, Z - g; per release each
    release's, Y - f, on both). PPI++'s variance measures the judge's error by the spread of Y - lam f on the
    labelled cases (its rectifier): with none the standard error holds nothing of the judge's error, only the
    judge-only cases' sampling (or nothing at all: standard error 0). Measured by bench/judge_boundary.py
    (docs/judge.md): with the judge's FPR 0.02 on the baseline's answers and 0.10 on the candidate's, 40
    paired labels, the 95% interval covered the true difference in 94.2% of the samples that showed a judge
    error and in 79.6% of those that showed none."""
    lb, lc = np.isfinite(gold_baseline), np.isfinite(gold_candidate)
    if np.array_equal(lb, lc):
        return _constant((gold_candidate - gold_baseline)[lb] - (judge_candidate - judge_baseline)[lb])
    return _constant((gold_baseline - judge_baseline)[lb]) and _constant((gold_candidate - judge_candidate)[lc])


@dataclass(frozen=True)
class PPITest:
    """The tests a gate reads of a corrected difference (:func:`ppi_difference_test`): the one-sided p of "the
    candidate is worse", the two-sided p, and the two-sided (1 - 2 alpha) interval whose lower bound is the
    non-inferiority test at alpha. ``defined`` is False when the difference is undefined or degenerate (every
    figure NaN: a figure that does not exist is read by no rule)."""

    p_regression: float
    p_two_sided: float
    ni_low: float
    ni_high: float
    alpha: float
    defined: bool


def ppi_difference_test(difference: PPIDifference, alpha: float) -> PPITest:
    """Wald tests of a PPI++ difference from its estimate and standard error, as its interval is made (the
    normal limit of the PPI++ estimator, Angelopoulos, Duchi & Zrnic 2023, Theorem 1; ``ppi_py``'s
    ``ppi_mean_pval`` for a mean): one-sided p = Phi(estimate / se) against "no worse" (small when the
    candidate is worse), two-sided p = 2 min(Phi, 1 - Phi), and estimate -+ z_{1 - alpha} se clipped to
    [-1, 1]. Undefined (NaN) when the difference is undefined or its standard error is 0: a zero-width
    interval would claim the estimate exactly."""
    if not 0 < alpha < 0.5:
        raise ValueError(f"alpha must be in (0, 0.5), got {alpha!r}")
    if not difference.defined or difference.degenerate or not math.isfinite(difference.se):
        nan = math.nan
        return PPITest(nan, nan, nan, nan, alpha, False)
    z = difference.estimate / difference.se
    lower = normal_cdf(z)
    low, high = _interval(difference.estimate, difference.se, 1.0 - 2.0 * alpha, (-1.0, 1.0))
    return PPITest(lower, min(1.0, 2.0 * min(lower, 1.0 - lower)), low, high, alpha, True)


@dataclass(frozen=True)
class GoldLabelPlan:
    """How many gold-labelled cases a PPI++ interval of ``target_width`` needs, from the moments measured on
    the gold sample: ``needed`` (None when even every case labelled falls short), ``more`` beyond the
    ``labelled`` ones, the predicted width now and with every one of the ``n_cases`` labelled (the floor)."""

    target_width: float
    confidence: float
    n_cases: int
    labelled: int
    needed: int | None
    more: int | None
    width_now: float
    width_all: float
    reachable: bool
    # The moments the plan was made from (so a plan for another width is one call away: releasegate plan --gold).
    var_gold: float = math.nan
    var_judge: float = math.nan
    cov: float = math.nan


def predicted_ppi_se(var_gold: float, var_judge: float, cov: float, n_cases: int,
                     labelled: ArrayLike) -> np.ndarray:
    """The PPI++ standard error at ``labelled`` gold labels out of ``n_cases`` with the tuned lam(n) =
    clip(cov (N - n) / (N var_judge), 0, 1): sqrt((var_gold - 2 lam cov + lam^2 var_judge)/n
    + lam^2 var_judge/(N - n)). Unclipped this is sqrt(var_gold ((1 - rho^2)/n + rho^2/N)), rho the
    correlation of gold and judge values: a judge that agrees with the humans (rho near 1) lets few labels
    reach the width that the whole suite, every case labelled, would give."""
    n = np.asarray(labelled, dtype=np.float64)
    m = n_cases - n
    lam = np.clip(cov * m / (n_cases * var_judge), 0.0, 1.0) if var_judge > 0 else np.zeros_like(n)
    with np.errstate(divide="ignore", invalid="ignore"):
        borrowed = np.where(m > 0, lam * lam * var_judge / np.where(m > 0, m, 1.0), 0.0)
    return np.sqrt(np.maximum((var_gold - 2 * lam * cov + lam * lam * var_judge) / n + borrowed, 0.0))


def gold_labels_for_width(var_gold: float, var_judge: float, cov: float, n_cases: int, labelled: int,
                          target_width: float, confidence: float = 0.95) -> GoldLabelPlan:
    """The planning question (issue 35 item 5): the fewest gold-labelled cases whose PPI++ interval
    (2 z SE, :func:`predicted_ppi_se`) is no wider than ``target_width``, given the variance of the gold values
    (``var_gold``), of the judge's (``var_judge``) and their covariance as measured on the gold sample. For
    the paired difference these are the moments of the per-case differences Z and g. The moments are the
    sample's own: a plan from a small sample is as uncertain as they are."""
    confidence = check_confidence(confidence)
    if not (target_width > 0 and n_cases >= MIN_LABELLED and math.isfinite(var_gold)):
        raise ValueError("target_width must be positive, n_cases at least 2 and the moments finite")
    z = two_sided_z(confidence)
    grid = np.arange(MIN_LABELLED, n_cases + 1)
    widths = 2 * z * predicted_ppi_se(var_gold, var_judge, cov, n_cases, grid)
    now = float(2 * z * predicted_ppi_se(var_gold, var_judge, cov, n_cases, max(labelled, MIN_LABELLED)))
    ok = np.flatnonzero(widths <= target_width)
    if not ok.size:
        return GoldLabelPlan(target_width, confidence, n_cases, labelled, None, None, now, float(widths[-1]),
                             False, var_gold, var_judge, cov)
    needed = int(grid[ok[0]])
    return GoldLabelPlan(target_width, confidence, n_cases, labelled, needed, max(needed - labelled, 0), now,
                         float(widths[-1]), True, var_gold, var_judge, cov)
