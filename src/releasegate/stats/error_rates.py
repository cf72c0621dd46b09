"""The paired difference of two error rates: how much more often the candidate errored on the same cases."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from releasegate.stats.common import as_1d_float
from releasegate.stats.proportions import newcombe_paired_interval


@dataclass(frozen=True)
class ErrorRateIncrease:
    """Candidate error rate minus baseline error rate over the same cases, with its interval.

    ``both``, ``baseline_only``, ``candidate_only`` and ``neither`` are the paired 2x2 table of the error
    indicators; ``n`` their total.
    """

    n: int
    both: int
    baseline_only: int
    candidate_only: int
    neither: int
    baseline_rate: float
    candidate_rate: float
    increase: float
    low: float
    high: float
    confidence: float


def error_rate_increase(baseline_errored: ArrayLike, candidate_errored: ArrayLike,
                        confidence: float = 0.95) -> ErrorRateIncrease:
    """Paired difference of error rates, candidate - baseline, of two 0/1 arrays over the same cases.

    Method: Newcombe's square-and-add interval for paired proportions (Newcombe 1998, Stat Med 17:2635,
    method 10) on the paired error indicators, the interval the plan uses for pass rates: an error is the
    "event" here, so a positive difference means the candidate errors more often. No case gives n = 0, a NaN
    estimate and the interval [-1, 1] (nothing measured, nothing ruled out).
    """
    b = as_1d_float(baseline_errored, "baseline_errored")
    c = as_1d_float(candidate_errored, "candidate_errored")
    if b.size != c.size:
        raise ValueError(f"paired arrays differ in length: {b.size} and {c.size}")
    if not (np.isin(b, (0.0, 1.0)).all() and np.isin(c, (0.0, 1.0)).all()):
        raise ValueError("error indicators must be 0 or 1")
    b, c = b.astype(bool), c.astype(bool)
    both = int(np.count_nonzero(b & c))
    base_only = int(np.count_nonzero(b & ~c))
    cand_only = int(np.count_nonzero(~b & c))
    n = int(b.size)
    neither = n - both - base_only - cand_only
    # newcombe_paired_interval's "pass" is our "errored": its candidate - baseline is the error-rate increase.
    ci = newcombe_paired_interval(both, base_only, cand_only, neither, confidence)
    rate = (lambda k: k / n) if n else (lambda k: float("nan"))
    return ErrorRateIncrease(n, both, base_only, cand_only, neither, rate(both + base_only), rate(both + cand_only),
                             ci.estimate, ci.low, ci.high, confidence)
