"""The latency histogram's counts (analyze/histogram.py bin_counts) are numpy's histogram on the same edges, for
values on the edges, between them, outside them, NaN and infinite, over more values than one block holds, on the
edges the cost section makes and on uneven ones."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from releasegate.analyze import histogram
from releasegate.analyze.histogram import bin_counts, histogram_edges

SPECIAL = [math.nan, math.inf, -math.inf, 0.0, -0.0, 5e-324, 1e308, -1e308]


def _numpy(values: np.ndarray, edges: np.ndarray) -> list[int]:
    """np.histogram's counts, which leave NaN and infinite values out as values beyond the edges."""
    finite = values[np.isfinite(values)]
    return np.histogram(finite, bins=edges)[0].tolist()


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from(SPECIAL) | st.floats(-2, 12) | st.sampled_from([0.0, 0.1, 0.2, 0.3, 2.5, 10.0, 12.0]),
                min_size=0, max_size=60),
       st.sampled_from([[0.0, 1.0], [0.0, 2.5, 5.0, 7.5, 10.0], [1.0, 3.0, 4.0, 10.0], [0.0, 0.1, 0.2, 0.3],
                        [-1e-300, 0.0, 1e-300], [5.0]]))
def test_the_counts_are_numpys_whatever_the_values(values, edges) -> None:
    values, edges = np.array(values, dtype=float), np.array(edges)
    assert bin_counts(values, edges).tolist() == _numpy(values, edges)


@pytest.mark.parametrize("seed", range(4))
def test_the_counts_are_numpys_over_many_blocks(seed, monkeypatch) -> None:
    monkeypatch.setattr(histogram, "_BLOCK", 1000)  # 250 blocks, the last one short
    rng = np.random.default_rng(seed)
    values = rng.lognormal(6.8, 0.6, 249_500).round(seed % 3)
    edges = histogram_edges(np.array([values.min(), values.max()]))
    values[rng.integers(0, values.size, 3000)] = rng.choice(edges, 3000)  # every edge, many times
    values[:7] = [math.nan, math.inf, -math.inf, edges[0], edges[-1], edges[0] - 1e-9, edges[-1] + 1e-9]
    assert bin_counts(values, edges).tolist() == _numpy(values, edges)
    uneven = np.sort(rng.choice(values[np.isfinite(values)], 12, replace=False))
    uneven = np.unique(uneven)
    assert bin_counts(values, uneven).tolist() == _numpy(values, uneven)


def test_counts_by_hand() -> None:
    # Bins [0, 10), [10, 20), [20, 30]: 30 is in the last (closed) bin, 30.5, -1, NaN and inf in none.
    values = np.array([0.0, 9.99, 10.0, 19.9, 20.0, 29.99, 30.0, 30.5, -1.0, math.nan, math.inf, 15.0])
    assert bin_counts(values, np.array([0.0, 10.0, 20.0, 30.0])).tolist() == [2, 3, 3]
