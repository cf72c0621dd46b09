"""The paired case bootstrap of the cost ratios (:mod:`releasegate.stats.costs`): resamples drawn as case counts,
and what the ratios read from them.

A paired case bootstrap resample (Efron & Tibshirani 1993, ch. 13) draws n case indices with replacement and
applies them to both releases, so the pairing is kept. Every statistic of the cost section depends on a resample
only through how often each case was drawn, so resamples are drawn once as those counts (blocks of shape
(resamples, n) whose rows sum to n) and shared by the statistics of one comparison (:class:`ResampleDraws`). A
resample's quantile is read from its counts over the sorted values, without gathering and partitioning it
(:func:`resampled_quantile`); the interval is the percentile interval of the replicates
(:func:`ratio_percentile_interval`). Pure functions of arrays; nothing here reads files or formats text.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator

import numpy as np
from numpy.typing import NDArray

from releasegate.stats.common import check_resamples

__all__ = ["ResampleDraws", "draws_for", "ratio_percentile_interval", "resample_counts", "resampled_quantile"]

# Upper limit for the working memory of one bootstrap block (index array plus the gathered values).
_BLOCK_BYTES = 50_000_000
# Blocks larger than this stop paying off: the per-block overhead is already negligible at 400 cases.
_MAX_BLOCK = 500
# Up to this many resampled cases (pairs x resamples; int32, so 32 MB) the case counts of one draw are kept, so
# that the p95, token and cost ratios of a comparison (and of every candidate with as many pairs) share one draw
# instead of drawing the same seeded stream again for each.
_KEEP_CELLS = 8_000_000


def _block_size(n: int, n_resamples: int) -> int:
    """Resamples per block so that one block stays within ``_BLOCK_BYTES``.

    A block holds an int32 index array and at most three int64/float64 arrays of shape (block, n) at once
    (counts, their cumulative sums or the gathered values), so about 32 bytes per cell at worst.
    """
    per_resample = 32 * max(n, 1)
    return int(max(1, min(n_resamples, _MAX_BLOCK, _BLOCK_BYTES // per_resample)))


def _bootstrap_indices(rng: np.random.Generator, n: int, n_resamples: int) -> Iterator[np.ndarray]:
    """Yield index blocks of shape (b, n): paired case resamples, drawn with replacement."""
    # int32 halves the memory and speeds the gather; case counts never approach 2**31.
    dtype = np.int32 if n < 2**31 - 1 else np.int64
    block = _block_size(n, n_resamples)
    done = 0
    while done < n_resamples:
        b = min(block, n_resamples - done)
        yield rng.integers(0, n, size=(b, n), dtype=dtype)
        done += b


def _resample_counts(idx: np.ndarray) -> np.ndarray:
    """How often each case appears in each resample: shape (b, n), rows sum to n (multinomial counts)."""
    b, n = idx.shape
    # One bincount over row-offset indices instead of b separate calls.
    offsets = (np.arange(b, dtype=np.int64) * n)[:, None]
    counts = np.bincount((idx + offsets).ravel(), minlength=b * n).reshape(b, n)
    return counts.astype(np.int32) if n < 2**31 - 1 else counts


def _draw_counts(n: int, n_resamples: int, seed: int | None) -> Iterator[np.ndarray]:
    rng = np.random.default_rng(seed)
    for idx in _bootstrap_indices(rng, n, n_resamples):
        yield _resample_counts(idx)


def resample_counts(n: int, n_resamples: int, seed: int | None) -> Iterator[np.ndarray]:
    """Paired case bootstrap resamples as case counts, in blocks of shape (b, n) whose rows sum to n.

    Resample r draws n case indices with replacement from ``numpy.random.default_rng(seed)`` (the same stream
    whichever statistic asks), and row r counts how often each case was drawn. Every statistic here depends on
    a resample only through these counts.
    """
    return _draw_counts(n, n_resamples, seed)


class ResampleDraws:
    """One seeded stream of paired case bootstrap resamples, shared by the statistics of one comparison.

    The p95, token and cost ratios of a comparison draw from the same stream; with a seed and at most
    ``_KEEP_CELLS`` cells (pairs x resamples) the draw for the last size asked is kept (read-only), so they
    reuse it instead of drawing it again. The caller makes one per analysis and passes it in; nothing is kept
    between analyses.
    """

    def __init__(self, n_resamples: int, seed: int | None) -> None:
        check_resamples(n_resamples)
        self.n_resamples = int(n_resamples)
        self.seed = seed
        self._kept: tuple[int, tuple[np.ndarray, ...]] | None = None

    def counts(self, n: int) -> Iterable[np.ndarray]:
        """The resamples of n cases, as :func:`resample_counts` gives them."""
        if self.seed is None or n * self.n_resamples > _KEEP_CELLS:
            return _draw_counts(n, self.n_resamples, self.seed)
        if self._kept is None or self._kept[0] != n:
            blocks = tuple(_draw_counts(n, self.n_resamples, self.seed))
            for block in blocks:
                block.flags.writeable = False
            self._kept = (n, blocks)
        return self._kept[1]


def draws_for(draws: ResampleDraws | None, n_resamples: int, seed: int | None) -> ResampleDraws:
    """``draws`` when given (checked to be of these resamples and seed), else a stream of its own."""
    if draws is None:
        return ResampleDraws(n_resamples, seed)
    if draws.n_resamples != n_resamples or draws.seed != seed:
        raise ValueError("draws were made for other resamples or another seed")
    return draws


def _order_statistic_positions(counts: np.ndarray, order: np.ndarray, ranks: tuple[int, ...]) -> list[np.ndarray]:
    # Resample's k-th order statistic (0-based) = sorted position of the first cumulative count above k.
    cum = np.cumsum(counts[:, order], axis=1, dtype=counts.dtype)
    return [np.count_nonzero(cum <= k, axis=1) for k in ranks]


def resampled_quantile(
    counts: np.ndarray, order: np.ndarray, sorted_values: np.ndarray, q: float
) -> np.ndarray:
    """Type 7 ('linear') q-quantile of every resample, from its case counts.

    A resample's k-th order statistic is the sorted value at which the cumulative count first exceeds k,
    so no resample has to be gathered and partitioned. For an upper quantile only the top of the sorted
    values matters: in a resample with at most k cases drawn below sorted position s, the order statistics
    k and k + 1 lie at or above s and are found by counting there alone (exact); the rare other resamples
    take the full count. Identical to ``np.quantile(..., axis=1)`` up to rounding.
    """
    n = sorted_values.size
    h = (n - 1) * q
    k = int(np.floor(h))
    frac = h - k
    ranks = (k, min(k + 1, n - 1))
    above = n - k  # draws at or above the k-th order statistic; the tail holds about m of the n draws
    m = above + 6 * math.isqrt(above) + 16
    start = n - m
    if start <= 0:
        lo, hi = _order_statistic_positions(counts, order, ranks)
    else:
        tail = counts[:, order[start:]]
        below = (n - tail.sum(axis=1, dtype=np.int64)).astype(counts.dtype)
        cum = np.cumsum(tail, axis=1, dtype=counts.dtype) + below[:, None]
        lo = start + np.count_nonzero(cum <= ranks[0], axis=1)
        hi = start + np.count_nonzero(cum <= ranks[1], axis=1)
        outside = below > ranks[0]
        if outside.any():
            lo[outside], hi[outside] = _order_statistic_positions(counts[outside], order, ranks)
    quantiles: NDArray[np.float64] = sorted_values[lo] + frac * (sorted_values[hi] - sorted_values[lo])
    return quantiles


def ratio_percentile_interval(stats: np.ndarray, confidence: float) -> tuple[float, float]:
    """Percentile bootstrap interval (Efron & Tibshirani 1993, section 13.3), numpy 'linear' quantiles.

    NaN replicates (undefined ratios) are dropped. +inf replicates (zero baseline in a resample) are kept
    as the largest values; when they reach an interpolation point the bound is taken from the order
    statistics on the conservative side, because linear interpolation with infinity gives NaN.
    """
    stats = np.sort(stats[~np.isnan(stats)])
    if stats.size == 0:
        return float("nan"), float("nan")
    alpha = 1.0 - confidence
    probs = np.array([alpha / 2.0, 1.0 - alpha / 2.0])
    if np.isfinite(stats).all():
        low, high = np.quantile(stats, probs)
        return float(low), float(high)
    pos = probs * (stats.size - 1)
    return float(stats[int(np.floor(pos[0]))]), float(stats[int(np.ceil(pos[1]))])
