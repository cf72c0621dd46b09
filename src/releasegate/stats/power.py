"""Power: the smallest true difference the paired design detects."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from statistics import NormalDist

import numpy as np
from numpy.typing import NDArray


@dataclass(frozen=True)
class PowerResult:
    """Minimum detectable difference (in pass-rate or score units) at the given alpha and power."""

    mde: float
    n: int
    sd_of_difference: float
    design_effect: float
    alpha: float
    power: float
    one_sided: bool


def minimum_detectable_difference(
    sd_of_difference: float,
    n: int,
    alpha: float = 0.05,
    power: float = 0.8,
    one_sided: bool = True,
    design_effect: float = 1.0,
) -> PowerResult:
    """MDE = (z_{1-alpha'} + z_{power}) * omega * sqrt(design effect) / sqrt(n) for a paired mean difference.

    omega is the standard deviation of the per-case difference; for pass/fail outcomes omega^2 = share of
    discordant cases - D^2 (Connor 1987 in its normal form). alpha' = alpha for the one-sided gate, alpha/2
    two-sided. Clusters multiply the variance by the design effect 1 + (m - 1) ICC (Kish 1965).
    """
    if n <= 0:
        return PowerResult(math.inf, n, sd_of_difference, design_effect, alpha, power, one_sided)
    z = NormalDist().inv_cdf
    z_alpha = z(1 - alpha) if one_sided else z(1 - alpha / 2)
    mde = (z_alpha + z(power)) * sd_of_difference * math.sqrt(max(design_effect, 0.0)) / math.sqrt(n)
    return PowerResult(mde, n, sd_of_difference, design_effect, alpha, power, one_sided)


def required_sample_size(
    sd_of_difference: float, delta: float, alpha: float = 0.05, power: float = 0.8, one_sided: bool = False
) -> float:
    """n = (z_{1-alpha'} + z_{power})^2 omega^2 / delta^2 (unrounded; take the ceiling to plan)."""
    z = NormalDist().inv_cdf
    z_alpha = z(1 - alpha) if one_sided else z(1 - alpha / 2)
    return (z_alpha + z(power)) ** 2 * sd_of_difference**2 / delta**2


# ------------------------------------------------------------------------------------ exact McNemar power
# The normal formula above fails where it matters (few cases, little discordance, a large family): it
# reported "a drop of 117.2 points" on 3 cases. What follows is the exact power of the exact one-sided test.


@dataclass(frozen=True)
class ExactPower:
    """Exact power of the one-sided exact McNemar test for ``n`` cases whose (broke, fixed) cell
    probabilities are ``broke_prob`` and ``fixed_prob``."""

    power: float
    n: int
    broke_prob: float
    fixed_prob: float
    alpha: float
    floor: float  # 2^-n: the smallest p the test can reach with every case discordant


def regression_cells(p0: float, churn: float, drop: float, mode: str = "added") -> tuple[float, float]:
    """(broke, fixed) probabilities of a case for a baseline pass rate p0, churn s (the share of cases whose
    outcome differs between two runs of the same release) and a true drop of the pass rate.

    - ``"added"``: the candidate is a rerun (broke = fixed = s/2) whose passes are each broken with
      probability r = drop / p0 on top: broke = s/2 + r (p0 - s/2), fixed = (1 - r) s/2.
    - ``"tilted"``: the changing share stays s and tilts: broke = (s + drop)/2, fixed = (s - drop)/2 (with
      drop > s every change is a break and the changing share is the drop).
    ValueError when the design is impossible (drop outside [0, p0], s/2 above p0 or 1 - p0).
    """
    if not 0.0 <= drop <= p0:
        raise ValueError(f"a drop of {drop:g} is impossible from a pass rate of {p0:g}")
    if churn < 0 or churn / 2 > min(p0, 1 - p0) + 1e-12:
        raise ValueError(f"churn {churn:g} is impossible at a pass rate of {p0:g}")
    if mode == "added":
        r = drop / p0 if p0 > 0 else 0.0
        return churn / 2 + r * (p0 - churn / 2), (1 - r) * churn / 2
    if mode == "tilted":
        s = max(churn, drop)
        broke, fixed = (s + drop) / 2, (s - drop) / 2
        if broke > p0 + 1e-12:
            raise ValueError(f"a drop of {drop:g} at churn {churn:g} is impossible from a pass rate of "
                             f"{p0:g}")
        return broke, fixed
    raise ValueError(f"unknown mode {mode!r}; expected 'added' or 'tilted'")


@lru_cache(maxsize=64)
def _critical_counts(n: int, alpha: float, midp: bool) -> tuple[int, ...]:
    """For each discordant count m = 0..n, the smallest broke count whose one-sided p is <= alpha (m + 1 if
    none): exact p P(X >= k), or mid-p P(X > k) + P(X = k) / 2, X ~ Bin(m, 1/2). Tails in floating point from
    the small end (relative error ~1e-13), compared with a 1e-9 relative slack so that a level equal to an
    attainable p (alpha = 2^-m) counts as reached."""
    lf = _log_factorials(n)
    out = [1]
    for m in range(1, n + 1):
        pmf = _binom_pmf(m, 0.5, lf)
        upper = np.cumsum(pmf[::-1])[::-1]  # upper[k] = P(X >= k)
        p = upper - pmf / 2 if midp else upper
        ok = np.nonzero(p <= alpha * (1 + 1e-9))[0]
        out.append(int(ok[0]) if ok.size else m + 1)
    return tuple(out)


def _log_factorials(n: int) -> NDArray[np.float64]:
    return np.concatenate([[0.0], np.cumsum(np.log(np.arange(1, n + 1, dtype=float)))])


def _binom_pmf(n: int, p: float, lf: NDArray[np.float64]) -> NDArray[np.float64]:
    """Bin(n, p) pmf from the log factorials ``lf`` (length >= n + 1)."""
    if p <= 0.0 or p >= 1.0:
        out = np.zeros(n + 1)
        out[0 if p <= 0.0 else n] = 1.0
        return out
    k = np.arange(n + 1)
    pmf: NDArray[np.float64] = np.exp(lf[n] - lf[k] - lf[n - k] + k * math.log(p) + (n - k) * math.log1p(-p))
    return pmf


def exact_mcnemar_power(n: int, broke_prob: float, fixed_prob: float, alpha: float = 0.05,
                        midp: bool = False) -> ExactPower:
    """P(one-sided exact McNemar p <= alpha) for n cases, each independently broke / fixed / unchanged with
    the given probabilities: sum over the discordant count m ~ Bin(n, b + c) of
    P(broke >= k_alpha(m)), broke | m ~ Bin(m, b / (b + c)) (exact enumeration; Miettinen 1968's
    conditional form, Fagerland et al. 2013). Mid-p (``midp=True``) uses the mid-p critical counts.
    O(n^2) arithmetic: meant for suites and categories of up to a few thousand cases."""
    n = int(n)
    if n < 0 or not 0 <= broke_prob <= 1 or not 0 <= fixed_prob <= 1 or broke_prob + fixed_prob > 1 + 1e-12:
        raise ValueError("n must be >= 0 and the cell probabilities a distribution")
    floor = 2.0 ** -(n + (1 if midp else 0)) if n else 1.0
    d = broke_prob + fixed_prob
    if n == 0 or d <= 0:
        return ExactPower(0.0, n, broke_prob, fixed_prob, alpha, floor)
    share = broke_prob / d
    crit = np.array(_critical_counts(n, float(alpha), bool(midp)))
    lf = _log_factorials(n)
    weights = _binom_pmf(n, min(d, 1.0), lf)
    m = np.arange(n + 1)
    used = np.nonzero((m >= 1) & (weights > 1e-300) & (crit <= m))[0]
    return ExactPower(min(1.0, _weighted_tails(weights[used], used, crit[used], share)), n, broke_prob, fixed_prob,
                      alpha, floor)


def _weighted_tails(w: NDArray[np.float64], m: NDArray[np.int64], k: NDArray[np.int64], p: float) -> float:
    """sum_i w_i P(Bin(m_i, p) >= k_i), m ascending. The recurrence runs up to the largest m, but the weights
    of the discordant count die off past its mean plus a few standard deviations (at 400 cases and 15% churn
    m stops mattering near 110 where the weights end near 330): the m whose weights sum to at most 1e-15 are
    left out, unless what they could add (their weight) exceeds 1e-12 of the power without them."""
    if m.size == 0:
        return 0.0
    beyond = np.cumsum(w[::-1])[::-1]  # beyond[i] = weight of m[i:]
    cut = int(np.searchsorted(-beyond, -1e-15))  # first i with beyond[i] <= 1e-15 (beyond descends)
    if 0 < cut < m.size:
        kept = float(w[:cut] @ _upper_tails(m[:cut], k[:cut], p))
        if beyond[cut] <= 1e-12 * kept:
            return kept
    return float(w @ _upper_tails(m, k, p))


def _upper_tails(m: NDArray[np.int64], k: NDArray[np.int64], p: float) -> NDArray[np.float64]:
    """P(Bin(m_i, p) >= k_i) for each i (m ascending, 0 <= k_i <= m_i) by the recurrence T(m + 1, j) = p T(m, j - 1)
    + (1 - p) T(m, j), T(m, 0) = 1: one array step per m, each a convex combination (rounding does not grow),
    where a pmf from log factorials per m took the power search about 6 ms a call at 400 cases."""
    if p <= 0.0:
        return (k <= 0).astype(float)
    if p >= 1.0:
        return np.ones(m.size)
    q = 1.0 - p
    top = int(m[-1])
    tail = np.zeros(top + 1)
    tail[0] = 1.0
    out = np.empty(m.size)
    i = 0
    for size in range(1, top + 1):
        tail[1:size + 1] = p * tail[:size] + q * tail[1:size + 1]
        while i < m.size and m[i] == size:
            out[i] = tail[k[i]]
            i += 1
    return out


@dataclass(frozen=True)
class DetectableDrop:
    """The smallest true drop of the pass rate detected with the wanted power, within what is possible.

    ``drop`` is None when nothing is detectable: ``reason`` then says whether the test's floor is above the
    level ("floor") or even a drop of the whole baseline rate falls short ("infeasible").
    """

    drop: float | None
    power: float
    n: int
    p0: float
    churn: float
    alpha: float
    target: float
    mode: str
    reason: str


def minimum_detectable_drop(n: int, p0: float, churn: float, alpha: float = 0.05, power: float = 0.8,
                            mode: str = "added", tol: float = 1e-4) -> DetectableDrop:
    """Smallest drop in [0, p0] at which ``exact_mcnemar_power`` reaches ``power`` (bisection to ``tol``; the
    power of the exact test rises with the drop in both modes). ``alpha`` is the level the family imposes on
    this test (alpha / m under Holm for a category, the discrete step-down's level, or critical_alpha).
    Nothing detectable when 2^-n > alpha, or when the largest possible drop falls short."""
    def at(drop: float) -> float:
        b, c = regression_cells(p0, churn, drop, mode)
        return exact_mcnemar_power(n, b, c, alpha).power

    def result(drop: float | None, pw: float, reason: str) -> DetectableDrop:
        return DetectableDrop(drop, pw, n, p0, churn, alpha, power, mode, reason)

    if n <= 0 or 2.0**-n > alpha:
        return result(None, 0.0, "floor")
    top = p0  # a pass rate cannot drop by more than itself
    highest = at(top)
    if highest < power:
        return result(None, highest, "infeasible")
    lo, hi = 0.0, top
    while hi - lo > tol:
        mid = (lo + hi) / 2
        if at(mid) >= power:
            hi = mid
        else:
            lo = mid
    return result(hi, at(hi), "")
