"""Tests for releasegate.stats.costs_normal, the large-sample route of the cost ratios.

The delta-method intervals must agree with the paired bootstrap they replace, and cover the true ratio at the
nominal rate in simulation (lognormal latencies with a known p95 ratio and a known ratio of means).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.stats

from releasegate.stats.costs import quantile_ratio_bootstrap, ratio_of_totals_bootstrap
from releasegate.stats.costs_normal import (
    hall_sheather_bandwidth,
    quantile_ratio_normal,
    ratio_of_totals_normal,
)

SB, MR, SR = 0.4, -0.2, 0.25  # baseline log-sd; candidate = baseline x lognormal(MR, SR)
Z95 = scipy.stats.norm.ppf(0.95)
TRUE_P95_RATIO = math.exp(MR + Z95 * (math.hypot(SB, SR) - SB))
TRUE_MEAN_RATIO = math.exp(MR + SR**2 / 2)


def _pair(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    base = rng.lognormal(7.0, SB, n)
    return base, base * rng.lognormal(MR, SR, n)


def test_hall_sheather_bandwidth_formula() -> None:
    # R quantreg bandwidth.rq(p, n, hs = TRUE, alpha = 0.05), written with scipy.stats.norm.
    for q, n in ((0.95, 1000), (0.5, 400), (0.99, 100_000)):
        x0 = scipy.stats.norm.ppf(q)
        f0 = scipy.stats.norm.pdf(x0)
        expected = n ** (-1 / 3) * scipy.stats.norm.ppf(0.975) ** (2 / 3) * (1.5 * f0**2 / (2 * x0**2 + 1)) ** (1 / 3)
        assert hall_sheather_bandwidth(q, n) == pytest.approx(expected, rel=1e-12)


def test_agrees_with_the_paired_bootstrap_at_the_switch_size() -> None:
    rng = np.random.default_rng(5)
    base, cand = _pair(rng, 2000)
    for normal, boot in ((quantile_ratio_normal(base, cand), quantile_ratio_bootstrap(base, cand, n_resamples=4000)),
                         (ratio_of_totals_normal(base, cand), ratio_of_totals_bootstrap(base, cand, n_resamples=4000))):
        assert normal.ratio == boot.ratio
        half = math.log(boot.high / boot.low) / 2
        assert abs(math.log(normal.low / boot.low)) < 0.15 * half
        assert abs(math.log(normal.high / boot.high)) < 0.15 * half
        assert normal.method == "normal approximation"


def test_coverage_in_simulation() -> None:
    rng = np.random.default_rng(2024)
    reps, n = 600, 2000
    hits_q = hits_t = 0
    for _ in range(reps):
        base, cand = _pair(rng, n)
        q = quantile_ratio_normal(base, cand)
        t = ratio_of_totals_normal(base, cand)
        hits_q += q.low <= TRUE_P95_RATIO <= q.high
        hits_t += t.low <= TRUE_MEAN_RATIO <= t.high
    # 95% nominal; three binomial standard errors (about 0.027) either side.
    assert 0.92 <= hits_q / reps <= 0.98
    assert 0.92 <= hits_t / reps <= 0.98


def test_swap_inverts_and_scaling_leaves_unchanged() -> None:
    rng = np.random.default_rng(9)
    base, cand = _pair(rng, 500)
    for f in (quantile_ratio_normal, ratio_of_totals_normal):
        a, b = f(base, cand), f(cand, base)
        assert b.ratio == pytest.approx(1 / a.ratio, rel=1e-12)
        if f is quantile_ratio_normal:
            assert (b.low, b.high) == pytest.approx((1 / a.high, 1 / a.low), rel=1e-12)
        scaled = f(base * 3.0, cand * 3.0)
        assert (scaled.ratio, scaled.low, scaled.high) == pytest.approx((a.ratio, a.low, a.high), rel=1e-9)


def test_exclusions_and_edge_cases() -> None:
    r = quantile_ratio_normal([100.0, float("nan"), 0.0, 120.0, 130.0], [90.0, 80.0, 70.0, -1.0, 140.0])
    assert (r.n, r.excluded) == (2, 3)
    t = ratio_of_totals_normal([1.0, 0.0, float("nan")], [2.0, 0.0, 3.0])
    assert (t.n, t.excluded, t.ratio) == (2, 1, 2.0)
    assert math.isnan(ratio_of_totals_normal([0.0, 0.0], [1.0, 2.0]).ratio)
    single = quantile_ratio_normal([100.0], [50.0])
    assert single.ratio == 0.5 and math.isnan(single.low)
    zero = ratio_of_totals_normal([1.0, 2.0], [0.0, 0.0])
    assert zero.ratio == 0.0 and math.isnan(zero.high)
    with pytest.raises(ValueError):
        quantile_ratio_normal([1.0, 2.0], [1.0, 2.0], q=1.0)
    with pytest.raises(ValueError):
        ratio_of_totals_normal([1.0, 2.0], [1.0, 2.0], confidence=1.5)


def _totals_reference(base: np.ndarray, cand: np.ndarray, confidence: float = 0.95) -> tuple[float, float, float]:
    """The ratio of totals and its delta-method interval, the formula of the docstring in 50-digit decimals
    (no float total, square or sum can overflow there): R = sum c / sum b, se = sd(c - R b) / (sqrt(n) mean b),
    R exp(-/+ z se / R), z from the standard library's normal distribution."""
    from decimal import Decimal, localcontext
    from statistics import NormalDist

    with localcontext() as context:
        context.prec = 50
        b, c = [Decimal(float(x)) for x in base], [Decimal(float(x)) for x in cand]
        n = len(b)
        ratio = sum(c) / sum(b)
        residual = [ci - ratio * bi for bi, ci in zip(b, c)]
        mean = sum(residual) / n
        sd = (sum((r - mean) ** 2 for r in residual) / (n - 1)).sqrt()
        se_log = sd / (Decimal(n).sqrt() * (sum(b) / n)) / ratio
        z = Decimal(NormalDist().inv_cdf(0.5 + confidence / 2))
        return float(ratio), float(ratio * (-z * se_log).exp()), float(ratio * (z * se_log).exp())


@pytest.mark.filterwarnings("error::RuntimeWarning")
@pytest.mark.parametrize("base_at, cand_at", [(1.0, 1.0), (1e300, 1e300), (1e300, 1e290), (1e-300, 1e-300),
                                              (1e-200, 1e100), (1.7e308, 1.7e308)])
def test_the_ratio_of_totals_is_finite_and_right_at_any_magnitude(base_at: float, cand_at: float) -> None:
    """Costs or latencies whose totals pass about 1e154 once squared to inf, and the interval was [0, inf]; the
    figures now match the formula computed in decimals, near 1e300, near the largest float, and at ordinary
    magnitudes alike."""
    rng = np.random.default_rng(4)
    unit_base, unit_cand = rng.uniform(0.2, 1.0, 40), rng.uniform(0.2, 1.0, 40)
    base, cand = unit_base * base_at, unit_cand * cand_at
    got = ratio_of_totals_normal(base, cand)
    assert all(math.isfinite(x) and x > 0 for x in (got.ratio, got.low, got.high)), got
    assert (got.ratio, got.low, got.high) == pytest.approx(_totals_reference(base, cand), rel=1e-12)


@pytest.mark.filterwarnings("error::RuntimeWarning")
def test_the_scaled_form_is_the_unscaled_formula_to_the_last_bit() -> None:
    """Powers of two divide exactly: releases scaled by 2^900 (each total past 1e270) give the very figures of the
    unscaled ones, and so does one release scaled alone, its ratio by the scale."""
    rng = np.random.default_rng(5)
    base, cand = _pair(rng, 300)
    plain = ratio_of_totals_normal(base, cand)
    both = ratio_of_totals_normal(base * 2.0**900, cand * 2.0**900)
    assert (both.ratio, both.low, both.high) == (plain.ratio, plain.low, plain.high)
    alone = ratio_of_totals_normal(base, cand * 2.0**900)
    assert (alone.ratio, alone.low, alone.high) == (plain.ratio * 2.0**900, plain.low * 2.0**900,
                                                    plain.high * 2.0**900)
