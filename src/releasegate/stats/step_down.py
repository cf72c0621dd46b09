"""One error budget for a family of one-sided tests, some exact and discrete: the weighted discrete step-down.

Each member j has an observed one-sided p_j, a weight w_j > 0 and a null distribution: either an exact
binomial tail on n_j trials (an exact one-sided McNemar or sign test: its attainable p-values are
P(X >= k), X ~ Bin(n_j, 1/2)) or "continuous" (a test that can reach any p: a paired t, a clustered p).
F_j(t) is the largest attainable p of member j that is <= t (0 if none; t itself for a continuous member),
so P(p_j <= t) <= F_j(t) under the member's null.

The procedure (weighted Holm, Holm 1979 section 3, with the discrete Bonferroni local tests of Hommel &
Krummenauer 1998 and the step-down form of Westfall & Wolfinger 1997): order the members by p_j / w_j
(stable); at step k, with lambda_k = p_(k) / w_(k) and R_k the members ranked k or later,

    S_k = sum over i in R_k of F_i(lambda_k w_i),

and the adjusted p of rank k is min(1, max over steps k' <= k of max(S_k', p_(k')))). Rejecting every member
whose adjusted p is <= alpha is the step-down "reject while S_k <= alpha" (S_k >= p_(k) whenever p_(k) is
attainable, F(p) = p; a member whose p is only bounded by a set, such as the larger of two p-values bounded
by one test's attainable set, is never read below its own p).

Why the family-wise error is at most alpha under any dependence (strong control): for an intersection I of
true nulls, the local test "some j in I has sum_{i in I} F_i((p_j / w_j) w_i) <= alpha" rejects at most with
probability sum_{i in I} F_i(lambda* w_i) <= alpha (a union bound on the events p_i <= lambda* w_i, each of
probability at most F_i(lambda* w_i); lambda* the largest scale the sum allows). The step-down is the
shortcut of the closed procedure built on these local tests (Marcus, Peritz & Gabriel 1976): when the steps
up to k passed, every intersection holding the member of rank k is rejected by its own lowest-ranked member,
whose step bounded a sum over a superset. With every member continuous it is weighted Holm exactly; with
equal weights it is discrete Holm (:func:`releasegate.stats.discrete.discrete_holm_mixed`). A member that
cannot reach small p-values (few trials) spends nothing of the level until lambda w reaches its smallest
attainable p, so the rest of the family keeps it. tests/stats/test_stats_step_down.py enumerates the
family-wise error exactly on small families.

The capped form (``cap = alpha``, issue 46): member i is read at min(alpha, lambda w_i), so its term is
F_i(min(alpha, lambda w_i)) and a member whose p is above alpha is stepped past last. The same argument holds
(each local test's sum at the largest lambda it allows is still <= alpha, and a smaller intersection has a
smaller sum at every lambda), and a heavy member now spends at most F_i(alpha), what it can attain at the level:
a critical category weighted far above the rest no longer takes the whole level at a lambda where it can use
only a little of it, and one whose smallest attainable p is above alpha spends nothing at any weight.
tests/stats/test_stats_step_down_capped.py enumerates it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from releasegate.stats.discrete import at_most, attainable_pvalues, largest_attainable_at_most

CONTINUOUS = -1  # the trials of a member that can reach any p (F(t) = t)
# p-values and weights: a sequence or a 1-d array of floats (len() is read).
Floats = Sequence[float] | NDArray[np.float64]


def _check(pvalues: ArrayLike, weights: ArrayLike,
           trials: Sequence[int | None]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    p = np.asarray(pvalues, dtype=float).reshape(-1)
    w = np.asarray(weights, dtype=float).reshape(-1)
    n = np.asarray([CONTINUOUS if t is None else int(t) for t in trials], dtype=np.int64).reshape(-1)
    if not p.size == w.size == n.size:
        raise ValueError(f"{p.size} p-values, {w.size} weights and {n.size} trial counts")
    if np.any(~np.isfinite(p)) or np.any((p < 0) | (p > 1)):
        raise ValueError("p-values must lie in [0, 1]")
    if np.any(~np.isfinite(w)) or np.any(w <= 0):
        raise ValueError("weights must be positive numbers")
    if np.any(n < CONTINUOUS):
        raise ValueError("a trial count cannot be negative")
    return p, w, n


def spent(trials: int, t: float) -> float:
    """F(t): what a member spends at threshold t, the largest p it can attain that is <= t (t itself for a
    continuous member, capped at 1)."""
    if trials == CONTINUOUS:
        return min(1.0, t)
    return largest_attainable_at_most(int(trials), min(1.0, t))


@dataclass(frozen=True, slots=True)
class StepDown:
    """Adjusted p-values of a weighted discrete step-down, in the order given; ``order`` is the step order
    (indices, by p / weight)."""

    adjusted: tuple[float, ...]
    order: tuple[int, ...]
    method: str = "weighted discrete Holm"

    def rejected(self, alpha: float) -> tuple[bool, ...]:
        return tuple(a <= alpha for a in self.adjusted)


def _order(p: np.ndarray, w: np.ndarray, cap: float | None) -> np.ndarray:
    """The step order: by p / w (stable); with a cap, the members whose p is above it (never rejected at that
    level) after every other, so that none of them stops a step a member below it could pass."""
    ratio = p / w
    if cap is None:
        return np.argsort(ratio, kind="stable")
    return np.lexsort((ratio, p > cap))


def _steps_by_loop(p: np.ndarray, w: np.ndarray, n: np.ndarray, until: int | None = None,
                   cap: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The step-down as defined (module docstring), one sum over R_k per step, for a family with discrete members
    or a cap: O(m^2) look-ups, made one member at a time (each member's thresholds at every step searched for in
    its attainable set at once) and summed step by step in rank order, as a loop over the steps adds them, so
    the figures are the loop's to the last bit (tests/stats/test_stats_step_down.py keeps the loop to compare)."""
    ratio = p / w
    order = _order(p, w, cap)
    out = np.full(p.size, np.nan)
    if p.size == 0:
        return out, order
    steps = p.size if until is None else int(np.flatnonzero(order == until)[0]) + 1
    top = math.inf if cap is None else cap
    if steps == 1:  # one step (a best case stops at its first): m look-ups, one at a time as the loop made them
        lam = float(ratio[order[0]])
        total = sum(spent(int(n[i]), min(top, lam * float(w[i]))) for i in order)
        out[order[0]] = min(1.0, max(0.0, total, float(p[order[0]])))
        return out, order
    # The member ranked j spends at the threshold min(top, lambda_k w) of every step k up to its own rank (the
    # steps after it leave it out of R_k); each step's total gains the members' spends one member at a time, in
    # rank order, as Python's sum over R_k adds them. Memory is one vector of steps, not a steps x members table
    # (10,000 categories would be 800 MB a table).
    lam = ratio[order[:steps]]
    totals = np.zeros(steps)
    for j, member in enumerate(order):
        k = min(j + 1, steps)
        t = np.minimum(1.0, np.minimum(top, lam[:k] * w[member]))
        totals[:k] += t if n[member] == CONTINUOUS else at_most(int(n[member]), t)
    # Never below the member's own p: equal to the sum for a member whose p is attainable (F(p) = p); a member
    # whose p is not (the larger of two p-values, bounded by one test's set) gets no better.
    running = np.maximum.accumulate(np.maximum(np.maximum(totals, p[order[:steps]]), 0.0))
    out[order[:steps]] = np.minimum(1.0, running)
    return out, order


def _continuous_steps(p: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The step-down of an all-continuous family (weighted Holm) in O(m log m): with F(t) = min(1, t),
    S_k = sum over R_k of min(1, lambda_k w_i) is min(1, lambda_k W_k) wherever it matters (a term capped at 1
    makes both at least 1), W_k the weight of R_k, a suffix sum in step order; the running max is a cumulative
    max. Equal to :func:`_steps_by_loop` up to the rounding of the sum (tests/stats/test_stats_step_down.py)."""
    ratio = p / w
    order = np.argsort(ratio, kind="stable")
    remaining_weight = np.cumsum(w[order][::-1])[::-1]
    running = np.maximum.accumulate(np.maximum(ratio[order] * remaining_weight, p[order]))
    out = np.empty(p.size)
    out[order] = np.minimum(1.0, running)
    return out, order


def _steps(p: np.ndarray, w: np.ndarray, n: np.ndarray, until: int | None = None,
           cap: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    if cap is None and np.all(n == CONTINUOUS):
        return _continuous_steps(p, w)  # every rank at once: ``until`` would only save work
    return _steps_by_loop(p, w, n, until, cap)


def _checked_cap(cap: float | None) -> float | None:
    if cap is not None and not 0 < cap <= 1:
        raise ValueError("a cap is a level in (0, 1]")
    return cap


def weighted_discrete_holm(pvalues: Floats, weights: Floats,
                           trials: Sequence[int | None], cap: float | None = None) -> StepDown:
    """The weighted discrete step-down (module docstring): ``trials[j]`` is member j's binomial trial count
    (its p an exact upper tail of Bin(n, 1/2); 0 trials: only p = 1 is attainable) or None / CONTINUOUS for a
    member that can reach any p. Weights are relative (only their ratios matter). ``cap`` (the level the
    family is read at, alpha) caps every member's threshold: member i is read at min(cap, lambda w_i), never
    above the level, so a heavy member spends at most F_i(cap) and no more than it can use (module
    docstring: the capped form)."""
    p, w, n = _check(pvalues, weights, trials)
    out, order = _steps(p, w, n, cap=_checked_cap(cap))
    return StepDown(tuple(float(v) for v in out), tuple(int(i) for i in order))


def weighted_best_case(index: int, best_p: float, pvalues: Floats, weights: Floats,
                       trials: Sequence[int | None], cap: float | None = None) -> float:
    """Member ``index``'s adjusted p if its p were ``best_p`` (its floor: every trial one way), the others as
    given: the step-down stops at that member's rank."""
    p, w, n = _check(pvalues, weights, trials)
    p = p.copy()
    p[index] = best_p
    out, _ = _steps(p, w, n, until=index, cap=_checked_cap(cap))
    return float(out[index])


def weighted_holm(pvalues: Floats, weights: Floats) -> StepDown:
    """Weighted Holm (Holm 1979 section 3): the step-down with every member continuous, O(m log m)."""
    p, w, _ = _check(pvalues, weights, [None] * len(pvalues))
    out, order = _continuous_steps(p, w)
    return StepDown(tuple(float(v) for v in out), tuple(int(i) for i in order), "weighted Holm")


def weighted_bonferroni(pvalues: Floats, weights: Floats) -> tuple[float, ...]:
    """Weighted Bonferroni: min(1, p_j W / w_j), W the sum of the weights (strong control, any dependence)."""
    p, w, _ = _check(pvalues, weights, [None] * len(pvalues))
    return tuple(float(v) for v in np.minimum(1.0, p * w.sum() / w))


def weighted_step_up(pvalues: Floats, weights: Floats, method: str) -> tuple[float, ...]:
    """Hochberg's step-up or Benjamini-Hochberg on the weighted p-values p_j / (w_j m / W), the weights
    normalised to mean 1 (Benjamini & Hochberg 1997, "Multiple hypotheses testing with weights", Scand J Stat
    24:407; Genovese, Roeder & Wasserman 2006, Biometrika 93:509). Equal weights give the plain procedures."""
    from releasegate.stats.multiplicity import adjust_pvalues

    p, w, _ = _check(pvalues, weights, [None] * len(pvalues))
    scaled = np.minimum(1.0, p / (w * w.size / w.sum()))
    return tuple(float(v) for v in adjust_pvalues(scaled, method))


def largest_spend(weights: Floats, trials: Sequence[int | None], cap: float) -> float:
    """S*: the most the family's first step can spend at level ``cap`` given each member's trials, the largest
    sum S(lambda) = sum over i of F_i(min(cap, lambda w_i)) that is still <= cap. Any p-values the family may
    take, it rejects something (its local test of every hypothesis together) only when some p_i <= min(cap,
    lambda* w_i) with S(lambda*) <= cap, so under the null, given the members' trials, the chance that it
    rejects anything is at most S*; cap - S* is what the discreteness left unspent, which a later look at the
    same releases may spend (docs/methods.md, later looks). A member that can reach any p makes S continuous:
    S* = cap, nothing left."""
    _, w, n = _check([0.0] * len(trials), weights, trials)
    if not 0 < cap <= 1:
        raise ValueError("a cap is a level in (0, 1]")
    if np.any(n == CONTINUOUS):
        return cap
    # S is a step function of lambda, constant between the points where a member's threshold crosses one of its
    # attainable values (a / w_i, a <= cap) or reaches the cap (cap / w_i): its largest value <= cap is at one.
    sets = [attainable_pvalues(int(ni)) for ni in n]
    points = np.unique(np.concatenate([values[values <= cap] / wi for wi, values in zip(w, sets)] + [np.zeros(1)]))

    def total(lam: float) -> float:
        return sum(spent(int(ni), min(cap, lam * float(wi))) for wi, ni in zip(w, n))

    # S is non-decreasing in lambda: bisect for the last point where it is still <= cap.
    lo, hi = 0, points.size - 1
    if total(float(points[hi])) <= cap * (1 + 1e-12):
        return float(min(total(float(points[hi])), cap))
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if total(float(points[mid])) <= cap * (1 + 1e-12) else (lo, mid)
    return float(min(total(float(points[lo])), cap))
