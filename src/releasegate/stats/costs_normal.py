"""Normal-approximation intervals for the cost ratios, the cheap route for large samples.

The paired bootstrap of :mod:`releasegate.stats.costs` costs O(n x resamples): about 4 s for the p95 ratio at
100,000 cases and only 1,000 resamples. For large n the delta method gives the same interval for O(n log n);
:mod:`releasegate.analyze.costs` switches to these functions above a work size and says so in the report.
Both functions return :class:`releasegate.stats.costs.RatioResult` with the same exclusion rules as their
bootstrap counterparts, and both build the interval on the log scale (exp of log ratio -/+ z se), so the
bounds stay positive and swapping the releases inverts the interval exactly, as for the t interval.

* p95 (any quantile) ratio: the Bahadur representation of a sample quantile,
  Q_hat - Q ~ s (q - 1{x <= Q}) averaged, with the sparsity s = 1 / f(Q) estimated by the
  Siddiqui-Bloch-Gastwirth difference quotient of type 7 quantiles at q -/+ h and the Hall-Sheather
  bandwidth h (Koenker 2005, Quantile Regression, section 3.4; R quantreg's ``bandwidth.rq(hs = TRUE)``).
  The per-case influence values of log Q_c - log Q_b are differenced case by case, so the covariance between
  the two releases (the pairing) enters the variance.
  With ties at the quantile (latencies rounded to 100 ms) the sample quantile is lumpy, jumping between
  neighbouring distinct values, and this interval under-covers (95% coverage 0.69 at 100 ms and 0.85 at 50 ms
  rounding, 3,000 pairs; bench/p95_ties.py). When the share of cases sitting exactly at either release's
  sample quantile exceeds the standard error of the empirical distribution function there,
  sqrt(q (1 - q) / n), the function hands over to the paired bootstrap (``TIE_RESAMPLES`` resamples), which
  reproduces the lumps (coverage 0.95-1.00 there).
* ratio of totals: the ratio estimator's linearisation (Cochran 1977, Sampling Techniques, section 6.3),
  influence (c_i - R b_i) / mean(b), on the log scale through se / R.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from releasegate.stats.common import check_confidence, std_in_place
from releasegate.stats.costs import RatioResult, paired_positive, quantile_ratio_bootstrap
from releasegate.stats.distributions import normal_quantile

__all__ = ["hall_sheather_bandwidth", "heavy_ties_at_quantile", "quantile_levels", "quantile_ratio_normal",
           "ratio_of_totals_normal"]

METHOD = "normal approximation"
TIE_RESAMPLES = 2000  # bounded: the hand-over happens at large n, where each resample costs O(n)
TIE_METHOD = f"paired bootstrap (ties at the quantile, {TIE_RESAMPLES:,} resamples)"


def heavy_ties_at_quantile(values: np.ndarray, q: float, quantile: float | None = None,
                           below: np.ndarray | None = None) -> bool:
    """True when the share of values equal to the sample q-quantile exceeds sqrt(q (1 - q) / n), the
    standard error of the empirical CDF there: the quantile then moves in jumps the delta method cannot see.
    Continuous data (one case per distinct value) never qualify; 100-ms rounding at thousands of cases
    does. ``quantile``: the type 7 q-quantile of ``values`` when the caller has it (a selection over ten
    million values is 0.08 s); ``below``: ``values <= quantile``, when the caller has it."""
    n = values.size
    if quantile is None:
        quantile = np.quantile(values, q)
    # The type 7 quantile may interpolate between two tied runs: either neighbour's run counts.
    # Reductions over the values on each side, not copies of them (95% of the cases at q = 0.95).
    lower = values.max(where=values <= quantile if below is None else below, initial=-np.inf)
    upper = values.min(where=values >= quantile, initial=np.inf)
    mass = max(np.count_nonzero(values == lower), np.count_nonzero(values == upper)) / n
    return bool(mass > 1.0 / n and mass > math.sqrt(q * (1.0 - q) / n))


def hall_sheather_bandwidth(q: float, n: int, confidence: float = 0.95) -> float:
    """Hall & Sheather (1988) bandwidth for the sparsity at quantile q, as R quantreg's bandwidth.rq(hs=TRUE).

    h = n^(-1/3) z_{(1+confidence)/2}^(2/3) (1.5 phi(z_q)^2 / (2 z_q^2 + 1))^(1/3).
    """
    zq = normal_quantile(q)
    phi = math.exp(-zq * zq / 2.0) / math.sqrt(2.0 * math.pi)
    z = normal_quantile(0.5 + confidence / 2.0)
    # float(): int ** float is typed as Any (a negative base would give a complex); every base here is > 0.
    return float(n ** (-1.0 / 3.0) * z ** (2.0 / 3.0)
                 * (1.5 * phi * phi / (2.0 * zq * zq + 1.0)) ** (1.0 / 3.0))


def quantile_levels(q: float, n: int, confidence: float = 0.95) -> tuple[float, float, float]:
    """The levels at which :func:`quantile_ratio_normal` reads each release's quantiles on n pairs: q and the two
    levels of the sparsity's difference quotient, q -/+ the Hall-Sheather bandwidth."""
    h = hall_sheather_bandwidth(q, n, confidence)
    return q, max(q - h, 0.0), min(q + h, 1.0)


def _quantile_influence(values: np.ndarray, q: float, confidence: float,
                        quantiles: np.ndarray | None = None) -> tuple[float, np.ndarray]:
    """The type 7 q-quantile and each case's influence on its logarithm (Bahadur term / quantile);
    ``quantiles``: the values' quantiles at :func:`quantile_levels` when the caller has them. The array form, which
    the tests and bench/p95_ties.py read: :func:`quantile_ratio_normal` takes the two values it holds
    (:func:`_influence_values`) and their pairs' table (:func:`_difference_sd`) instead."""
    _, lo, hi = levels = quantile_levels(q, values.size, confidence)
    quantile, q_lo, q_hi = np.quantile(values, levels) if quantiles is None else quantiles
    sparsity = (q_hi - q_lo) / (hi - lo)
    influence = q - (values <= quantile)
    influence *= sparsity  # in place: the same products, without a new array per operation
    influence /= quantile
    return float(quantile), influence


def _influence_values(q: float, confidence: float, n: int, quantiles: np.ndarray) -> tuple[float, float, float]:
    """The two values a case's influence (:func:`_quantile_influence`) takes: the quantile, the value above it and
    the value at or below it, each rounded as the array form rounds it."""
    _, lo, hi = quantile_levels(q, n, confidence)
    quantile, q_lo, q_hi = (float(v) for v in quantiles)
    sparsity = (q_hi - q_lo) / (hi - lo)
    return quantile, (q - 0.0) * sparsity / quantile, (q - 1.0) * sparsity / quantile


def _difference_sd(below_b: np.ndarray, below_c: np.ndarray, u_b: tuple[float, float],
                   u_c: tuple[float, float]) -> float:
    """The sample sd (ddof = 1) of u_c - u_b over the pairs, where each release's influence is u[0] above its
    quantile and u[1] at or below it (``below_*``): the differences take four values, so their mean and squared
    deviations are sums over the four cells of the pairs' 2 x 2 table, not over ten million floats. The same
    figure as the sd of the arrays (tests/stats/test_stats_costs_normal.py) without making them (three arrays
    of 8 bytes a pair)."""
    n = below_b.size
    n_b, n_c = int(np.count_nonzero(below_b)), int(np.count_nonzero(below_c))
    both = int(np.count_nonzero(np.logical_and(below_b, below_c, out=below_b)))
    cells = ((both, u_c[1] - u_b[1]), (n_c - both, u_c[1] - u_b[0]), (n_b - both, u_c[0] - u_b[1]),
             (n - n_b - n_c + both, u_c[0] - u_b[0]))
    mean = math.fsum(count * value for count, value in cells) / n
    squares = math.fsum(count * (value - mean) ** 2 for count, value in cells)
    return math.sqrt(squares / (n - 1))


def _log_interval(ratio: float, se_log: float, n: int, excluded: int, confidence: float) -> RatioResult:
    z = normal_quantile(0.5 + confidence / 2.0)
    return RatioResult(
        ratio=ratio,
        low=float(ratio * math.exp(-z * se_log)),
        high=float(ratio * math.exp(z * se_log)),
        n=n,
        excluded=excluded,
        method=METHOD,
        confidence=confidence,
    )


def quantile_ratio_normal(
    baseline: object, candidate: object, q: float = 0.95, confidence: float = 0.95,
    quantiles: tuple[Sequence[float], Sequence[float]] | None = None,
) -> RatioResult:
    """Ratio of the q-quantiles, candidate / baseline, with a delta-method interval (Bahadur, Hall-Sheather).

    Same estimate and exclusions as :func:`releasegate.stats.costs.quantile_ratio_bootstrap`; the interval is
    exp(log ratio -/+ z se) with se^2 = var(u_c - u_b) / n, u the per-case influence values of the log
    quantiles (module docstring). Meant for large n (thousands of pairs); with n < 2 the interval is NaN.
    Heavy ties at either quantile (``heavy_ties_at_quantile``): the paired bootstrap instead, method
    ``TIE_METHOD``. ``quantiles``: the baseline's and the candidate's type 7 quantiles at
    :func:`quantile_levels` (q, n, confidence) when the caller has them (``stats.costs.latency_quantiles``
    gives them with a release's summary), which holds only when no pair is dropped: they are then not selected
    again.
    """
    check_confidence(confidence)
    if not 0.0 < q < 1.0:
        raise ValueError(f"q must be strictly between 0 and 1, got {q}")
    base, cand, excluded = paired_positive(baseline, candidate, allow_zero=False)
    n = int(base.size)
    nan = float("nan")
    if n == 0:
        return RatioResult(nan, nan, nan, 0, excluded, METHOD, confidence)
    # Each release's three quantiles in one selection: the tie check reads the first of them.
    levels = quantile_levels(q, n, confidence)
    if quantiles is not None and excluded == 0:
        at_b, at_c = (np.array(at, dtype=float) for at in quantiles)
        if at_b.shape != (3,) or at_c.shape != (3,):
            raise ValueError("quantiles: each release's three, at quantile_levels(q, n, confidence)")
    else:
        at_b, at_c = np.quantile(base, levels), np.quantile(cand, levels)
    below_b, below_c = base <= at_b[0], cand <= at_c[0]
    if n > 1 and (heavy_ties_at_quantile(base, q, at_b[0], below_b)
                  or heavy_ties_at_quantile(cand, q, at_c[0], below_c)):
        boot = quantile_ratio_bootstrap(base, cand, q, TIE_RESAMPLES, 0, confidence)
        return RatioResult(boot.ratio, boot.low, boot.high, n, excluded, TIE_METHOD, confidence)
    q_b, *u_b = _influence_values(q, confidence, n, at_b)
    q_c, *u_c = _influence_values(q, confidence, n, at_c)
    ratio = q_c / q_b
    if n == 1:
        return RatioResult(ratio, nan, nan, 1, excluded, METHOD, confidence)
    se_log = _difference_sd(below_b, below_c, (u_b[0], u_b[1]), (u_c[0], u_c[1])) / math.sqrt(n)
    return _log_interval(ratio, se_log, n, excluded, confidence)


def ratio_of_totals_normal(baseline: object, candidate: object, confidence: float = 0.95) -> RatioResult:
    """Ratio of totals sum(candidate) / sum(baseline) with the ratio estimator's delta-method interval.

    Same estimate and exclusions as :func:`releasegate.stats.costs.ratio_of_totals_bootstrap` (zeros kept).
    se(R) = sd(c_i - R b_i) / (sqrt(n) mean(b)) (Cochran 1977, section 6.3); the interval is
    exp(log R -/+ z se(R) / R). With a zero baseline total everything is NaN; with a zero candidate total
    (R = 0) or n < 2 the interval is NaN.

    Values beyond 2^-400 .. 2^400 (about 1e-120 .. 1e120) are first divided by a power of two near their
    release's largest, so totals and squares stay finite for any finite values (totals past about 1e154 would
    square to inf, and the interval become [0, inf]): se(R) / R does not change when either release is scaled,
    and R changes by the quotient of the scales. Powers of two divide exactly, so the figures are the unscaled
    formula's to the last bit wherever that one is finite. Only a ratio beyond the floats (about 1e308) is inf.
    """
    check_confidence(confidence)
    base, cand, excluded = paired_positive(baseline, candidate, allow_zero=True)
    n = int(base.size)
    nan = float("nan")
    base_scale, cand_scale = _scale(base), _scale(cand)
    if base_scale != 1.0:  # a copy only then: at ordinary magnitudes the caller's arrays are read as they are
        base = base / base_scale
    if cand_scale != 1.0:
        cand = cand / cand_scale
    base_total = float(base.sum())
    if n == 0 or base_total == 0.0:
        return RatioResult(nan, nan, nan, n, excluded, METHOD, confidence)
    scaled = float(cand.sum()) / base_total
    ratio = scaled * (cand_scale / base_scale)
    if n == 1 or ratio == 0.0:
        return RatioResult(ratio, nan, nan, n, excluded, METHOD, confidence)
    residual = scaled * base
    np.subtract(cand, residual, out=residual)  # cand - ratio * base, in the one array
    se = std_in_place(residual, 1) / (math.sqrt(n) * float(base.mean()))
    return _log_interval(ratio, se / scaled, n, excluded, confidence)


def _scale(values: np.ndarray) -> float:
    """1 for values within 2^-400 .. 2^400 (their squares summed over any n stay finite and normal); else the
    power of two at or below the largest, by which they are divided exactly."""
    largest = float(values.max(initial=0.0))
    if largest == 0.0 or _SAFE_LOW < largest < _SAFE_HIGH:
        return 1.0
    return math.ldexp(1.0, math.frexp(largest)[1] - 1)


_SAFE_LOW, _SAFE_HIGH = math.ldexp(1.0, -400), math.ldexp(1.0, 400)
