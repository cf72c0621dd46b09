"""Tails of the fair-coin binomial Bin(n, 1/2) without scipy, for McNemar's exact test.

scipy.special would do this too, but importing it costs 0.15-0.25 s, a third of the whole ``releasegate
check`` on a small suite; these few lines keep the CI gate's path free of scipy. :func:`binom_half_pmf_all`
is the same saddle-point form on the whole range k = 0..n in numpy (already loaded with pandas).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

# Up to this many discordant pairs the tail is an exact sum of integers (correctly rounded at the end);
# beyond it, Loader's saddle-point pmf and a ratio recurrence (relative error ~1e-14).
EXACT_MAX_N = 2000

_LN_2PI = math.log(2.0 * math.pi)
_STIRLING = (1.0 / 12, 1.0 / 360, 1.0 / 1260, 1.0 / 1680, 1.0 / 1188)


def _stirlerr(n: float) -> float:
    """log(n!) - log(sqrt(2 pi n) (n/e)^n), the error of Stirling's formula (Loader 2000, section 2)."""
    if n <= 15.0:
        return math.lgamma(n + 1.0) - (n + 0.5) * math.log(n) + n - 0.5 * _LN_2PI
    s0, s1, s2, s3, s4 = _STIRLING
    nn = n * n
    return (s0 - (s1 - (s2 - (s3 - s4 / nn) / nn) / nn) / nn) / n


def _bd0(x: float, m: float) -> float:
    """x log(x/m) + m - x without cancellation when x is close to m (Loader 2000, section 3)."""
    if abs(x - m) < 0.1 * (x + m):
        v = (x - m) / (x + m)
        s = (x - m) * v
        ej = 2.0 * x * v
        j = 1
        while True:
            ej *= v * v
            s1 = s + ej / (2 * j + 1)
            if s1 == s:
                return s1
            s = s1
            j += 1
    return x * math.log(x / m) + m - x


def binom_half_pmf(k: int, n: int) -> float:
    """P(X = k), X ~ Bin(n, 1/2): exact for n <= EXACT_MAX_N, else Loader's saddle-point form.

    Reference: C. Loader (2000), "Fast and Accurate Computation of Binomial Probabilities" (the algorithm of
    R's dbinom).
    """
    if k < 0 or k > n:
        return 0.0
    if n <= EXACT_MAX_N:
        return math.comb(n, k) / (1 << n)
    if k == 0 or k == n:
        return math.exp(-n * math.log(2.0))
    half = n / 2.0
    lc = _stirlerr(n) - _stirlerr(k) - _stirlerr(n - k) - _bd0(k, half) - _bd0(n - k, half)
    lf = _LN_2PI + math.log(k) + math.log1p(-k / n)
    return math.exp(lc - 0.5 * lf)


def _stirlerr_all(x: np.ndarray) -> np.ndarray:
    """binomial._stirlerr at the whole numbers ``x`` >= 1, at once: the exact table up to 15, the series above."""
    small = np.array([0.0, *(_stirlerr(float(j)) for j in range(1, 16))])
    s0, s1, s2, s3, s4 = _STIRLING
    big = np.maximum(x, 16).astype(np.float64)
    nn = big * big
    series = (s0 - (s1 - (s2 - (s3 - s4 / nn) / nn) / nn) / nn) / big
    values: NDArray[np.float64] = np.where(x <= 15, small[np.minimum(x, 15)], series)
    return values


def _bd0_all(x: np.ndarray, m: float) -> np.ndarray:
    """binomial._bd0 (x log(x/m) + m - x, Loader 2000 section 3) at every ``x`` at once: the series near m is
    summed until no element changes, as the scalar form stops each one."""
    x = x.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        out: NDArray[np.float64] = x * np.log(x / m) + m - x
    near = np.abs(x - m) < 0.1 * (x + m)
    if near.any():
        xn = x[near]
        v = (xn - m) / (xn + m)
        s = (xn - m) * v
        ej = 2.0 * xn * v
        done = np.zeros(xn.shape, dtype=bool)
        j = 1
        while not done.all():
            ej = ej * v * v
            s1 = s + ej / (2 * j + 1)
            done |= s1 == s
            s = np.where(done, s, s1)
            j += 1
        out[near] = s
    return out


def binom_half_pmf_all(n: int) -> np.ndarray:
    """P(X = k) for k = 0..n, X ~ Bin(n, 1/2), n > 0: binomial.binom_half_pmf's saddle-point form (Loader 2000,
    "Fast and Accurate Computation of Binomial Probabilities") evaluated on the whole range in numpy. A Python
    loop over the 50,001 values of a 1,000,000-case overall test took 0.3 s; this takes milliseconds."""
    k = np.arange(n + 1)
    inner = k[1:-1]
    half = n / 2.0
    lc = (_stirlerr(n) - _stirlerr_all(inner) - _stirlerr_all(n - inner)
          - _bd0_all(inner, half) - _bd0_all(n - inner, half))
    lf = _LN_2PI + np.log(inner) + np.log1p(-inner / n)
    out = np.empty(n + 1)
    out[0] = out[-1] = np.exp(-n * np.log(2.0))
    out[1:-1] = np.exp(lc - 0.5 * lf)
    return out


def binom_half_cdf(k: int, n: int) -> float:
    """P(X <= k), X ~ Bin(n, 1/2) (scipy.special.bdtr(k, n, 0.5)).

    Exact integer sum for n <= EXACT_MAX_N. Beyond, the smaller tail is P(X = j) times the sum of the ratios
    P(X = i) / P(X = j), i <= j < n/2, each the previous times i / (n - i + 1); the other tail is its
    complement by symmetry.
    """
    if k < 0:
        return 0.0
    if k >= n:
        return 1.0
    if n <= EXACT_MAX_N:
        total, term = 0, 1
        for i in range(k + 1):
            total += term
            term = term * (n - i) // (i + 1)
        return total / (1 << n)
    if 2 * k >= n:
        return 1.0 - binom_half_cdf(n - k - 1, n)
    ratios, ratio = 1.0, 1.0
    for i in range(k, 0, -1):
        ratio *= i / (n - i + 1)
        ratios += ratio
        if ratio < ratios * 1e-17:
            break
    return binom_half_pmf(k, n) * ratios


def binom_half_sf_inclusive(k: int, n: int) -> float:
    """P(X >= k), X ~ Bin(n, 1/2), as the lower tail P(X <= n - k) by symmetry."""
    if k <= 0:
        return 1.0
    if k > n:
        return 0.0
    return binom_half_cdf(n - k, n)


def chi2_1df_sf(x: float) -> float:
    """P(chi-square with 1 df > x) = erfc(sqrt(x / 2)) (scipy.special.chdtrc(1, x))."""
    if x <= 0.0:
        return 1.0
    return math.erfc(math.sqrt(x / 2.0))
