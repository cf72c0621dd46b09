"""Churn from any number of runs per case, and the broken counts churn alone gives (issue 21 item 3).

Churn is the share of cases whose outcome differs between two runs of the same release. With R_i >= 2 runs
of case i, k_i of them passing, the unbiased estimate of "two distinct runs of case i disagree" is
2 k_i (R_i - k_i) / (R_i (R_i - 1)) (a U-statistic over the R_i (R_i - 1) / 2 pairs of runs; Hoeffding 1948);
the churn is its mean over the cases. Two runs give 1 where they differ and 0 where they agree.

Churn alone breaks a case (baseline run passes, candidate run fails) with probability s / 2 when the
candidate changes nothing, and fixes one with s / 2: a case whose two runs disagree does so in either
direction with equal chance, as the two runs are exchangeable. :func:`churn_net_range` gives the central
range of broke - fixed over N independent cases, exactly (a trinomial convolution power).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike


@dataclass(frozen=True, slots=True)
class PairwiseChurn:
    """Churn over the ``cases`` with at least two runs (``runs_min``..``runs_max`` runs each), and per
    category (label, share, cases) when labels are given."""

    share: float
    cases: int
    runs_min: int
    runs_max: int
    by_category: tuple[tuple[str, float, int], ...]


def pairwise_churn(passes: ArrayLike, runs: ArrayLike, labels: ArrayLike | None = None) -> PairwiseChurn:
    """Churn from each case's passing runs ``passes`` out of ``runs`` (integer arrays, one entry per case).

    Cases with fewer than two runs carry no churn and are refused (ValueError): churn needs a second run.
    """
    k = np.asarray(passes, dtype=np.float64)
    r = np.asarray(runs, dtype=np.float64)
    if k.shape != r.shape or k.ndim != 1:
        raise ValueError("passes and runs must be one-dimensional arrays of the same length")
    if k.size == 0:
        raise ValueError("churn needs at least one case")
    if np.any(r < 2) or np.any(k < 0) or np.any(k > r) or np.any(k != np.round(k)) or np.any(r != np.round(r)):
        raise ValueError("every case needs at least two runs and 0 <= passing runs <= runs")
    per_case = 2.0 * k * (r - k) / (r * (r - 1.0))
    groups: list[tuple[str, float, int]] = []
    if labels is not None:
        lab = np.asarray(labels).astype(str)
        if lab.shape != k.shape:
            raise ValueError(f"{lab.size} labels for {k.size} cases")
        for label in np.unique(lab):
            inside = lab == label
            groups.append((str(label), float(per_case[inside].mean()), int(inside.sum())))
    return PairwiseChurn(float(per_case.mean()), int(k.size), int(r.min()), int(r.max()), tuple(groups))


@dataclass(frozen=True, slots=True)
class ChurnNet:
    """The central ``level`` range [low, high] of broke - fixed that churn alone gives on ``cases`` cases."""

    cases: int
    share: float
    low: int
    high: int
    level: float
    exact: bool


EXACT_UP_TO = 5_000  # cases; above, the normal limit (the exact pmf is a convolution power of length 2N + 1)


def _net_pmf(n: int, share: float) -> np.ndarray:
    """pmf of B - C on -n..n for (B, C, rest) ~ Multinomial(n; s/2, s/2, 1 - s): the n-th convolution power of
    (s/2, 1 - s, s/2), by repeated squaring (each step renormalised against rounding)."""
    step = np.array([share / 2.0, 1.0 - share, share / 2.0])
    out, power, k = np.array([1.0]), step, n
    while k:
        if k & 1:
            out = np.convolve(out, power)
            out /= out.sum()
        k >>= 1
        if k:
            power = np.convolve(power, power)
            power /= power.sum()
    return out


def churn_net_range(cases: int, share: float, level: float = 0.95) -> ChurnNet:
    """The (1 - level) / 2 and (1 + level) / 2 quantiles of broke - fixed when nothing changed but churn:
    each case breaks with probability s / 2, is fixed with s / 2 and stays with 1 - s (a case that differs
    between two runs of one release goes either way with equal chance; the runs are exchangeable). Exact up to
    EXACT_UP_TO cases; above, the normal limit with variance n s (rounded outward)."""
    if cases < 0 or not 0.0 <= share <= 1.0 or not 0.0 < level < 1.0:
        raise ValueError("cases >= 0, share in [0, 1] and level in (0, 1) needed")
    n = int(cases)
    lo_q, hi_q = (1.0 - level) / 2.0, (1.0 + level) / 2.0
    if n == 0 or share == 0.0:
        return ChurnNet(n, float(share), 0, 0, float(level), True)
    if n <= EXACT_UP_TO:
        cdf = np.cumsum(_net_pmf(n, share))
        # The usual discrete quantile: the smallest value whose CDF reaches q (a relative tolerance keeps a
        # CDF equal to q up to rounding on the right side).
        low = int(np.searchsorted(cdf, lo_q * (1 - 1e-12), side="left")) - n
        high = int(np.searchsorted(cdf, hi_q * (1 - 1e-12), side="left")) - n
        return ChurnNet(n, float(share), low, high, float(level), True)
    from statistics import NormalDist

    half = NormalDist().inv_cdf(hi_q) * math.sqrt(n * share)
    return ChurnNet(n, float(share), -math.ceil(half), math.ceil(half), float(level), False)
