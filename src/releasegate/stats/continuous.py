"""Paired and two-sample tests for continuous scores (or per-case means over several runs).

Orientation everywhere: d = candidate - baseline, so a negative mean is a regression. Every function is a pure
function of numpy arrays and returns a small frozen dataclass; nothing here imports scipy.stats, whose import
time would land on the command's start-up path.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from releasegate.stats.common import (
    CELL_BUDGET,
    as_1d_float,
    check_confidence,
    degenerate_p_values,
    scaled_std,
    t_p_values,
)
from releasegate.stats.distributions import normal_cdf, t_quantile

# ---------------------------------------------------------------------------------------------- paired t


@dataclass(frozen=True, slots=True)
class PairedTResult:
    """Paired t test on d = candidate - baseline.

    ``p_two_sided`` is two-sided; ``p_regression`` is one-sided for H1: mean < 0 (the gate's test) and
    ``p_improvement`` one-sided for H1: mean > 0. ``low``/``high`` is the two-sided t interval at
    ``confidence``. ``defined`` is False when n < 2 (no variance estimate): sd, se, t, p and the interval are
    then NaN.
    """

    n: int
    mean: float
    sd: float
    se: float
    t: float
    df: int
    p_two_sided: float
    p_regression: float
    p_improvement: float
    low: float
    high: float
    confidence: float
    defined: bool


# numpy sums by pairs over blocks of up to 128 numbers added in turn: the error of the sum is at most about
# (128 + log2 n) units of the last place of the sum of |x| (Higham 2002, 4.2, for pairwise summation).
_SUM_BLOCK = 128


def _mean_or_zero(x: np.ndarray) -> float:
    """The mean of ``x``, or 0 when it is within the rounding error of its own sum: a mean difference that is
    zero in exact arithmetic (as many cases up as down by the same amounts) comes out as -9e-18, which no
    measurement can tell from zero and which would read as a loss."""
    mean = float(x.mean())
    if mean == 0.0:
        return mean
    scale = (_SUM_BLOCK + math.log2(x.size)) * np.finfo(float).eps
    # The largest |x| bounds the mean of |x|: beyond that looser bound the mean is a measurement, and the
    # exact bound's array of |x| (80 MB at 10^7 cases) is made only for means that tiny.
    if abs(mean) > scale * max(abs(float(x.min())), abs(float(x.max()))):
        return mean
    return 0.0 if abs(mean) <= scale * float(np.abs(x).mean()) else mean


def paired_t_test(d: np.ndarray, confidence: float = 0.95) -> PairedTResult:
    """Paired (one-sample) t test and t interval for the mean of d = candidate - baseline.

    Method: Student's t on the per-case differences, df = n - 1, sd with ddof = 1; same numbers as
    ``scipy.stats.ttest_rel(candidate, baseline)`` and its ``confidence_interval()`` (Student 1908).

    Edge cases: n < 2 -> ``defined=False`` and NaN statistics (mean is still reported when n = 1).
    A mean within the rounding error of summing d is 0 (a floating-point remainder, not a measurement).
    All d equal (sd = 0): mean 0 -> t = 0, every p = 1, interval [0, 0]; mean != 0 -> t = +/-inf, two-sided
    p = 0, the one-sided p in the mean's direction 0 (the other 1), and the interval collapses to the mean.
    """
    confidence = check_confidence(confidence)
    x = as_1d_float(d, "d")
    n = int(x.size)
    nan = math.nan
    if n < 2:
        mean = float(x[0]) if n == 1 else nan
        return PairedTResult(
            n, mean, nan, nan, nan, max(n - 1, 0), nan, nan, nan, nan, nan, confidence, False
        )
    mean = _mean_or_zero(x)
    df = n - 1
    # Exact equality, not a tolerance on sd: np.std of a constant array can come out as 1e-17 rather than 0.
    if np.all(x == x[0]):
        mean = float(x[0])
        t, p_two, p_reg, p_imp = degenerate_p_values(mean)
        return PairedTResult(n, mean, 0.0, 0.0, t, df, p_two, p_reg, p_imp, mean, mean, confidence, True)
    sd = scaled_std(x)
    se = sd / math.sqrt(n)
    t = mean / se
    p_two, p_reg, p_imp = t_p_values(t, df)
    q = t_quantile(0.5 + confidence / 2.0, df)
    return PairedTResult(
        n, mean, sd, se, t, df, p_two, p_reg, p_imp, mean - q * se, mean + q * se, confidence, True
    )


@dataclass(frozen=True, slots=True)
class MeanInterval:
    """The mean of one sample with its two-sided t interval at ``confidence`` (NaN limits when n < 2)."""

    n: int
    mean: float
    low: float
    high: float
    confidence: float


def mean_interval(x: np.ndarray, confidence: float = 0.95) -> MeanInterval:
    """Mean of x with the one-sample Student t interval, mean +/- t_{n-1} sd / sqrt(n) (Student 1908; the same
    limits as ``scipy.stats.ttest_1samp(x, 0).confidence_interval()``).

    Used for a release's mean score, or its pass rate when cases are averaged over runs. n < 2 gives NaN
    limits (the mean is still reported when n = 1); a constant sample gives [mean, mean].
    """
    r = paired_t_test(x, confidence)
    return MeanInterval(r.n, r.mean, r.low, r.high, r.confidence)


# ---------------------------------------------------------------------------------------------- sign flip


@dataclass(frozen=True, slots=True)
class SignFlipResult:
    """Sign-flip (paired permutation) test of the mean of d.

    ``p_two_sided`` two-sided, ``p_regression`` one-sided for mean < 0, ``p_improvement`` one-sided for mean > 0.
    ``exact`` is True when every sign assignment was enumerated; ``n_resamples`` is then the number of
    assignments the p is computed from (2^m, m = number of non-zero d), else the number of random flips.
    """

    p_two_sided: float
    p_regression: float
    p_improvement: float
    exact: bool
    n_resamples: int
    n: int


def _bit_signs(k: int) -> np.ndarray:
    """All 2^k sign vectors as a (2^k, k) matrix of +/-1 (row r has bit j of r as the sign of column j)."""
    bits = (np.arange(2**k, dtype=np.int64)[:, None] >> np.arange(k, dtype=np.int64)) & 1
    return 1.0 - 2.0 * bits


def signflip_core(
    values: np.ndarray, observed: float, n_resamples: int, seed: int | None, exact_max_n: int
) -> tuple[float, float, float, bool, int]:
    """Two-sided, regression and improvement p of the sign-flip test of sum(values) == observed.

    Only |values| enters the null distribution (flipping v or -v is the same draw), so it is built from the
    sorted non-zero |values|: the result then depends neither on row order nor on the sign of the data, and a
    zero contributes nothing to any flipped sum, so leaving it out of the enumeration changes no p-value.
    The regression tail P(T* <= T) is counted as P(T* >= -T), which the symmetry of T* makes equal: with the
    same draws, negating the data then swaps the two one-sided p-values exactly.
    """
    a = np.sort(np.abs(values[values != 0.0]))
    m = int(a.size)
    # Flipped sums carry rounding error of order m * eps * sum|a|; ties closer than this are ties.
    tol = 1e-9 * float(a.sum())
    obs = float(observed)
    if m <= exact_max_n:
        # Meet in the middle: T* = (low-half signed sum) + (high-half signed sum), enumerated in chunks.
        k = min(m, 10)
        low = _bit_signs(k) @ a[:k]
        high = _bit_signs(m - k) @ a[k:]
        rows = max(1, CELL_BUDGET // low.size)
        c_two = c_reg = c_imp = 0
        for start in range(0, high.size, rows):
            t_star = high[start : start + rows, None] + low[None, :]
            c_two += int(np.count_nonzero(np.abs(t_star) >= abs(obs) - tol))
            c_reg += int(np.count_nonzero(t_star >= -obs - tol))
            c_imp += int(np.count_nonzero(t_star >= obs - tol))
        total = 2**m
        return c_two / total, c_reg / total, c_imp / total, True, total
    if n_resamples < 1:
        raise ValueError("n_resamples must be at least 1")
    rng = np.random.default_rng(seed)
    rows = max(1, min(1000, CELL_BUDGET // m))
    total_a = float(a.sum())
    c_two = c_reg = c_imp = 0
    done = 0
    while done < n_resamples:
        r = min(rows, n_resamples - done)
        # One random byte gives eight fair signs; bit 1 = flipped, so T* = sum(a) - 2 * (flipped part).
        packed = rng.integers(0, 256, size=(r, (m + 7) // 8), dtype=np.uint8)
        flipped = np.unpackbits(packed, axis=1, count=m).astype(np.float64)
        t_star = total_a - 2.0 * (flipped @ a)
        c_two += int(np.count_nonzero(np.abs(t_star) >= abs(obs) - tol))
        c_reg += int(np.count_nonzero(t_star >= -obs - tol))
        c_imp += int(np.count_nonzero(t_star >= obs - tol))
        done += r
    # (count + 1) / (B + 1): the observed assignment is one of the possible draws, so p is never 0
    # (Phipson & Smyth 2010).
    b = n_resamples + 1
    return (c_two + 1) / b, (c_reg + 1) / b, (c_imp + 1) / b, False, n_resamples


def signflip_test(
    d: np.ndarray, n_resamples: int = 10_000, seed: int | None = 0, exact_max_n: int = 20
) -> SignFlipResult:
    """Sign-flip permutation test of the mean of d = candidate - baseline (Fisher 1935; Good 2005, ch. 3).

    Under H0 each d_i is symmetric about 0, so its sign is exchangeable; the statistic is sum(d) (equivalent
    to the mean, n being fixed). Exact enumeration of all 2^m sign assignments when the number m of non-zero
    d is at most ``exact_max_n`` (the same p as ``scipy.stats.permutation_test(..., permutation_type=
    'samples')``); otherwise ``n_resamples`` random assignments from ``numpy.random.default_rng(seed)`` with
    p = (count + 1) / (n_resamples + 1).

    Zeros are kept (they count in n and in the mean, unlike the Wilcoxon test's zero dropping); they flip to
    themselves, so they add nothing to the null distribution and are skipped in the enumeration, which gives
    the same p-values as enumerating them. All d zero (or n = 0): every p is 1. The result depends only on the
    values, not on their order.
    """
    x = as_1d_float(d, "d")
    p_two, p_reg, p_imp, exact, b = signflip_core(
        x, float(x.sum()), int(n_resamples), seed, int(exact_max_n)
    )
    return SignFlipResult(p_two, p_reg, p_imp, exact, b, int(x.size))


def signflip_normal_test(d: np.ndarray) -> SignFlipResult:
    """Large-sample form of the sign-flip test: the normal limit of its permutation distribution.

    Under the sign-flip null T* = sum(e_i |d_i|) with independent fair signs e_i has mean 0 and variance
    sum(d_i^2) exactly, and is asymptotically normal by the Lindeberg CLT (Hoeffding 1952; Lehmann & Romano
    2005, section 15.2), so p = Phi(T / sqrt(sum d^2)) and its complements. Enumerating or drawing 10,000 flips
    costs 10,000 x n operations; past a few thousand non-zero differences the Monte Carlo p and this one agree
    to within the Monte Carlo error, at no cost. ``exact`` is False and ``n_resamples`` 0.
    All d zero (or n = 0): every p is 1.
    """
    x = as_1d_float(d, "d")
    nz = x[x != 0.0]
    if nz.size == 0:
        return SignFlipResult(1.0, 1.0, 1.0, False, 0, int(x.size))
    scale = float(np.max(np.abs(nz)))
    z = float((nz / scale).sum() / math.sqrt(float(np.sum((nz / scale) ** 2))))
    p_reg = normal_cdf(z)
    p_imp = normal_cdf(-z)
    return SignFlipResult(min(1.0, 2.0 * normal_cdf(-abs(z))), p_reg, p_imp, False, 0, int(x.size))


# ---------------------------------------------------------------------------------------------- Welch


@dataclass(frozen=True, slots=True)
class WelchResult:
    """Welch two-sample t test of diff = mean(candidate) - mean(baseline).

    ``defined`` is False when either sample has fewer than 2 values: t, df, p and the interval are NaN.
    """

    diff: float
    mean_baseline: float
    mean_candidate: float
    n_baseline: int
    n_candidate: int
    se: float
    t: float
    df: float
    p_two_sided: float
    p_regression: float
    p_improvement: float
    low: float
    high: float
    confidence: float
    defined: bool


def _welch_parts(a: np.ndarray, b: np.ndarray, diff: float, scale: float) -> tuple[float, ...]:
    """(va, vb, var, df, t, se) of Welch's test, computed on a / scale and b / scale; se in the data's units.

    Raises OverflowError or ZeroDivisionError when the squares leave the range of floats at this scale.
    """
    na, nb = a.size, b.size
    if scale != 1.0:
        a, b = a / scale, b / scale
        diff = float(b.mean()) - float(a.mean())
    constant_a, constant_b = bool(np.all(a == a[0])), bool(np.all(b == b[0]))
    va = 0.0 if constant_a else scaled_std(a) ** 2 / na
    vb = 0.0 if constant_b else scaled_std(b) ** 2 / nb
    # A sample that varies has a positive variance: zero means its square underflowed.
    if scale == 1.0 and ((not constant_a and va == 0.0) or (not constant_b and vb == 0.0)):
        raise ZeroDivisionError("a variance underflows to zero")
    var = va + vb
    if var == 0.0:
        return va, vb, var, math.nan, math.nan, 0.0
    spread = va**2 / (na - 1) + vb**2 / (nb - 1)
    if scale == 1.0 and spread < 1e-290:  # subnormal or zero: its digits are gone
        raise ZeroDivisionError("Welch's test below the range of floats")
    df = var**2 / spread
    se = math.sqrt(var)
    if scale == 1.0 and not (math.isfinite(df) and math.isfinite(diff / se)):
        raise OverflowError("Welch's test out of the range of floats")
    return va, vb, var, df, diff / se, se * scale


def welch_t_test(baseline: np.ndarray, candidate: np.ndarray, confidence: float = 0.95) -> WelchResult:
    """Welch's unequal-variance t test and interval for mean(candidate) - mean(baseline).

    Method: Welch 1947 with Welch-Satterthwaite df (Satterthwaite 1946); the same t, df and p as
    ``scipy.stats.ttest_ind(candidate, baseline, equal_var=False)``. Used for the run axis ("would a rerun
    agree?") on per-run means.

    Edge cases: fewer than 2 values in either sample -> ``defined=False``, NaN t/df/p/interval (the diff is
    still reported when both samples are non-empty). Both samples constant (se = 0): df is NaN; diff 0 ->
    every p 1 and interval [0, 0]; diff != 0 -> two-sided p 0 and the interval collapses to the diff.
    """
    confidence = check_confidence(confidence)
    a = as_1d_float(baseline, "baseline")
    b = as_1d_float(candidate, "candidate")
    na, nb = int(a.size), int(b.size)
    nan = math.nan
    ma = float(a.mean()) if na else nan
    mb = float(b.mean()) if nb else nan
    diff = mb - ma
    if na < 2 or nb < 2:
        return WelchResult(diff, ma, mb, na, nb, nan, nan, nan, nan, nan, nan, nan, nan, confidence, False)
    try:
        _, _, var, df, t, se = _welch_parts(a, b, diff, 1.0)
    except (OverflowError, ZeroDivisionError):
        # In units of the largest |value| (t and df do not depend on the unit): var**2 overflows at |x| ~ 1e150
        # and underflows to 0 / 0 at ~1e-160 in the data's own units.
        _, _, var, df, t, se = _welch_parts(a, b, diff, float(max(np.max(np.abs(a)), np.max(np.abs(b)))))
    if var == 0.0:
        t, p_two, p_reg, p_imp = degenerate_p_values(diff)
        return WelchResult(
            diff, ma, mb, na, nb, 0.0, t, nan, p_two, p_reg, p_imp, diff, diff, confidence, True
        )
    p_two, p_reg, p_imp = t_p_values(t, df)
    q = t_quantile(0.5 + confidence / 2.0, df)
    return WelchResult(
        diff, ma, mb, na, nb, se, t, df, p_two, p_reg, p_imp, diff - q * se, diff + q * se, confidence, True
    )


# ---------------------------------------------------------------------------------------------- Hodges-Lehmann


# Below this n the n(n+1)/2 Walsh averages are formed directly (2,000 -> 2M values, 16 MB).
_HL_DIRECT_MAX_N = 2000


def _row_ends(s: np.ndarray, two_x: float) -> np.ndarray:
    """For each i, the number of j with s_i + s_j <= two_x (as the floats add) in the sorted s.

    two_x - s_i rounds, so searching for it can miss a pair whose sum is exactly two_x (the median's own pair,
    which made the k-th sum come out as the next one); each row's end is then moved past or back over the tied
    values until the sums themselves decide. Rounded addition is monotone, so every row moves one way only.
    """
    n = s.size
    j = np.searchsorted(s, two_x - s, side="right")
    while True:
        right, left = s[np.minimum(j, n - 1)], s[np.maximum(j - 1, 0)]
        up, down = (j < n) & (s + right <= two_x), (j > 0) & (s + left > two_x)
        if not (up.any() or down.any()):
            return j
        j = np.where(up, np.searchsorted(s, right, side="right"), np.where(down, np.searchsorted(s, left), j))


def _walsh_count_le(s: np.ndarray, two_x: float) -> int:
    """Number of pairs i <= j of the sorted s with s_i + s_j <= two_x."""
    return int(np.clip(_row_ends(s, two_x) - np.arange(s.size), 0, None).sum())


def _walsh_kth(s: np.ndarray, k: int) -> float:
    """The k-th smallest (1-based) Walsh sum s_i + s_j (i <= j) of sorted s, without forming all of them.

    Bisection on the value with O(n log n) counting, then the smallest actual Walsh sum above the final lower
    bound, so the answer is one of the Walsh sums rather than an approximation of it.
    """
    lo, hi = float(np.nextafter(2.0 * s[0], -math.inf)), 2.0 * float(s[-1])  # count(lo) < k <= count(hi)
    for _ in range(200):
        mid = lo + (hi - lo) / 2.0
        if mid <= lo or mid >= hi:
            break
        if _walsh_count_le(s, mid) >= k:
            hi = mid
        else:
            lo = mid
    n = s.size
    i = np.arange(n)
    # Each row's first partner (j >= i) whose sum is above lo; the smallest of those sums is the answer.
    j = np.maximum(_row_ends(s, lo), i)
    ok = j < n
    return float((s[i[ok]] + s[j[ok]]).min()) if ok.any() else math.inf


def hodges_lehmann(d: np.ndarray) -> float:
    """Hodges-Lehmann estimate of the pseudo-median of d: the median of the Walsh averages (d_i + d_j)/2, i <= j.

    Method: Hodges & Lehmann 1963 (the estimate that goes with the Wilcoxon signed-rank test; a robustness
    line beside the mean, not a test of it). Memory stays O(n) for large n (selection by bisection).
    Empty d -> NaN.
    """
    x = as_1d_float(d, "d")
    n = int(x.size)
    if n == 0:
        return math.nan
    s = np.sort(x)
    n_walsh = n * (n + 1) // 2
    if n <= _HL_DIRECT_MAX_N:
        iu, ju = np.triu_indices(n)
        return float(np.median((s[iu] + s[ju]) / 2.0))
    if n_walsh % 2:
        return _walsh_kth(s, n_walsh // 2 + 1) / 2.0
    return (_walsh_kth(s, n_walsh // 2) + _walsh_kth(s, n_walsh // 2 + 1)) / 4.0
