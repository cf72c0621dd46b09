"""The critical-category test and churn: how often a release's own outcomes change between two runs, and
whether a critical category broke more than that noise explains.

Orientation: outcomes are 0/1 per case (1 = pass); broke = baseline pass and candidate fail, fixed = the
reverse. Every test here is one-sided ("the candidate is worse") and exact, and is meant to be read unadjusted
for the family at its own level ``critical_alpha``: a critical category is a gate of its own.

- One run: the exact McNemar test of broke against fixed, P(X >= broke), X ~ Bin(broke + fixed, 1/2)
  (Fagerland, Lydersen & Laake 2013, BMC Med Res Methodol 13:91).
- Several runs: the same test on each case's majority outcome, or the exact sign test on per-case mean
  differences (Dixon & Mood 1946); both are offered, the simulation study chooses.
- A baseline rerun: under "nothing changed" the three outcomes (baseline, baseline rerun, candidate) of a case
  are exchangeable, so among cases with exactly one failure the candidate is the failing one with probability
  1/3, and among cases with exactly one pass it is the passing one with probability 1/3. The counts are
  independent binomials given how many such cases there are; the exact p is the upper tail of
  k1 + (n2 - k2), a sum of Bin(n1, 1/3) and Bin(n2, 2/3) (a conditional permutation test in the sense of
  Lehmann & Romano 2005, section 5.8).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from releasegate.stats.mcnemar import mcnemar_test


def _binary(v: ArrayLike, name: str, shape: tuple[int, ...] | None = None) -> np.ndarray:
    arr = np.asarray(v)
    if shape is not None and arr.shape != shape:
        raise ValueError(f"{name} has shape {arr.shape}, expected {shape}")
    num = arr.astype(np.float64)
    if not np.all((num == 0.0) | (num == 1.0)):
        raise ValueError(f"{name} must hold 0/1 outcomes")
    return num.astype(np.int8)


@dataclass(frozen=True, slots=True)
class CriticalTest:
    """One critical category's one-sided test. ``count`` is the evidence for "worse" (broke cases, cases with
    a lower mean, or the exchangeability statistic) against ``trials`` informative cases; ``floor`` is the
    smallest p the data could have given (a category whose floor is above its level cannot block by test)."""

    method: str
    p_regression: float
    count: int
    trials: int
    floor: float
    alpha: float

    @property
    def blocks(self) -> bool:
        """The p below the level: the rules' "below alpha" (SPEC 5), so a p exactly at it does not block."""
        return self.p_regression < self.alpha


def _mcnemar(method: str, broke: int, fixed: int, alpha: float) -> CriticalTest:
    result = mcnemar_test(fixed, broke)
    floor = 2.0 ** -(broke + fixed) if broke + fixed else 1.0
    return CriticalTest(method, result.p_regression, broke, broke + fixed, floor, alpha)


def critical_mcnemar(baseline: ArrayLike, candidate: ArrayLike, alpha: float = 0.10) -> CriticalTest:
    """Exact one-sided McNemar of broke against fixed on one run per release.

    The lesson's Fraud category (45 passing cases, 6 broke, none fixed) gives 2^-6 = 1/64.
    """
    base = _binary(baseline, "baseline")
    cand = _binary(candidate, "candidate", base.shape)
    broke = int(np.count_nonzero((base == 1) & (cand == 0)))
    fixed = int(np.count_nonzero((base == 0) & (cand == 1)))
    return _mcnemar("exact McNemar", broke, fixed, alpha)


def _runs(v: ArrayLike, name: str) -> np.ndarray:
    arr = _binary(v, name)
    if arr.ndim != 2 or arr.shape[0] < 1:
        raise ValueError(f"{name} must be a (runs, cases) array of 0/1 outcomes")
    return arr


def majority_outcome(runs: ArrayLike) -> NDArray[np.int8]:
    """Each case's majority outcome over its runs ((runs, cases) 0/1): pass when more than half the runs pass.

    An even split counts as a fail for both releases alike, so the rule stays symmetric under "no change".
    """
    arr = _runs(runs, "runs")
    majority: NDArray[np.int8] = (2 * arr.sum(axis=0) > arr.shape[0]).astype(np.int8)
    return majority


def critical_majority(baseline_runs: ArrayLike, candidate_runs: ArrayLike,
                      alpha: float = 0.10) -> CriticalTest:
    """The exact McNemar test on each case's majority outcome (``majority_outcome``) of both releases."""
    base = majority_outcome(baseline_runs)
    cand = majority_outcome(candidate_runs)
    if base.shape != cand.shape:
        raise ValueError("baseline and candidate runs cover different numbers of cases")
    broke = int(np.count_nonzero((base == 1) & (cand == 0)))
    fixed = int(np.count_nonzero((base == 0) & (cand == 1)))
    return _mcnemar("exact McNemar on majority outcomes", broke, fixed, alpha)


def critical_sign_test(baseline_runs: ArrayLike, candidate_runs: ArrayLike,
                       alpha: float = 0.10) -> CriticalTest:
    """Exact sign test on per-case mean differences: of the cases whose mean changed, how many went down;
    P(X >= down), X ~ Bin(changed, 1/2). The runs of each release may differ in number."""
    base = _runs(baseline_runs, "baseline runs").mean(axis=0)
    cand = _runs(candidate_runs, "candidate runs").mean(axis=0)
    if base.shape != cand.shape:
        raise ValueError("baseline and candidate runs cover different numbers of cases")
    down = int(np.count_nonzero(cand < base))
    up = int(np.count_nonzero(cand > base))
    return _mcnemar("exact sign test on per-case means", down, up, alpha)


def _binom_pmf(n: int, p: float) -> NDArray[np.float64]:
    k = np.arange(n + 1)
    if p in (0.0, 1.0):
        out = np.zeros(n + 1)
        out[0 if p == 0.0 else n] = 1.0
        return out
    logs = (np.array([math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) for i in k])
            + k * math.log(p) + (n - k) * math.log1p(-p))
    pmf: NDArray[np.float64] = np.exp(logs)
    return pmf


def exchangeability_test(baseline: ArrayLike, baseline_rerun: ArrayLike, candidate: ArrayLike,
                        alpha: float = 0.10) -> CriticalTest:
    """Exact test that the candidate is the odd one out more often than chance among (baseline, baseline
    rerun, candidate), one 0/1 outcome per case each.

    n1 cases with exactly one failure, k1 of them the candidate's; n2 cases with exactly one pass, k2 of them
    the candidate's. Under exchangeability k1 ~ Bin(n1, 1/3) and n2 - k2 ~ Bin(n2, 2/3), independent given
    (n1, n2); the p-value is P(T >= k1 + n2 - k2) for T their sum (exact convolution). A stable baseline with
    6 broke candidate cases gives (1/3)^6 = 0.00137.
    """
    base = _binary(baseline, "baseline")
    rerun = _binary(baseline_rerun, "baseline rerun", base.shape)
    cand = _binary(candidate, "candidate", base.shape)
    passes = base.astype(int) + rerun + cand
    one_fail = passes == 2
    one_pass = passes == 1
    n1, n2 = int(one_fail.sum()), int(one_pass.sum())
    k1 = int(np.count_nonzero(one_fail & (cand == 0)))
    k2 = int(np.count_nonzero(one_pass & (cand == 1)))
    t = k1 + n2 - k2
    pmf = np.convolve(_binom_pmf(n1, 1 / 3), _binom_pmf(n2, 2 / 3))
    p = float(min(1.0, pmf[t:].sum()))
    floor = float(pmf[-1]) if n1 + n2 else 1.0
    return CriticalTest("exchangeability (baseline, rerun, candidate)", p, t, n1 + n2, floor, alpha)


def any_broken_rule(baseline: ArrayLike, candidate: ArrayLike) -> bool:
    """Zero tolerance (``critical_rule = "any"``): True when any case passed in the baseline and failed in the
    candidate. Its false-block rate at churn s on n cases is 1 - (1 - s/2)^n."""
    base = _binary(baseline, "baseline")
    cand = _binary(candidate, "candidate", base.shape)
    return bool(np.any((base == 1) & (cand == 0)))


# ------------------------------------------------------------------------------------------------- churn


@dataclass(frozen=True, slots=True)
class Churn:
    """Share of cases whose outcome differs between two runs of the same release, overall and per category
    (label, share, cases), and the largest share the pass rate allows for independent runs, 2 p (1 - p)."""

    share: float
    n: int
    by_category: tuple[tuple[str, float, int], ...]
    ceiling: float


def _per_case_churn(runs: np.ndarray) -> NDArray[np.float64]:
    """Unbiased per-case disagreement of two runs drawn from R: 2 k (R - k) / (R (R - 1))."""
    r = runs.shape[0]
    k = runs.sum(axis=0).astype(float)
    per_case: NDArray[np.float64] = 2.0 * k * (r - k) / (r * (r - 1))
    return per_case


def churn(first: ArrayLike, second: ArrayLike | None = None, category: ArrayLike | None = None) -> Churn:
    """Churn of one release: ``first`` and ``second`` are two runs' 0/1 outcomes on the same cases, or
    ``first`` alone is a (runs, cases) array of R >= 2 runs (every pair of runs averaged). ``category`` (one
    label per case) adds the per-category shares. No cases: ValueError."""
    if second is not None:
        a = _binary(first, "first run")
        b = _binary(second, "second run", a.shape)
        if a.ndim != 1:
            raise ValueError("two runs must be one-dimensional, one outcome per case")
        runs = np.stack([a, b])
    else:
        runs = _runs(first, "runs")
        if runs.shape[0] < 2:
            raise ValueError("churn needs at least two runs of the release")
    n = runs.shape[1]
    if n == 0:
        raise ValueError("churn needs at least one case")
    per_case = _per_case_churn(runs)
    rate = float(runs.mean())
    groups: list[tuple[str, float, int]] = []
    if category is not None:
        labels = np.asarray(category)
        if labels.shape != (n,):
            raise ValueError(f"category has {labels.size} labels for {n} cases")
        for label in np.unique(labels):
            inside = labels == label
            groups.append((str(label), float(per_case[inside].mean()), int(inside.sum())))
    return Churn(float(per_case.mean()), n, tuple(groups), 2.0 * rate * (1.0 - rate))
