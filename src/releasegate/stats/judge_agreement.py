"""An LLM judge measured against gold (human) labels: TPR, FPR, Youden's J and Cohen's kappa with intervals,
and the difference of those figures between two releases' outputs.

Orientation: a "positive" is a case the human passed (gold label 1). TPR = P(judge passes | human passes),
FPR = P(judge passes | human fails), J = TPR - FPR. A judge's pass rate tends to FPR + J x p, not to the true
rate p, so J is how much of a real difference the judge passes on, and a difference in FPR or TPR between two
releases' outputs moves the judged difference by itself (issue 35).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from releasegate.stats.common import check_confidence
from releasegate.stats.proportions import Interval, two_sided_z, wilson_interval


@dataclass(frozen=True)
class Kappa:
    """Cohen's kappa with its large-sample standard error and normal interval (clipped to [-1, 1])."""

    estimate: float
    se: float
    low: float
    high: float
    confidence: float


@dataclass(frozen=True)
class JudgeAgreement:
    """One release's judge against its gold labels on ``n`` labelled units (cases, or case runs).

    ``positives`` are the units the human passed, ``negatives`` those the human failed; ``true_positives``
    the positives the judge passed too, ``false_positives`` the negatives the judge passed. ``defined`` is
    False when either class is empty: then TPR or FPR, J and kappa cannot be measured (NaN, interval [0, 1]
    or [-1, 1]) and nothing may be read from them.
    """

    n: int
    positives: int
    negatives: int
    true_positives: int
    false_positives: int
    tpr: Interval
    fpr: Interval
    youden: Interval
    kappa: Kappa
    defined: bool


@dataclass(frozen=True)
class FigureDifference:
    """candidate - baseline of one judge figure with its interval; ``correlation`` is the estimated
    correlation of the two releases' estimates (0 when their gold labels share no unit)."""

    estimate: float
    low: float
    high: float
    confidence: float
    correlation: float
    defined: bool


@dataclass(frozen=True)
class JudgeDifference:
    """The judge's figures on the candidate's outputs minus those on the baseline's (TPR, FPR and J)."""

    tpr: FigureDifference
    fpr: FigureDifference
    youden: FigureDifference
    shared_units: int


def _binary(x: ArrayLike, name: str) -> np.ndarray:
    arr = np.asarray(x, dtype=np.float64)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {arr.shape}")
    if not np.all((arr == 0.0) | (arr == 1.0)):
        raise ValueError(f"{name} must hold 0/1 values only")
    return arr


def cohens_kappa(gold: ArrayLike, judge: ArrayLike, confidence: float = 0.95) -> Kappa:
    """Cohen's kappa (Cohen 1960) of two raters on 0/1 labels with the large-sample standard error of Fleiss,
    Cohen & Everitt (1969, Psychol Bull 72:323, their eq. 13: the variance away from kappa = 0) and the normal
    interval kappa +- z SE, clipped to [-1, 1]; the same figures as statsmodels.stats.inter_rater.cohens_kappa.

    Undefined (NaN, [-1, 1]) when the chance agreement is 1 (both raters gave one label only).
    """
    confidence = check_confidence(confidence)
    gold, judge = _binary(gold, "gold"), _binary(judge, "judge")
    n = gold.size
    if n == 0 or n != judge.size:
        return Kappa(math.nan, math.nan, -1.0, 1.0, confidence)
    table = np.array([[np.sum((gold == g) & (judge == j)) for j in (0.0, 1.0)] for g in (0.0, 1.0)]) / n
    rows, cols = table.sum(axis=1), table.sum(axis=0)
    agree, chance = float(np.trace(table)), float(rows @ cols)
    if chance >= 1.0:
        return Kappa(math.nan, math.nan, -1.0, 1.0, confidence)
    kappa = (agree - chance) / (1.0 - chance)
    diag = np.diag(table)
    term_a = float(np.sum(diag * (1.0 - (rows + cols) * (1.0 - kappa)) ** 2))
    off = table * (cols[:, None] + rows[None, :]) ** 2
    np.fill_diagonal(off, 0.0)
    term_b = (1.0 - kappa) ** 2 * float(off.sum())
    term_c = (kappa - chance * (1.0 - kappa)) ** 2
    variance = max(term_a + term_b - term_c, 0.0) / (1.0 - chance) ** 2 / n
    se = math.sqrt(variance)
    z = two_sided_z(confidence)
    return Kappa(kappa, se, max(-1.0, kappa - z * se), min(1.0, kappa + z * se), confidence)


def _mover(p1: Interval, p2: Interval, correlation: float = 0.0, bound: float = 1.0) -> tuple[float, float]:
    """Limits of p1 - p2 from each estimate's own limits by square-and-add (MOVER: Newcombe 1998, Stat Med
    17:873, method 10, for independent proportions; Zou & Donner 2008, Stat Med 27:1693, with a correlation),
    clipped to [-bound, bound]."""
    d = p1.estimate - p2.estimate
    dl1, du1 = p1.estimate - p1.low, p1.high - p1.estimate
    dl2, du2 = p2.estimate - p2.low, p2.high - p2.estimate
    low = d - math.sqrt(max(dl1 * dl1 + du2 * du2 - 2.0 * correlation * dl1 * du2, 0.0))
    high = d + math.sqrt(max(du1 * du1 + dl2 * dl2 - 2.0 * correlation * du1 * dl2, 0.0))
    return max(-bound, low), min(bound, high)


def judge_agreement(gold: ArrayLike, judge: ArrayLike, confidence: float = 0.95) -> JudgeAgreement:
    """The judge's TPR and FPR (Wilson 1927 score intervals), Youden's J = TPR - FPR (Newcombe's hybrid score
    interval for the difference of two independent proportions, method 10 of Newcombe 1998, Stat Med 17:873:
    the positives and the negatives are disjoint samples) and Cohen's kappa (:func:`cohens_kappa`).

    ``gold`` and ``judge`` are 0/1 arrays over the same labelled units. The intervals treat the units as
    independent and condition on the numbers of positives and negatives the sample happened to hold.
    """
    confidence = check_confidence(confidence)
    gold, judge = _binary(gold, "gold"), _binary(judge, "judge")
    if gold.size != judge.size:
        raise ValueError("gold and judge must have the same length")
    positives, negatives = int(gold.sum()), int(gold.size - gold.sum())
    tp, fp = int(np.sum(judge[gold == 1.0])), int(np.sum(judge[gold == 0.0]))
    tpr, fpr = wilson_interval(tp, positives, confidence), wilson_interval(fp, negatives, confidence)
    defined = positives > 0 and negatives > 0
    if defined:
        low, high = _mover(tpr, fpr)
        youden = Interval(tpr.estimate - fpr.estimate, low, high, confidence)
    else:
        youden = Interval(math.nan, -1.0, 1.0, confidence)
    kappa = cohens_kappa(gold, judge, confidence) if defined else Kappa(math.nan, math.nan, -1.0, 1.0, confidence)
    return JudgeAgreement(int(gold.size), positives, negatives, tp, fp, tpr, fpr, youden, kappa, defined)


def _influence(gold: np.ndarray, judge: np.ndarray, figure: str) -> np.ndarray:
    """Each unit's influence on the figure's estimate (its estimate - truth is the mean of these, to first
    order): the delta method for a ratio of means."""
    share = gold.mean()
    pos = gold * (judge - judge[gold == 1.0].mean()) / share
    neg = (1.0 - gold) * (judge - judge[gold == 0.0].mean()) / (1.0 - share)
    influence: dict[str, NDArray[np.float64]] = {"tpr": pos, "fpr": neg, "youden": pos - neg}
    return influence[figure]


def _correlation(gold_b: np.ndarray, judge_b: np.ndarray, gold_c: np.ndarray, judge_c: np.ndarray,
                 figure: str) -> float:
    """Correlation of the two releases' estimates through the units both labelled (0 when none)."""
    both = np.isfinite(gold_b) & np.isfinite(gold_c)
    if not both.any():
        return 0.0
    lb, lc = np.isfinite(gold_b), np.isfinite(gold_c)
    inf_b = np.zeros(gold_b.size)
    inf_c = np.zeros(gold_c.size)
    inf_b[lb] = _influence(gold_b[lb], judge_b[lb], figure)
    inf_c[lc] = _influence(gold_c[lc], judge_c[lc], figure)
    nb, nc = int(lb.sum()), int(lc.sum())
    cov = float(np.sum(inf_b[both] * inf_c[both])) / (nb * nc)
    var_b, var_c = float(np.sum(inf_b ** 2)) / nb ** 2, float(np.sum(inf_c ** 2)) / nc ** 2
    if var_b <= 0.0 or var_c <= 0.0:
        return 0.0
    return float(np.clip(cov / math.sqrt(var_b * var_c), -1.0, 1.0))


def judge_difference(gold_baseline: ArrayLike, judge_baseline: ArrayLike, gold_candidate: ArrayLike,
                     judge_candidate: ArrayLike, confidence: float = 0.95) -> JudgeDifference:
    """candidate - baseline of the judge's TPR, FPR and J, each with a MOVER interval (Zou & Donner 2008, Stat
    Med 27:1693: square-and-add of each release's own limits, Wilson for TPR and FPR and Newcombe's for J, with
    the correlation of the two estimates), Newcombe's method 10 when the releases' gold labels share no unit.

    The four arrays are aligned on the same units (a unit is a case, or a case's run); a gold value is NaN
    where that release's unit has no gold label (the judge's value there is not read). The correlation comes
    from the units labelled on both releases, by the delta method on each figure's influence function
    (``_influence``): paired labels on the same cases make the two estimates correlated, and the interval of
    their difference narrower or wider accordingly.
    """
    confidence = check_confidence(confidence)
    gb, jb = np.asarray(gold_baseline, float), np.asarray(judge_baseline, float)
    gc, jc = np.asarray(gold_candidate, float), np.asarray(judge_candidate, float)
    if not (gb.shape == jb.shape == gc.shape == jc.shape) or gb.ndim != 1:
        raise ValueError("the four arrays must be one-dimensional and aligned")
    lb, lc = np.isfinite(gb), np.isfinite(gc)
    base = judge_agreement(gb[lb], jb[lb], confidence)
    cand = judge_agreement(gc[lc], jc[lc], confidence)
    shared = int(np.sum(lb & lc))
    out = {}
    for figure in ("tpr", "fpr", "youden"):
        b, c = getattr(base, figure), getattr(cand, figure)
        defined = base.defined and cand.defined
        if not defined:
            out[figure] = FigureDifference(math.nan, -1.0 if figure != "youden" else -2.0,
                                           1.0 if figure != "youden" else 2.0, confidence, math.nan, False)
            continue
        r = _correlation(gb, jb, gc, jc, figure)
        # J lies in [-1, 1], so a difference of two J's in [-2, 2]
        low, high = _mover(c, b, r, 2.0 if figure == "youden" else 1.0)
        out[figure] = FigureDifference(c.estimate - b.estimate, low, high, confidence, r, True)
    return JudgeDifference(out["tpr"], out["fpr"], out["youden"], shared)

