"""A release's latency summary and the p95 ratio's quantiles from one selection (stats.costs.latency_quantiles,
the ``quantiles`` of stats.costs_normal.quantile_ratio_normal): the same figures, bit for bit, as selecting the
latencies once for each."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from releasegate.stats.costs import LatencySummary, latency_quantiles, latency_summary
from releasegate.stats.costs_normal import quantile_levels, quantile_ratio_normal

VALUES = st.lists(st.sampled_from([-1.0, 0.0, 100.0, 200.0, 300.0, math.nan, math.inf])
                  | st.floats(-10, 5000), min_size=0, max_size=80)
LEVELS = st.lists(st.floats(0.0, 1.0), min_size=0, max_size=5)


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b


def _summary_as_it_was(values: np.ndarray) -> LatencySummary:
    """latency_summary before latency_quantiles: its own selection of the p50 and p95."""
    kept = values[np.isfinite(values) & (values > 0)]
    if kept.size == 0:
        return LatencySummary(0, math.nan, math.nan, math.nan, int(values.size))
    mean = float(kept.mean())
    p50, p95 = np.quantile(kept, [0.5, 0.95], overwrite_input=True)
    return LatencySummary(int(kept.size), mean, float(p50), float(p95), int(values.size - kept.size))


@settings(max_examples=300, deadline=None, derandomize=True)
@given(VALUES, LEVELS)
def test_one_selection_gives_what_a_selection_each_gives(values, levels) -> None:
    values = np.array(values, dtype=float)
    got = latency_quantiles(values, levels)
    old = _summary_as_it_was(values.copy())
    assert got.summary.n == old.n and got.summary.excluded == old.excluded
    assert all(_same(a, b) for a, b in ((got.summary.mean, old.mean), (got.summary.p50, old.p50),
                                        (got.summary.p95, old.p95)))
    assert got.levels == tuple(levels) and len(got.quantiles) == len(levels)
    kept = values[np.isfinite(values) & (values > 0)]
    for level, quantile in zip(levels, got.quantiles):
        assert _same(quantile, float(np.quantile(kept, level)) if kept.size else math.nan)
    assert latency_summary(values) == got.summary or old.n == 0


def test_type_7_quantiles_by_hand() -> None:
    # R: quantile(c(1:10, NA, 0, -3), c(.5, .95, .9, .25, 0, 1), type = 7, na.rm = TRUE) on the positive values:
    # 5.5, 9.55, 9.1, 3.25, 1, 10 (position 1 + (n - 1) q between the order statistics around it).
    got = latency_quantiles([*range(1, 11), math.nan, 0.0, -3.0], [0.9, 0.25, 0.0, 1.0])
    assert (got.summary.n, got.summary.excluded, got.summary.mean) == (10, 3, 5.5)
    assert (got.summary.p50, got.summary.p95) == pytest.approx((5.5, 9.55), rel=1e-15)
    assert got.quantiles == pytest.approx((9.1, 3.25, 1.0, 10.0), rel=1e-15)
    nothing = latency_quantiles([0.0, math.nan], [0.5])
    assert nothing.summary.n == 0 and math.isnan(nothing.quantiles[0])


PAIRS = st.integers(2, 3000).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, 2**32 - 1), st.sampled_from(
    [0.0, 1.0, 100.0])))


@settings(max_examples=60, deadline=None, derandomize=True)
@given(PAIRS)
def test_the_ratio_on_the_releases_own_quantiles_is_the_ratio(pairs) -> None:
    """Continuous latencies and latencies rounded to 100 ms (the ties hand over to the bootstrap): every figure of
    the ratio is the same whether its quantiles were selected by it or given."""
    n, seed, rounding = pairs
    rng = np.random.default_rng(seed)
    base = rng.lognormal(6.5, 0.5, n)
    cand = base * rng.lognormal(-0.1, 0.3, n)
    if rounding:
        base, cand = (np.maximum(rounding, np.round(x / rounding) * rounding) for x in (base, cand))
    levels = quantile_levels(0.95, n, 0.9)
    given_ = (latency_quantiles(base, levels).quantiles, latency_quantiles(cand, levels).quantiles)
    assert quantile_ratio_normal(base, cand, 0.95, 0.9, given_) == quantile_ratio_normal(base, cand, 0.95, 0.9)


def test_given_quantiles_are_read_only_when_every_pair_is_kept() -> None:
    rng = np.random.default_rng(3)
    base, cand = rng.lognormal(6, 0.5, 500), rng.lognormal(6, 0.5, 500)
    wrong = ((1.0, 1.0, 1.0), (2.0, 2.0, 2.0))
    assert quantile_ratio_normal(base, cand, quantiles=wrong).ratio == 2.0  # read: the ratio is theirs
    base[7] = math.nan  # a pair dropped: the releases' quantiles are no longer the pairs'
    assert quantile_ratio_normal(base, cand, quantiles=wrong) == quantile_ratio_normal(base, cand)
    with pytest.raises(ValueError, match="three"):
        quantile_ratio_normal(rng.lognormal(6, 0.5, 50), rng.lognormal(6, 0.5, 50), quantiles=((1.0,), (1.0,)))
