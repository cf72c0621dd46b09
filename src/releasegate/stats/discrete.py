"""Multiplicity adjustments that know each exact test can only reach a finite set of p-values.

An exact one-sided McNemar test on n discordant pairs has the attainable p-values P(X >= k), X ~ Bin(n, 1/2),
k = 0..n (smallest 2^-n). Holm treats every test as if it could reach any p and spends alpha / m on tests that
never can; the discrete procedures here spend the level only where it can be used.

- Discrete Bonferroni / Holm (Hommel & Krummenauer 1998, "Improvements and modifications of Tarone's multiple
  test procedure for discrete data", Biometrics 54:673; the step-down form of Westfall & Wolfinger 1997,
  "Multiple tests with discrete distributions", Am Stat 51:3): with F_j(t) the largest attainable p of test j
  that is <= t (0 if none), the adjusted p of the i-th smallest p is max over steps k <= i of
  min(1, sum over hypotheses ranked >= k of F_j(p_(k))). F_j(t) <= t, so it is never above Holm; it equals
  Holm when every test reaches every p (continuous tests).
- Tarone (1990, "A modified Bonferroni method for discrete data", Biometrics 46:515): leave out every
  hypothesis whose smallest attainable p exceeds alpha / K, with K the smallest count for which at most K
  hypotheses remain; the Holm form re-counts K on the hypotheses not yet rejected at every step.
  Level-dependent, so it returns decisions, not adjusted p-values.

Family-wise error control holds for the exact (not mid-p) attainable sets, under any dependence for the
Bonferroni forms and as Holm's closure argument for the step-down (Hommel & Krummenauer 1998, section 3);
tests/test_stats_discrete.py checks it by exhaustive enumeration. Mid-p sets are offered for comparison only:
mid-p values are not valid p-values, so no error bound holds for them.
"""

from __future__ import annotations

import bisect
import sys
from dataclasses import dataclass
from functools import lru_cache
from itertools import accumulate, repeat
from operator import truediv

import numpy as np
from numpy.typing import ArrayLike, NDArray

from releasegate.stats.binomial import EXACT_MAX_N, binom_half_pmf_all

# Observed p-values are recomputed in floating point by the caller; a relative slack this small lets an
# observed p match its own attainable value without admitting the next one.
_MATCH_RTOL = 1e-9
# The largest n whose 2^n (and so every integer tail sum of n pairs) a float holds: up to it the mid-p below
# subtracts floats of the integer sums, kept as it always was, figure for figure.
_FLOAT_MAX_EXP = sys.float_info.max_exp - 1


@lru_cache(maxsize=256)
def _attainable(n: int, midp: bool) -> NDArray[np.float64]:
    """The attainable set, ascending, as a read-only array kept for the next test on as many pairs: a look-up is
    a search of it (a 1,000,000-case overall test has a set of 50,001 values; 10^7 cases, 570,000)."""
    if n < 0:
        raise ValueError("a discordant count cannot be negative")
    if n == 0:
        values = np.array([1.0])
    elif n <= EXACT_MAX_N:
        # C(n, k) by the exact integer recurrence: one product per k, not a fresh comb.
        pmf = list(accumulate(range(n), lambda c, k: c * (n - k) // (k + 1), initial=1))
        denom = 1 << n
        # Integer tail sums from the small tail up, 2^n P(X >= k) for k = n .. 0: exact, each rounded once by the
        # division. Through accumulate and map, not a Python loop: the same integers and quotients in half the
        # time (40 categories of 1,400 pairs at 10^6 cases).
        upper = accumulate(reversed(pmf))
        if midp and n <= _FLOAT_MAX_EXP:
            exact = [(u - c / 2) / denom for u, c in zip(upper, reversed(pmf))]
        elif midp:
            # The sums above no longer fit a float (made into one they raised OverflowError), so the mid-p is one
            # quotient of integers, 2^(n+1) P(X > k) + 2^n P(X = k) over 2^(n+1): rounded once, as the exact
            # tails are.
            twice = denom << 1
            exact = [(2 * u - c) / twice for u, c in zip(upper, reversed(pmf))]
        else:
            exact = list(map(truediv, upper, repeat(denom)))
        values = np.sort(np.minimum(1.0, np.array(exact)))
    else:
        pmf_f = binom_half_pmf_all(n)
        upper_f = np.cumsum(pmf_f[::-1])[::-1]  # summed from the small tail up: accurate where it matters
        # Kept as numpy's floats: made into a tuple of Python floats (and back into an array by every caller
        # that searched it as one) they cost more than computing them.
        values = np.sort(np.minimum(1.0, upper_f - pmf_f / 2 if midp else upper_f))
    values.flags.writeable = False
    return values


def attainable_pvalues(n_discordant: int, midp: bool = False) -> NDArray[np.float64]:
    """The one-sided p-values an exact McNemar test on n discordant pairs can give, ascending (read-only: the
    set is kept for the next call).

    Exact: P(X >= k), X ~ Bin(n, 1/2), k = 0..n (so 2^-n, ..., 1); mid-p: P(X > k) + P(X = k) / 2
    (smallest 2^-(n+1)). n = 0: only p = 1.
    """
    return _attainable(int(n_discordant), bool(midp))


def at_most(n_discordant: int, t: NDArray[np.float64], midp: bool = False) -> NDArray[np.float64]:
    """:func:`largest_attainable_at_most` at every threshold of ``t`` at once: the same values, one search."""
    values = _attainable(int(n_discordant), bool(midp))
    i = values.searchsorted(t * (1 + _MATCH_RTOL), "right")
    found: NDArray[np.float64] = np.where(i > 0, values[np.maximum(i - 1, 0)], 0.0)
    return found


def largest_attainable_at_most(n_discordant: int, t: float, midp: bool = False) -> float:
    """F_j(t): the largest attainable p of the test that is <= t (with a relative slack of 1e-9), else 0."""
    # bisect on a memoryview of the set, whose items are Python floats: a third of np.searchsorted's call for one
    # threshold (the step-down's first steps and the budget's bisections make thousands).
    values = _attainable(int(n_discordant), bool(midp)).data
    i = bisect.bisect_right(values, t * (1 + _MATCH_RTOL))
    found: float = values[i - 1] if i > 0 else 0.0
    return found


def _check(n_discordant: ArrayLike, pvalues: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    n = np.asarray(n_discordant, dtype=np.int64).reshape(-1)
    p = np.asarray(pvalues, dtype=float).reshape(-1)
    if n.size != p.size:
        raise ValueError(f"{n.size} discordant counts for {p.size} p-values")
    if np.any(n < 0):
        raise ValueError("a discordant count cannot be negative")
    if np.any(~np.isfinite(p)) or np.any((p < 0) | (p > 1)):
        raise ValueError("p-values must lie in [0, 1]")
    return n, p


@dataclass(frozen=True, slots=True)
class DiscreteAdjustment:
    """Adjusted p-values of a family of exact one-sided McNemar tests, in the order given."""

    adjusted: tuple[float, ...]
    method: str  # "discrete bonferroni" or "discrete holm"
    midp: bool

    def rejected(self, alpha: float) -> tuple[bool, ...]:
        return tuple(a <= alpha for a in self.adjusted)


def _tail_sum(n: np.ndarray, t: float, midp: bool, members: np.ndarray) -> float:
    return float(sum(largest_attainable_at_most(int(n[j]), t, midp) for j in members))


def discrete_bonferroni(n_discordant: ArrayLike, pvalues: ArrayLike,
                        midp: bool = False) -> DiscreteAdjustment:
    """Discrete Bonferroni (Hommel & Krummenauer 1998): adjusted p_j = min(1, sum_i F_i(p_j)).

    ``n_discordant[j]`` is test j's discordant count, ``pvalues[j]`` its observed one-sided exact p (an
    element of its attainable set; ``midp=True`` reads both as mid-p, without error control).
    """
    n, p = _check(n_discordant, pvalues)
    everyone = np.arange(n.size)
    adjusted = tuple(min(1.0, _tail_sum(n, float(p[j]), midp, everyone)) for j in range(n.size))
    return DiscreteAdjustment(adjusted, "discrete bonferroni", bool(midp))


def discrete_holm(n_discordant: ArrayLike, pvalues: ArrayLike, midp: bool = False) -> DiscreteAdjustment:
    """Discrete Holm step-down (Hommel & Krummenauer 1998; Westfall & Wolfinger 1997, step-down form).

    Order the p-values ascending (stable for ties); at step k the critical sum is
    S_k = sum over the hypotheses ranked k..m of F_j(p_(k)); the adjusted p of rank i is
    min(1, max_{k<=i} S_k).
    Rejecting every hypothesis whose adjusted p is <= alpha is the step-down "reject while S_k <= alpha".
    """
    n, p = _check(n_discordant, pvalues)
    m = n.size
    order = np.argsort(p, kind="stable")
    out = np.empty(m)
    running = 0.0
    for k in range(m):
        running = max(running, _tail_sum(n, float(p[order[k]]), midp, order[k:]))
        out[order[k]] = min(1.0, running)
    return DiscreteAdjustment(tuple(float(v) for v in out), "discrete holm", bool(midp))


@dataclass(frozen=True, slots=True)
class TaroneResult:
    """Tarone's restricted procedure at one level: which hypotheses are rejected, and which could be tested.

    ``counted`` is K at the first step (the m that Bonferroni divides by); ``testable[j]`` is False for a
    test whose smallest attainable p exceeds alpha / K at the first step: it was never spent on.
    """

    rejected: tuple[bool, ...]
    testable: tuple[bool, ...]
    counted: int
    alpha: float
    method: str  # "tarone bonferroni" or "tarone holm"


def _tarone_count(floors: np.ndarray, alpha: float) -> int:
    """Smallest K >= 1 such that at most K of the floors are <= alpha / K (Tarone 1990)."""
    for k in range(1, max(1, floors.size) + 1):
        if int(np.count_nonzero(floors <= alpha / k * (1 + _MATCH_RTOL))) <= k:
            return k
    return max(1, floors.size)


def _floors(n: np.ndarray, midp: bool) -> np.ndarray:
    return np.array([float(_attainable(int(k), midp)[0]) for k in n])


def tarone_bonferroni(n_discordant: ArrayLike, pvalues: ArrayLike, alpha: float,
                      midp: bool = False) -> TaroneResult:
    """Tarone (1990): with K from ``_tarone_count``, reject p_j <= alpha / K among the tests whose floor is
    <= alpha / K; the rest are not counted and not tested."""
    n, p = _check(n_discordant, pvalues)
    floors = _floors(n, midp)
    k = _tarone_count(floors, alpha)
    level = alpha / k * (1 + _MATCH_RTOL)
    testable = floors <= level
    rejected = testable & (p <= level)
    return TaroneResult(tuple(bool(v) for v in rejected), tuple(bool(v) for v in testable), k, alpha,
                        "tarone bonferroni")


def tarone_holm(n_discordant: ArrayLike, pvalues: ArrayLike, alpha: float,
                midp: bool = False) -> TaroneResult:
    """Holm form of Tarone's procedure (Hommel & Krummenauer 1998, section 2): step down through the ordered
    p-values; at each step recount K on the hypotheses not yet rejected and reject the smallest remaining p if
    it is <= alpha / K and its floor is <= alpha / K; stop at the first that is not."""
    n, p = _check(n_discordant, pvalues)
    floors = _floors(n, midp)
    remaining = list(np.argsort(p, kind="stable"))
    rejected = np.zeros(n.size, dtype=bool)
    first_k = _tarone_count(floors, alpha)
    while remaining:
        k = _tarone_count(floors[remaining], alpha)
        level = alpha / k * (1 + _MATCH_RTOL)
        j = remaining[0]
        if floors[j] > level or p[j] > level:
            break
        rejected[j] = True
        remaining.pop(0)
    testable = floors <= alpha / first_k * (1 + _MATCH_RTOL)
    return TaroneResult(tuple(bool(v) for v in rejected), tuple(bool(v) for v in testable), first_k, alpha,
                        "tarone holm")


def discrete_holm_mixed(n_discordant: ArrayLike, pvalues: ArrayLike,
                        discrete: ArrayLike) -> DiscreteAdjustment:
    """Discrete Holm over a family in which only some tests are exact McNemar tests (``discrete[j]`` True,
    ``n_discordant[j]`` their discordant counts, exact one-sided p); the others (a paired t, a clustered p)
    can reach any p, so their F_j(t) is t itself, as in Holm.

    The step-down is ``discrete_holm``'s with these F_j: every F_j(t) is still P(p_j <= t) under the null
    bound (Hommel & Krummenauer 1998, section 3), so the closure argument and the family-wise error control
    carry over. All discrete: ``discrete_holm``; none: Holm (1979).
    """
    n, p = _check(n_discordant, pvalues)
    is_discrete = np.asarray(discrete, dtype=bool).reshape(-1)
    if is_discrete.size != n.size:
        raise ValueError(f"{is_discrete.size} discrete flags for {n.size} p-values")
    out = _mixed_step_down(n, p, is_discrete)
    return DiscreteAdjustment(tuple(float(v) for v in out), "discrete holm", False)


def _mixed_step_down(n: np.ndarray, p: np.ndarray, is_discrete: np.ndarray, until: int | None = None) -> np.ndarray:
    """discrete_holm_mixed's adjusted p-values; with ``until``, only the steps up to that hypothesis's rank (the
    adjusted p of rank i reads the steps k <= i only), the rest left NaN."""
    m = n.size
    order = np.argsort(p, kind="stable")
    out = np.full(m, np.nan)
    running = 0.0
    for k in range(m):
        t = float(p[order[k]])
        members = order[k:]
        total = sum(largest_attainable_at_most(int(n[j]), t) if is_discrete[j] else t for j in members)
        running = max(running, float(total))
        out[order[k]] = min(1.0, running)
        if order[k] == until:
            break
    return out


def discrete_best_case_adjusted(n_discordant: int, others_n: ArrayLike, others_p: ArrayLike,
                                others_discrete: ArrayLike) -> float:
    """The discrete-Holm adjusted p a McNemar test on ``n_discordant`` pairs would get if every pair broke
    (p = 2^-n), with the rest of the family as observed: its "powerless" flag under discrete Holm."""
    own = 2.0 ** -n_discordant if n_discordant > 0 else 1.0
    n = np.concatenate([[int(n_discordant)], np.asarray(others_n, dtype=np.int64)])
    p = np.concatenate([[own], np.asarray(others_p, dtype=float)])
    d = np.concatenate([[True], np.asarray(others_discrete, dtype=bool)])
    # Only its own adjusted p: the step-down stops at its rank (the first, when every pair broke), not after m
    # steps of m terms each, 41 times over for a family of 40 categories.
    n, p = _check(n, p)
    return float(_mixed_step_down(n, p, d, until=0)[0])
