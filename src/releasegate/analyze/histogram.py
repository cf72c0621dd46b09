"""The latency histogram of the cost section: bin edges shared by every release, and each release's counts.

Numbers only (the chart is render/charts_costs.py). The edges are a 1-2-5 width's multiples covering every finite
latency of every release, read from each release's smallest and largest; the counts are numpy's histogram on
those edges.
"""

from __future__ import annotations

import math

import numpy as np

HISTOGRAM_BINS = 30
# Values counted at a time: 512 KiB of guesses, which stay in the cache while they are checked.
_BLOCK = 1 << 16


def finite_extremes(values: np.ndarray) -> np.ndarray:
    """The smallest and largest finite value (none: an empty array)."""
    finite = np.isfinite(values)
    kept = values if finite.all() else values[finite]
    return np.array([kept.min(), kept.max()]) if kept.size else np.array([])


def histogram_edges(values: np.ndarray, bins: int = HISTOGRAM_BINS) -> np.ndarray:
    """Shared bin edges for every release's latency histogram: a 1-2-5 width, edges on its multiples."""
    values = values[np.isfinite(values)]
    if values.size == 0:
        return np.array([])
    low, high = float(values.min()), float(values.max())
    raw = (high - low) / bins if high > low else max(abs(low), 1.0) / bins
    power = 10.0 ** math.floor(math.log10(raw))
    width = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    start = math.floor(low / width) * width
    count = max(1, math.ceil((high - start) / width))
    if start + count * width <= high:  # the maximum belongs inside the last (closed) bin
        count += 1
    # Rounded to the width's precision so that edges read 600.0, not 600.0000000000001.
    return np.round(start + width * np.arange(count + 1), max(0, 1 - math.floor(math.log10(width))))


def bin_counts(values: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """``np.histogram(values, bins=edges)[0]`` for increasing edges: bins [e_i, e_i+1), the last one closed,
    values outside (NaN and infinities among them) left out. Given an array of edges numpy sorts the values block
    by block; here each value's bin is worked out from the edges' mean width and checked against the edges
    themselves, and the few a rounding put one bin off (or any, were the edges uneven) are searched for among
    the edges: the same counts, without a binary search of each of ten million latencies (0.17 s a release at
    10^7 against 0.07)."""
    n_bins = edges.size - 1
    # The bin's number + 1: 0 below the first edge, n_bins + 1 above the last (and NaN). Those two are counted and
    # dropped, not selected out of the values by a copy.
    counts = np.zeros(n_bins + 2, dtype=np.int64)
    if n_bins < 1:
        return counts[1:n_bins + 1]
    start, width = float(edges[0]), (float(edges[-1]) - float(edges[0])) / n_bins
    # A value's bin is right when it lies at or above the edge below and below the edge above; the outer ones are
    # -inf (nothing is below it) and NaN (nothing is at or above it: +inf stays past the last edge).
    below, above = np.concatenate(([-np.inf], edges)), np.concatenate((edges, [np.nan]))
    guess = np.empty(min(values.size, _BLOCK))
    # A block at a time: the guesses and their checks stay in the cache, and no array of every value is allocated.
    with np.errstate(over="ignore", invalid="ignore"):
        for first in range(0, values.size, _BLOCK):
            block = values[first:first + _BLOCK]
            bins = guess[:block.size]
            np.subtract(block, start, out=bins)
            bins /= width
            np.floor(bins, out=bins)
            bins += 1
            np.clip(bins, 0, n_bins + 1, out=bins)
            bins[np.isnan(bins)] = n_bins + 1  # NaN sorts after every edge, as in np.searchsorted
            index = bins.astype(np.intp)
            off = np.flatnonzero((block < below[index]) | (block >= above[index]))
            if off.size:
                index[off] = np.searchsorted(edges, block[off], side="right")
            index[block == edges[-1]] = n_bins
            counts += np.bincount(index, minlength=n_bins + 2)
    return counts[1:n_bins + 1]
