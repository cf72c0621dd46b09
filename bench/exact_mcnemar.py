"""The exact two-sided McNemar p of the hand-written yardsticks (bench/handwritten.py, bench/handwritten_duckdb.py),
in numpy alone: the default install has no scipy. The binomial (k of n changes being fixes, p = 1/2) is summed
in logs: log pmf(k + 1) - log pmf(k) = log(n - k) - log(k + 1), from log pmf(0) = -n log 2, and the smaller tail
doubled (the distribution is symmetric)."""

import numpy as np


def mcnemar_exact_p(fixed: int, broke: int) -> float:
    n, k = fixed + broke, min(fixed, broke)
    if 2 * k == n:
        return 1.0
    steps = np.log(np.arange(n, n - k, -1)) - np.log(np.arange(1, k + 1))
    log_pmf = -n * np.log(2.0) + np.concatenate([[0.0], np.cumsum(steps)])
    top = log_pmf.max()
    return min(1.0, 2.0 * float(np.exp(top) * np.exp(log_pmf - top).sum()))
