"""Helpers shared by the statistics modules: argument checks, stable and in-place standard deviations, t-test
p-values.

Public names, one meaning each; every statistics module takes them from here.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from releasegate.stats.distributions import t_cdf

# Upper bound on the number of float64 cells one vectorised step may hold (16 MB), so memory stays bounded
# whatever n or the number of resamples.
CELL_BUDGET = 2_000_000


def check_confidence(confidence: float) -> float:
    confidence = float(confidence)
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence}")
    return confidence


def as_1d_float(x: ArrayLike, name: str) -> np.ndarray:
    arr = np.asarray(x, dtype=np.float64)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite values")
    return arr


def scaled_std(x: np.ndarray) -> float:
    """Sample sd (ddof = 1) of a non-constant array, computed on x / max|x| so squares neither underflow
    (values near 1e-160 would give sd = 0 and a division by zero) nor overflow."""
    scale = float(np.max(np.abs(x)))
    return scale * std_in_place(x / scale, 1)


def std_in_place(x: np.ndarray, ddof: int = 1) -> float:
    """``np.std(x, ddof=ddof)`` to the last bit, worked out in x's own memory (x is overwritten with the squared
    deviations). numpy's two-pass method: the mean as the pairwise sum over n, the deviations from it squared,
    their pairwise sum over n - ddof, the square root. np.std makes a new array of the deviations: 80 MB of
    fresh pages at ten million values, for arrays their callers drop right after. ``x``: one-dimensional float64,
    contiguous, with more than ddof values."""
    n = x.size
    mean = np.add.reduce(x, keepdims=True)
    np.true_divide(mean, n, out=mean)
    np.subtract(x, mean, out=x)
    np.square(x, out=x)
    return float(np.sqrt(np.add.reduce(x) / (n - ddof)))


def t_p_values(t: float, df: float) -> tuple[float, float, float]:
    """Two-sided, regression (H1 < 0) and improvement (H1 > 0) p for a t statistic."""
    p_reg = t_cdf(t, df)
    p_imp = t_cdf(-t, df)
    p_two = min(1.0, 2.0 * t_cdf(-abs(t), df))
    return p_two, p_reg, p_imp


def degenerate_p_values(estimate: float) -> tuple[float, float, float, float]:
    """t, two-sided p, p_regression, p_improvement when the standard error is exactly zero.

    No spread means the estimate is known without error: a zero estimate is no evidence of anything (every p
    is 1, as for McNemar with no discordant pairs); a non-zero one is certain in its direction.
    """
    if estimate == 0.0:
        return 0.0, 1.0, 1.0, 1.0
    if estimate < 0.0:
        return -math.inf, 0.0, 0.0, 1.0
    return math.inf, 0.0, 1.0, 0.0


def check_resamples(n_resamples: int) -> None:
    if int(n_resamples) != n_resamples or n_resamples < 1:
        raise ValueError(f"n_resamples must be a positive integer, got {n_resamples}")
