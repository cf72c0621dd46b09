"""The cost section's figures worked out without arrays of every pair: the in-place standard deviation is
numpy's to the last bit, and the p95 ratio's standard error from the pairs' 2 x 2 table is the array form's."""

import statistics

import numpy as np
import pytest

from releasegate.stats import costs_normal
from releasegate.stats.common import std_in_place


def _samples(seed: int, count: int):
    rng = np.random.default_rng(seed)
    for k in range(count):
        n = int(rng.integers(2, 4000)) if k % 8 else int(rng.integers(4000, 200_000))
        x = rng.normal(size=n) * 10 ** rng.uniform(-6, 6)
        if k % 4 == 1:
            x += rng.uniform(-1e4, 1e4)  # a large mean: the two-pass form's case
        elif k % 4 == 2:
            x = np.round(x, 1)
        elif k % 4 == 3:
            x = rng.choice([0.3, -0.7, 1.1, 2.5], size=n)
        yield x


@pytest.mark.parametrize("ddof", [0, 1])
def test_std_in_place_is_numpys_to_the_last_bit(ddof):
    for x in _samples(20261207 + ddof, 400):
        assert std_in_place(x.copy(), ddof) == float(np.std(x, ddof=ddof))


def test_std_in_place_against_the_standard_library():
    # statistics.stdev sums exactly (fractions), an independent value for the sample sd.
    for x in _samples(5, 60):
        x = x[:3000]
        assert std_in_place(x.copy(), 1) == pytest.approx(statistics.stdev(x.tolist()), rel=1e-12)


def test_std_in_place_overwrites_its_argument_with_the_squared_deviations():
    x = np.array([1.0, 2.0, 4.0, 9.0])
    sd = std_in_place(x, 1)
    assert sd == pytest.approx(statistics.stdev([1.0, 2.0, 4.0, 9.0]), rel=1e-15)
    assert x.tolist() == [9.0, 4.0, 0.0, 25.0]


def _latencies(rng, n, rounding):
    z = rng.normal(size=n)
    base = np.exp(7 + 0.5 * z)
    cand = np.exp(7 + 0.5 * (rng.uniform(-1, 1) * z + 0.6 * rng.normal(size=n)))
    if rounding:
        base, cand = np.round(base / rounding) * rounding, np.round(cand / rounding) * rounding
    return base, cand


@pytest.mark.parametrize("rounding", [0, 1, 100])
def test_p95_standard_error_from_the_two_by_two_table_is_the_arrays(rounding):
    rng = np.random.default_rng(11 + rounding)
    for _ in range(60):
        n = int(rng.integers(20, 60_000))
        base, cand = _latencies(rng, n, rounding)
        levels = costs_normal.quantile_levels(0.95, n, 0.95)
        at_b, at_c = np.quantile(base, levels), np.quantile(cand, levels)
        _, u_b = costs_normal._quantile_influence(base, 0.95, 0.95, at_b)
        _, u_c = costs_normal._quantile_influence(cand, 0.95, 0.95, at_c)
        _, *v_b = costs_normal._influence_values(0.95, 0.95, n, at_b)
        _, *v_c = costs_normal._influence_values(0.95, 0.95, n, at_c)
        # The two values are the very floats the array form holds.
        assert set(np.unique(u_b).tolist()) <= set(v_b) and set(np.unique(u_c).tolist()) <= set(v_c)
        table = costs_normal._difference_sd(base <= at_b[0], cand <= at_c[0], tuple(v_b), tuple(v_c))
        assert table == pytest.approx(float(np.std(u_c - u_b, ddof=1)), rel=1e-13)
        if n <= 3000:
            assert table == pytest.approx(statistics.stdev((u_c - u_b).tolist()), rel=1e-13)


def test_p95_interval_is_the_array_forms():
    """The whole interval against the delta method written with the arrays (the form before the table)."""
    rng = np.random.default_rng(3)
    for _ in range(30):
        n = int(rng.integers(2000, 50_000))
        base, cand = _latencies(rng, n, 0)
        q_b, u_b = costs_normal._quantile_influence(base, 0.95, 0.95)
        q_c, u_c = costs_normal._quantile_influence(cand, 0.95, 0.95)
        se = float(np.std(u_c - u_b, ddof=1)) / np.sqrt(n)
        old = costs_normal._log_interval(q_c / q_b, se, n, 0, 0.95)
        new = costs_normal.quantile_ratio_normal(base, cand)
        assert new.ratio == old.ratio
        assert (new.low, new.high) == pytest.approx((old.low, old.high), rel=1e-13)


@pytest.mark.parametrize("n", [1, 7, 65_536, 65_537, 200_003])
def test_the_log_ratio_a_block_at_a_time_is_the_whole_arrays(n):
    from releasegate.stats.costs import _subtract_log

    rng = np.random.default_rng(n)
    base, cand = rng.lognormal(6.5, 1.0, n), rng.lognormal(6.4, 1.0, n)
    out = np.log(cand)
    _subtract_log(out, base, block=4096 if n > 10 else 3)
    assert np.array_equal(out, np.log(cand) - np.log(base))
