"""One conditional test for sparse differences, whatever the coding of the rows.

When every per-case difference d = candidate - baseline is 0 or +-1 (pass/fail outcomes, runs that agree, or
clusters of one case each), the paired t test, Durkalski's clustered McNemar and CR2 are approximations of the
same conditional question McNemar answers exactly: of the n_d cases that changed, how many broke? They can
disagree with it where it matters (1,000 cases, 4 broke, 0 fixed: exact one-sided p 0.0625; the same rows as
two identical runs give paired t p 0.023). This module reduces the rows to one difference per case and answers
with the exact conditional test (Fagerland, Lydersen & Laake 2013) and its mid-p.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from releasegate.stats.mcnemar import mcnemar_test


@dataclass(frozen=True, slots=True)
class SparseTest:
    """Exact conditional (McNemar) test on per-case differences in {-1, 0, +1}.

    ``p_regression`` = P(X >= broke), X ~ Bin(broke + fixed, 1/2); ``midp_regression`` its mid-p;
    ``n_cases`` after reducing rows to cases; ``degenerate`` when no case changed (every p is then 1)."""

    broke: int
    fixed: int
    n_cases: int
    p_regression: float
    midp_regression: float
    p_two_sided: float
    degenerate: bool


def per_case_differences(d: ArrayLike, case: ArrayLike | None = None) -> np.ndarray:
    """One difference per case: the mean of each case's rows (runs, or the rows of a singleton cluster), or
    ``d`` itself without ``case``. Rows of a case that disagree give a non-integer mean."""
    x = np.asarray(d, dtype=float).reshape(-1)
    if x.size == 0:
        raise ValueError("no differences to test")
    if not np.all(np.isfinite(x)):
        raise ValueError("differences must be finite")
    if case is None:
        return x
    labels = np.asarray(case).reshape(-1)
    if labels.size != x.size:
        raise ValueError(f"{labels.size} case labels for {x.size} differences")
    _, codes = np.unique(labels, return_inverse=True)
    codes = codes.reshape(-1)
    return np.bincount(codes, weights=x) / np.bincount(codes)


def is_sparse(d: ArrayLike, case: ArrayLike | None = None) -> bool:
    """True when every per-case difference is exactly -1, 0 or +1: the exact conditional test applies."""
    x = per_case_differences(d, case)
    return bool(np.all((x == 0.0) | (x == 1.0) | (x == -1.0)))


def sparse_conditional_test(d: ArrayLike, case: ArrayLike | None = None) -> SparseTest:
    """Exact one-sided McNemar (and mid-p) on per-case differences all in {-1, 0, +1}; ``case`` labels rows
    that belong to one case (identical runs, or cluster = case id). ValueError when a difference is outside
    {-1, 0, +1}: those data are not sparse and need the paired or clustered tests."""
    x = per_case_differences(d, case)
    if not np.all((x == 0.0) | (x == 1.0) | (x == -1.0)):
        raise ValueError("per-case differences are not all -1, 0 or +1; use the paired or clustered tests")
    broke = int(np.count_nonzero(x == -1.0))
    fixed = int(np.count_nonzero(x == 1.0))
    r = mcnemar_test(fixed, broke)
    return SparseTest(broke, fixed, int(x.size), r.p_regression, r.midp_regression, r.p_two_sided, r.degenerate)
