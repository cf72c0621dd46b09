"""Latency, token and cost comparisons (SPEC section 4 item 8; guardrails in section 5 rule 4).

Orientation everywhere: ratio = candidate / baseline, so a ratio below 1 means the candidate is faster or
cheaper. All functions are pure: numpy arrays in, a small frozen dataclass out (in the style of the result
of ``scipy.stats.binomtest``). Nothing here reads files, prints or formats text.

Methods (see ``shared/notes/statistics.md``, "Latency and cost"):

* per-release summary: mean, p50, p95 with numpy's default quantile method ``'linear'`` (= R type 7,
  Hyndman & Fan 1996);
* geometric-mean latency ratio: exp(mean of per-case log ratios) with a Student t interval on the log
  ratios, exponentiated;
* p95 latency ratio: ratio of the quantiles with a percentile interval from a paired case bootstrap
  (Efron & Tibshirani 1993, ch. 13): case indices are resampled jointly so the pairing is kept;
* tokens and cost: ratio of totals with the same paired bootstrap.

The bootstrap's resamples (drawn as case counts, shared by the ratios of one comparison) and the percentile
interval are :mod:`releasegate.stats.resamples`.

Neither ``scipy.stats`` (about 0.7 s at import time) nor ``scipy.special`` (0.2 s) is imported; the t quantile
comes from :mod:`releasegate.stats.distributions`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from releasegate.stats.common import check_confidence, check_resamples, std_in_place
from releasegate.stats.distributions import t_quantile
from releasegate.stats.resamples import ResampleDraws, draws_for, ratio_percentile_interval, resampled_quantile

__all__ = [
    "LatencyQuantiles",
    "LatencySummary",
    "RatioResult",
    "geometric_mean_ratio",
    "latency_quantiles",
    "latency_summary",
    "quantile_ratio_bootstrap",
    "ratio_of_totals_bootstrap",
]


@dataclass(frozen=True)
class LatencySummary:
    """Per-release latency summary.

    ``n`` values were used; ``excluded`` values (NaN, infinite, zero or negative) were dropped first.
    Quantiles use numpy's default ``'linear'`` method, which is R's type 7. With ``n == 0`` the mean and
    quantiles are NaN.
    """

    n: int
    mean: float
    p50: float
    p95: float
    excluded: int


@dataclass(frozen=True)
class LatencyQuantiles:
    """A release's :class:`LatencySummary` and the type 7 quantiles of the same kept values at further ``levels``
    (``quantiles[i]`` at ``levels[i]``; NaN when no value was kept), all from one selection."""

    summary: LatencySummary
    levels: tuple[float, ...]
    quantiles: tuple[float, ...]


@dataclass(frozen=True)
class RatioResult:
    """A candidate / baseline ratio with a two-sided interval at level ``confidence``.

    ``n`` is the number of pairs used and ``excluded`` the number of pairs dropped because either side was
    missing or invalid. ``method`` names the interval: ``"t on log ratios"`` or ``"paired bootstrap"``.
    ``low`` and ``high`` are NaN when the interval is undefined (fewer than two pairs).
    """

    ratio: float
    low: float
    high: float
    n: int
    excluded: int
    method: str
    confidence: float


# --------------------------------------------------------------------------------------------------------
# helpers


def _as_1d(values: object, name: str) -> np.ndarray:
    # dtype=float turns None into NaN, so a missing value from the loader is simply "missing" here.
    arr = np.asarray(values, dtype=float)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {arr.shape}")
    return arr


def paired_positive(baseline: object, candidate: object, *, allow_zero: bool) -> tuple[np.ndarray, np.ndarray, int]:
    """Aligned 1-D arrays with invalid pairs dropped, and how many pairs were dropped.

    A pair is invalid when either side is NaN or infinite, or negative, or (unless ``allow_zero``) zero.
    """
    base = _as_1d(baseline, "baseline")
    cand = _as_1d(candidate, "candidate")
    if base.shape != cand.shape:
        raise ValueError(f"baseline and candidate must have the same length, got {base.size} and {cand.size}")
    if allow_zero:
        ok = np.isfinite(base) & np.isfinite(cand) & (base >= 0) & (cand >= 0)
    else:
        ok = np.isfinite(base) & np.isfinite(cand) & (base > 0) & (cand > 0)
    if ok.all():  # the inputs themselves, not copies: every caller only reads them
        return base, cand, 0
    return base[ok], cand[ok], int(base.size - np.count_nonzero(ok))


# --------------------------------------------------------------------------------------------------------
# public functions


def latency_summary(values: object) -> LatencySummary:
    """Mean, median and 95th percentile of one release's per-case latencies.

    NaN, infinite, zero and negative values are dropped and counted in ``excluded`` (a latency must be a
    positive number; zero means a logging failure, not an instant answer). Quantiles use numpy's default
    method ``'linear'``, which is R's ``quantile(type = 7)`` (Hyndman & Fan 1996). With nothing left the
    statistics are NaN and ``n == 0``.
    """
    return latency_quantiles(values).summary


def latency_quantiles(values: object, levels: Sequence[float] = ()) -> LatencyQuantiles:
    """:func:`latency_summary` of ``values`` and the type 7 quantiles of the values it keeps at ``levels`` (each in
    [0, 1]), from one selection of them: a release's p95 ratio against another reads the quantiles of the same
    latencies (stats/costs_normal.py), and a second selection of ten million latencies is about 0.1 s. Each
    quantile is numpy's ``np.quantile`` at that level alone, bit for bit: a type 7 quantile is a function of the
    two order statistics around its level, and the partition places every one asked for."""
    arr = _as_1d(values, "values")
    ok = np.isfinite(arr) & (arr > 0)
    kept = arr[ok]
    excluded = int(arr.size - kept.size)
    levels = tuple(float(level) for level in levels)
    if kept.size == 0:
        nan = float("nan")
        return LatencyQuantiles(LatencySummary(n=0, mean=nan, p50=nan, p95=nan, excluded=excluded), levels,
                                (nan,) * len(levels))
    mean = float(kept.mean())
    # kept is a copy (a boolean selection): the quantile's partition may reorder it instead of copying it again.
    at = np.quantile(kept, [0.5, 0.95, *levels], overwrite_input=True)
    summary = LatencySummary(n=int(kept.size), mean=mean, p50=float(at[0]), p95=float(at[1]), excluded=excluded)
    return LatencyQuantiles(summary, levels, tuple(float(v) for v in at[2:]))


def _subtract_log(out: np.ndarray, values: np.ndarray, block: int = 1 << 16) -> None:
    """``out -= np.log(values)``, a block at a time: the same values, without an array of every logarithm."""
    scratch = np.empty(min(block, values.size))
    for first in range(0, values.size, block):
        part = scratch[:min(block, values.size - first)]
        np.log(values[first:first + block], out=part)
        out[first:first + part.size] -= part


def geometric_mean_ratio(baseline: object, candidate: object, confidence: float = 0.95) -> RatioResult:
    """Geometric-mean ratio candidate / baseline with a t interval on the per-case log ratios.

    With r_i = log(candidate_i / baseline_i): ratio = exp(mean r), interval
    exp(mean r -/+ t_{(1+confidence)/2, n-1} * sd(r) / sqrt(n)) with the sample sd (ddof = 1). This is the
    usual analysis of a ratio on the log scale (as in average bioequivalence, FDA guidance 2001). Because the
    interval is symmetric on the log scale, swapping the releases maps (ratio, low, high) to
    (1/ratio, 1/high, 1/low) exactly.

    Pairs with a missing, infinite, zero or negative value on either side are dropped and counted. With
    n == 0 everything is NaN; with n == 1 the ratio is that case's ratio and the interval is NaN (no
    degrees of freedom). With sd == 0 the interval collapses to the ratio. A figure past the largest float
    (exp beyond ~709.78: a wide interval on few pairs) is +inf, one below the smallest 0, never a warning.
    """
    check_confidence(confidence)
    base, cand, excluded = paired_positive(baseline, candidate, allow_zero=False)
    n = int(base.size)
    nan = float("nan")
    method = "t on log ratios"
    if n == 0:
        return RatioResult(nan, nan, nan, 0, excluded, method, confidence)
    # log(c) - log(b) rather than log(c / b): no overflow for extreme but valid values. In place: one array of
    # the pairs fewer (80 MB of fresh pages at 10^7 pairs).
    r = np.log(cand)
    _subtract_log(r, base)
    mean = float(r.mean())
    # An end past the largest float is +inf (below the smallest, 0): the answer, said above, not an accident.
    with np.errstate(over="ignore", under="ignore"):
        ratio = float(np.exp(mean))
        if n == 1:
            return RatioResult(ratio, nan, nan, 1, excluded, method, confidence)
        half = t_quantile(0.5 + confidence / 2.0, n - 1) * (std_in_place(r, 1) / np.sqrt(n))  # r is ours
        low, high = float(np.exp(mean - half)), float(np.exp(mean + half))
    return RatioResult(ratio, low, high, n, excluded, method, confidence)


def quantile_ratio_bootstrap(
    baseline: object,
    candidate: object,
    q: float = 0.95,
    n_resamples: int = 10_000,
    seed: int | None = 0,
    confidence: float = 0.95,
    draws: ResampleDraws | None = None,
) -> RatioResult:
    """Ratio of the q-quantiles, candidate / baseline, with a paired-bootstrap percentile interval.

    The estimate is quantile(candidate, q) / quantile(baseline, q) on the observed data (numpy 'linear' =
    R type 7). The interval is the percentile interval of the same statistic over ``n_resamples`` paired
    case bootstrap resamples (Efron & Tibshirani 1993, ch. 13): case indices are drawn with replacement and
    applied to both releases, so the correlation between them is kept. The generator is
    ``numpy.random.default_rng(seed)``; resamples are drawn in blocks of at most ~50 MB.

    Pairs with a missing, infinite, zero or negative value on either side are dropped and counted (the same
    rule as :func:`geometric_mean_ratio`, so both latency ratios use the same cases). With n == 0
    everything is NaN; with n == 1 the interval is NaN (every resample is the same case). ``draws`` shares
    one seeded stream between statistics (:class:`ResampleDraws`; its resamples and seed are then used).
    A quotient past the largest float (a baseline quantile near the smallest) is +inf, not warned of.
    """
    check_confidence(confidence)
    check_resamples(n_resamples)
    if not 0.0 <= q <= 1.0:
        raise ValueError(f"q must be between 0 and 1, got {q}")
    base, cand, excluded = paired_positive(baseline, candidate, allow_zero=False)
    n = int(base.size)
    nan = float("nan")
    method = "paired bootstrap"
    if n == 0:
        return RatioResult(nan, nan, nan, 0, excluded, method, confidence)
    with np.errstate(over="ignore"):  # a quotient past the largest float is +inf, as in geometric_mean_ratio
        ratio = float(np.quantile(cand, q) / np.quantile(base, q))
    if n == 1:
        return RatioResult(ratio, nan, nan, 1, excluded, method, confidence)
    # Sort once; each resample is then described by its case counts (valid because a quantile depends on
    # the multiset of values only). Stable sorts keep ties in a fixed order; tied values are equal anyway.
    order_b = np.argsort(base, kind="stable")
    order_c = np.argsort(cand, kind="stable")
    sorted_b, sorted_c = base[order_b], cand[order_c]
    stats = np.empty(n_resamples)
    done = 0
    with np.errstate(over="ignore"):  # a quotient past the largest float: +inf, read as any other value
        for counts in draws_for(draws, n_resamples, seed).counts(n):
            b = counts.shape[0]
            # Baseline values are all positive, so the denominator cannot be zero.
            stats[done : done + b] = resampled_quantile(counts, order_c, sorted_c, q) / resampled_quantile(
                counts, order_b, sorted_b, q
            )
            done += b
    low, high = ratio_percentile_interval(stats, confidence)
    return RatioResult(ratio, low, high, n, excluded, method, confidence)


def ratio_of_totals_bootstrap(
    baseline: object,
    candidate: object,
    n_resamples: int = 10_000,
    seed: int | None = 0,
    confidence: float = 0.95,
    draws: ResampleDraws | None = None,
) -> RatioResult:
    """Ratio of totals sum(candidate) / sum(baseline) with a paired-bootstrap percentile interval.

    For tokens and cost, where the total is what is paid. The interval is the percentile interval of the
    ratio of sums over ``n_resamples`` paired case bootstrap resamples (Efron & Tibshirani 1993, ch. 13),
    generator ``numpy.random.default_rng(seed)``, drawn in blocks of at most ~50 MB.

    Zero is a valid value here (a cached answer may cost nothing); pairs with a missing, infinite or
    negative value on either side are dropped and counted. If the baseline total is zero the ratio is
    undefined and ratio, low and high are all NaN. A resample whose baseline total is zero counts as
    +inf (as NaN, and is dropped, if the candidate total is zero too). With n == 0 everything is NaN; with
    n == 1 the interval is NaN. ``draws`` as for :func:`quantile_ratio_bootstrap`.
    """
    check_confidence(confidence)
    check_resamples(n_resamples)
    base, cand, excluded = paired_positive(baseline, candidate, allow_zero=True)
    n = int(base.size)
    nan = float("nan")
    method = "paired bootstrap"
    with np.errstate(over="ignore"):  # totals beyond the float range are inf: the ratio is then not finite
        base_total, cand_total = float(base.sum()), float(cand.sum())
    if n == 0 or base_total == 0.0 or not math.isfinite(base_total) or not math.isfinite(cand_total):
        return RatioResult(nan, nan, nan, n, excluded, method, confidence)
    ratio = cand_total / base_total
    if n == 1:
        return RatioResult(ratio, nan, nan, 1, excluded, method, confidence)
    pair = np.column_stack([base, cand])
    stats = np.empty(n_resamples)
    done = 0
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for counts in draws_for(draws, n_resamples, seed).counts(n):
            b = counts.shape[0]
            # A resample's totals are its counts times the values: one matrix product for both releases.
            totals = counts @ pair
            stats[done : done + b] = totals[:, 1] / totals[:, 0]
            done += b
    low, high = ratio_percentile_interval(stats, confidence)
    return RatioResult(ratio, low, high, n, excluded, method, confidence)
