"""Tests for releasegate.stats.costs (SPEC section 4 item 8): latency summary, geometric-mean ratio,
p95 ratio and ratio of totals with paired bootstrap intervals. Orientation: ratio = candidate / baseline."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st

from releasegate.stats.costs import (
    LatencySummary,
    RatioResult,
    geometric_mean_ratio,
    latency_summary,
    quantile_ratio_bootstrap,
    ratio_of_totals_bootstrap,
)
from releasegate.stats.resamples import (
    _BLOCK_BYTES,
    ResampleDraws,
    _block_size,
    _resample_counts,
    resample_counts,
    resampled_quantile,
)

# stat-vectors.json, entry "latency_paired": base_ms and cand_ms.
BASE_MS = [
    918.6,
    1111.3,
    913.0,
    475.0,
    1149.1,
    956.4,
    645.4,
    1009.3,
    925.6,
    899.9,
    809.1,
    995.6,
    595.9,
    749.5,
    659.7,
]
CAND_MS = [
    854.2,
    950.3,
    742.7,
    359.1,
    939.8,
    813.9,
    526.4,
    1041.7,
    915.0,
    509.3,
    518.0,
    824.4,
    475.4,
    657.8,
    579.3,
]
# stat-vectors.json, entry "latency_paired": p95_base_numpy_linear, p95_cand_numpy_linear (R type 7).
P95_BASE = 1122.6399999999999
P95_CAND = 977.7199999999999
# stat-vectors.json, entry "latency_paired": median_base, median_cand.
MEDIAN_BASE = 913.0
MEDIAN_CAND = 742.7
# stat-vectors.json, entry "latency_paired": geometric_mean_ratio.
GEOMETRIC_MEAN_RATIO = 0.8213682017289134

PROPERTY = settings(max_examples=50, derandomize=True, deadline=None)
latency = st.floats(min_value=1.0, max_value=1e5, allow_nan=False)
latencies = st.lists(latency, min_size=2, max_size=40)
BAD = [float("nan"), 0.0, -1.0, -250.0, float("inf"), float("-inf"), None]


def _pairs(min_size: int = 2) -> st.SearchStrategy:
    return st.lists(st.tuples(latency, latency), min_size=min_size, max_size=40).map(
        lambda p: (np.array([b for b, _ in p]), np.array([c for _, c in p]))
    )


# ---------------------------------------------------------------------------------------------- vectors


def test_latency_summary_vectors() -> None:
    base, cand = latency_summary(BASE_MS), latency_summary(CAND_MS)
    assert isinstance(base, LatencySummary)
    assert base.p95 == pytest.approx(P95_BASE, rel=1e-12)
    assert cand.p95 == pytest.approx(P95_CAND, rel=1e-12)
    assert base.p50 == pytest.approx(MEDIAN_BASE, rel=1e-12)
    assert cand.p50 == pytest.approx(MEDIAN_CAND, rel=1e-12)
    assert base.mean == pytest.approx(sum(BASE_MS) / 15, rel=1e-12)
    assert (base.n, base.excluded) == (15, 0)


def test_geometric_mean_ratio_vectors_and_t_interval() -> None:
    res = geometric_mean_ratio(BASE_MS, CAND_MS)
    assert isinstance(res, RatioResult)
    assert res.ratio == pytest.approx(GEOMETRIC_MEAN_RATIO, rel=1e-12)
    # Expected interval computed independently with scipy.stats.t on the per-case log ratios.
    r = np.log(np.array(CAND_MS) / np.array(BASE_MS))
    low, high = scipy.stats.t.interval(0.95, df=r.size - 1, loc=r.mean(), scale=scipy.stats.sem(r))
    assert res.low == pytest.approx(math.exp(low), rel=1e-10)
    assert res.high == pytest.approx(math.exp(high), rel=1e-10)
    assert (res.n, res.excluded, res.method, res.confidence) == (15, 0, "t on log ratios", 0.95)
    res90 = geometric_mean_ratio(BASE_MS, CAND_MS, confidence=0.90)
    low90, high90 = scipy.stats.t.interval(0.90, df=r.size - 1, loc=r.mean(), scale=scipy.stats.sem(r))
    assert (res90.low, res90.high) == pytest.approx((math.exp(low90), math.exp(high90)), rel=1e-10)


def test_p95_ratio_vectors() -> None:
    res = quantile_ratio_bootstrap(BASE_MS, CAND_MS)
    assert res.ratio == pytest.approx(P95_CAND / P95_BASE, rel=1e-12)
    assert res.low <= res.ratio <= res.high
    assert (res.n, res.excluded, res.method) == (15, 0, "paired bootstrap")
    med = quantile_ratio_bootstrap(BASE_MS, CAND_MS, q=0.5, n_resamples=2000)
    assert med.ratio == pytest.approx(MEDIAN_CAND / MEDIAN_BASE, rel=1e-12)


def test_ratio_of_totals_point_estimate() -> None:
    res = ratio_of_totals_bootstrap(BASE_MS, CAND_MS)
    assert res.ratio == pytest.approx(sum(CAND_MS) / sum(BASE_MS), rel=1e-12)
    assert res.low < res.ratio < res.high
    assert res.method == "paired bootstrap"


# ------------------------------------------------------------------------------- bootstrap correctness


@pytest.mark.parametrize("q", [0.0, 0.05, 0.5, 0.9, 0.95, 0.99, 1.0])
@pytest.mark.parametrize("n", [1, 2, 3, 15, 101])
def test_count_based_quantile_equals_numpy(q: float, n: int) -> None:
    # The count trick must reproduce np.quantile (type 7) on the gathered resamples, ties included.
    rng = np.random.default_rng(n)
    values = np.round(rng.lognormal(6, 0.5, n), -1)  # rounding creates ties
    idx = rng.integers(0, n, size=(64, n), dtype=np.int32)
    order = np.argsort(values, kind="stable")
    got = resampled_quantile(_resample_counts(idx), order, values[order], q)
    np.testing.assert_allclose(got, np.quantile(values[idx], q, axis=1), rtol=1e-12)


def test_count_based_quantile_tail_and_fallback_rows() -> None:
    # The upper-tail shortcut must agree with the full count, including resamples that drew mostly small values
    # (forcing the fallback) and a sample large enough for the shortcut to apply.
    rng = np.random.default_rng(9)
    n = 400
    values = np.round(rng.lognormal(6, 0.5, n), -1)
    order = np.argsort(values, kind="stable")
    idx = rng.integers(0, n, size=(50, n), dtype=np.int32)
    idx[:5] = order[rng.integers(0, 40, size=(5, n))]  # only the 40 smallest cases: outside the tail
    for q in (0.5, 0.9, 0.95, 0.99):
        got = resampled_quantile(_resample_counts(idx), order, values[order], q)
        np.testing.assert_allclose(got, np.quantile(values[idx], q, axis=1), rtol=1e-12)


def test_kept_and_drawn_resamples_are_the_same_stream() -> None:
    # Every statistic of a comparison reuses one kept draw: it must be the draw a fresh generator gives.
    draws = ResampleDraws(1_200, 5)
    kept = list(draws.counts(300))
    fresh = np.concatenate(list(resample_counts(300, 1_200, 5)))
    np.testing.assert_array_equal(np.concatenate(kept), fresh)
    assert draws.counts(300) is draws.counts(300)  # kept by the caller's object, not by the module
    assert ResampleDraws(1_200, 5).counts(300) is not draws.counts(300)
    assert all(not block.flags.writeable for block in kept)
    assert (np.concatenate(kept).sum(axis=1) == 300).all()
    # The statistics give the same figures with a shared draw as with their own.
    rng = np.random.default_rng(0)
    base, cand = rng.lognormal(6, 0.3, 300), rng.lognormal(6, 0.3, 300)
    assert ratio_of_totals_bootstrap(base, cand, 1_200, 5, draws=draws) == ratio_of_totals_bootstrap(base, cand,
                                                                                                     1_200, 5)
    with pytest.raises(ValueError, match="other resamples"):
        ratio_of_totals_bootstrap(base, cand, 1_000, 5, draws=draws)


def test_totals_interval_contains_true_ratio_half() -> None:
    # True ratio of totals 0.5: the candidate costs half per case, times mean-one lognormal noise.
    rng = np.random.default_rng(20240501)
    base = rng.lognormal(np.log(0.01), 0.8, 400)
    cand = 0.5 * base * rng.lognormal(-(0.3**2) / 2, 0.3, 400)
    res = ratio_of_totals_bootstrap(base, cand, seed=7)
    assert res.low < 0.5 < res.high
    assert res.high - res.low < 0.1


def test_bootstrap_agrees_with_scipy_bootstrap() -> None:
    # Different random streams, so agreement is up to Monte Carlo error only.
    rng = np.random.default_rng(3)
    base = rng.lognormal(np.log(800), 0.4, 200)
    cand = base * rng.lognormal(np.log(0.9), 0.2, 200)
    for ours, stat in [
        (quantile_ratio_bootstrap(base, cand), lambda b, c: np.quantile(c, 0.95) / np.quantile(b, 0.95)),
        (ratio_of_totals_bootstrap(base, cand), lambda b, c: c.sum() / b.sum()),
    ]:
        ref = scipy.stats.bootstrap(
            (base, cand),
            stat,
            paired=True,
            vectorized=False,
            n_resamples=10_000,
            method="percentile",
            random_state=np.random.default_rng(11),
        ).confidence_interval
        assert ours.low == pytest.approx(ref.low, rel=0.01)
        assert ours.high == pytest.approx(ref.high, rel=0.01)


def test_block_size_bounds_memory() -> None:
    assert _block_size(400, 10_000) == 500
    assert _block_size(400, 30) == 30
    for n in (10_000, 100_000, 1_000_000, 10_000_000):
        block = _block_size(n, 10_000)
        assert block >= 1
        assert block == 1 or block * n * 32 <= _BLOCK_BYTES


def test_large_n_runs_in_blocks() -> None:
    rng = np.random.default_rng(5)
    base = rng.lognormal(7, 0.4, 100_000)
    cand = base * 0.8
    res = ratio_of_totals_bootstrap(base, cand, n_resamples=50)
    assert res.ratio == pytest.approx(0.8) and res.low == pytest.approx(0.8) == res.high
    res = quantile_ratio_bootstrap(base, cand, n_resamples=50)
    assert res.low == pytest.approx(0.8) == res.high


# ------------------------------------------------------------------------------------------ edge cases


def test_empty_and_all_invalid() -> None:
    s = latency_summary([float("nan"), 0, -3])
    assert (s.n, s.excluded) == (0, 3) and math.isnan(s.mean) and math.isnan(s.p95)
    for f in (geometric_mean_ratio, quantile_ratio_bootstrap, ratio_of_totals_bootstrap):
        res = f([], [])
        assert res.n == 0 and res.excluded == 0
        assert math.isnan(res.ratio) and math.isnan(res.low) and math.isnan(res.high)


def test_single_pair_has_ratio_but_no_interval() -> None:
    for f in (geometric_mean_ratio, quantile_ratio_bootstrap, ratio_of_totals_bootstrap):
        res = f([200.0, None], [100.0, 50.0])
        assert res.ratio == pytest.approx(0.5) and (res.n, res.excluded) == (1, 1)
        assert math.isnan(res.low) and math.isnan(res.high)


def test_constant_log_ratio_gives_zero_width_t_interval() -> None:
    res = geometric_mean_ratio([100.0, 200.0, 400.0], [50.0, 100.0, 200.0])
    assert (res.ratio, res.low, res.high) == pytest.approx((0.5, 0.5, 0.5))


def test_totals_zero_baseline_total_is_nan() -> None:
    res = ratio_of_totals_bootstrap([0.0, 0.0, 0.0], [1.0, 2.0, 0.0])
    assert math.isnan(res.ratio) and math.isnan(res.low) and math.isnan(res.high)
    assert (res.n, res.excluded) == (3, 0)


def test_totals_keep_zeros_and_drop_negatives() -> None:
    res = ratio_of_totals_bootstrap([1.0, 0.0, 2.0, -1.0, float("nan")], [0.0, 3.0, 2.0, 1.0, 1.0])
    assert (res.n, res.excluded) == (3, 2)
    assert res.ratio == pytest.approx(5.0 / 3.0)


def test_totals_resamples_with_zero_baseline_total_give_infinite_upper_bound() -> None:
    # Most baseline totals are zero, so many resamples have a zero denominator (+inf): no NaN bounds.
    base = [0.0] * 8 + [1.0]
    cand = [1.0] * 9
    res = ratio_of_totals_bootstrap(base, cand, n_resamples=2000)
    assert res.ratio == pytest.approx(9.0)
    assert res.high == math.inf and math.isfinite(res.low)


def test_invalid_arguments_raise() -> None:
    with pytest.raises(ValueError, match="same length"):
        geometric_mean_ratio([1.0, 2.0], [1.0])
    with pytest.raises(ValueError, match="one-dimensional"):
        latency_summary([[1.0, 2.0]])
    with pytest.raises(ValueError, match="confidence"):
        geometric_mean_ratio([1.0, 2.0], [1.0, 2.0], confidence=95)
    with pytest.raises(ValueError, match="q must"):
        quantile_ratio_bootstrap([1.0, 2.0], [1.0, 2.0], q=95)
    with pytest.raises(ValueError, match="n_resamples"):
        ratio_of_totals_bootstrap([1.0, 2.0], [1.0, 2.0], n_resamples=0)


def test_results_are_frozen() -> None:
    res = geometric_mean_ratio(BASE_MS, CAND_MS)
    with pytest.raises(AttributeError):
        res.ratio = 1.0  # type: ignore[misc]


# ------------------------------------------------------------------------------------------ properties


@PROPERTY
@given(_pairs())
def test_swap_inverts_geometric_mean_ratio_and_interval(pair: tuple[np.ndarray, np.ndarray]) -> None:
    base, cand = pair
    fwd, back = geometric_mean_ratio(base, cand), geometric_mean_ratio(cand, base)
    assert back.ratio == pytest.approx(1 / fwd.ratio, rel=1e-9)
    assert back.low == pytest.approx(1 / fwd.high, rel=1e-9)
    assert back.high == pytest.approx(1 / fwd.low, rel=1e-9)


@PROPERTY
@given(_pairs(), st.floats(min_value=1e-3, max_value=1e3))
def test_scaling_both_leaves_ratios_unchanged(pair: tuple[np.ndarray, np.ndarray], c: float) -> None:
    base, cand = pair
    for f, kw in [
        (geometric_mean_ratio, {}),
        (quantile_ratio_bootstrap, {"n_resamples": 300, "seed": 1}),
        (ratio_of_totals_bootstrap, {"n_resamples": 300, "seed": 1}),
    ]:
        a, b = f(base, cand, **kw), f(base * c, cand * c, **kw)
        assert (b.ratio, b.low, b.high) == pytest.approx((a.ratio, a.low, a.high), rel=1e-9)


@PROPERTY
@given(_pairs(), st.floats(min_value=0.5, max_value=0.99))
def test_t_interval_contains_estimate(pair: tuple[np.ndarray, np.ndarray], conf: float) -> None:
    base, cand = pair
    res = geometric_mean_ratio(base, cand, confidence=conf)
    assert res.low <= res.ratio * (1 + 1e-12) and res.ratio <= res.high * (1 + 1e-12)


def test_an_interval_past_the_largest_float_ends_at_inf_without_a_warning() -> None:
    # Two pairs a factor 1e5 apart either way: mean log ratio 0, half-width t(0.995, 1) * 11.5 = 733 > 709.78,
    # so exp of the upper end is past the largest float: +inf (the lower end near 0), said and not warned.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = geometric_mean_ratio([1.0, 1e5], [1e5, 1.0], confidence=0.99)
        one = geometric_mean_ratio([1e-300], [1e300])
    assert res.ratio == pytest.approx(1.0) and res.high == math.inf and 0.0 <= res.low < 1e-300
    assert one.ratio == math.inf and math.isnan(one.low) and math.isnan(one.high)
    assert geometric_mean_ratio([1e300], [1e-300]).ratio == 0.0


extreme = st.floats(min_value=-690.0, max_value=690.0).map(math.exp)  # 1e-300 .. 1e300, any order of size


@PROPERTY
@pytest.mark.filterwarnings("error::RuntimeWarning")
@given(st.lists(st.tuples(extreme, extreme), min_size=1, max_size=6), st.floats(min_value=0.5, max_value=0.999))
def test_any_valid_pairs_give_an_ordered_interval_without_a_warning(pairs, conf: float) -> None:
    base, cand = np.array([b for b, _ in pairs]), np.array([c for _, c in pairs])
    fwd, back = geometric_mean_ratio(base, cand, confidence=conf), geometric_mean_ratio(cand, base, confidence=conf)
    assert fwd.ratio >= 0 and not math.isnan(fwd.ratio)
    if len(pairs) > 1:
        assert fwd.low <= fwd.ratio * (1 + 1e-12) and fwd.ratio <= fwd.high * (1 + 1e-12)
        # the swap inverts the interval, an infinite end included (1 / inf = 0)
        for a, b in ((back.low, fwd.high), (back.high, fwd.low)):
            assert a == pytest.approx(1 / b if b else math.inf, rel=1e-9, abs=1e-300)


@PROPERTY
@given(
    st.integers(0, 2**32 - 1),
    st.integers(30, 200),
    st.floats(min_value=0.05, max_value=1.0),
    st.floats(min_value=0.3, max_value=3.0),
)
def test_bootstrap_intervals_contain_estimate(
    data_seed: int, n: int, sigma: float, true_ratio: float
) -> None:
    # A percentile interval need not contain the estimate for every conceivable data set (e.g. a handful
    # of cases), so the data are realistic latencies: lognormal, 30-200 cases.
    rng = np.random.default_rng(data_seed)
    base = rng.lognormal(np.log(800), sigma, n)
    cand = true_ratio * base * rng.lognormal(0.0, sigma / 2, n)
    for res in (
        quantile_ratio_bootstrap(base, cand, n_resamples=1000),
        ratio_of_totals_bootstrap(base, cand, n_resamples=1000),
    ):
        assert res.low <= res.ratio <= res.high


@PROPERTY
@given(_pairs(), st.integers(0, 2**63 - 1))
def test_same_seed_same_interval(pair: tuple[np.ndarray, np.ndarray], seed: int) -> None:
    base, cand = pair
    for f in (quantile_ratio_bootstrap, ratio_of_totals_bootstrap):
        a = f(base, cand, n_resamples=300, seed=seed)
        b = f(base.tolist(), cand.tolist(), n_resamples=300, seed=seed)
        assert a == b


@PROPERTY
@given(st.lists(st.one_of(latency, st.sampled_from(BAD)), max_size=40))
def test_latency_summary_excluded_count(values: list) -> None:
    bad = sum(1 for v in values if v is None or not (math.isfinite(v) and v > 0))
    s = latency_summary(values)
    assert (s.n, s.excluded) == (len(values) - bad, bad)
    good = [v for v in values if v is not None and math.isfinite(v) and v > 0]
    if good:
        assert s.p95 == pytest.approx(float(np.quantile(good, 0.95)))


@PROPERTY
@given(
    st.lists(
        st.tuples(st.one_of(latency, st.sampled_from(BAD)), st.one_of(latency, st.sampled_from(BAD))),
        max_size=40,
    )
)
def test_paired_excluded_count(pairs: list) -> None:
    def ok(v: float | None) -> bool:
        return v is not None and math.isfinite(v) and v > 0

    base = [b for b, _ in pairs]
    cand = [c for _, c in pairs]
    kept = [(b, c) for b, c in pairs if ok(b) and ok(c)]
    for f, kw in [
        (geometric_mean_ratio, {}),
        (quantile_ratio_bootstrap, {"n_resamples": 200}),
    ]:
        res = f(base, cand, **kw)
        assert (res.n, res.excluded) == (len(kept), len(pairs) - len(kept))
    if kept:
        expected = math.exp(np.mean([math.log(c / b) for b, c in kept]))
        assert geometric_mean_ratio(base, cand).ratio == pytest.approx(expected, rel=1e-9)
    # Totals keep zeros: only missing, infinite or negative values drop a pair.
    zero_ok = [(b, c) for b, c in pairs if all(v is not None and math.isfinite(v) and v >= 0 for v in (b, c))]
    res = ratio_of_totals_bootstrap(base, cand, n_resamples=200)
    assert (res.n, res.excluded) == (len(zero_ok), len(pairs) - len(zero_ok))
