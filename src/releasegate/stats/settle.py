"""What would settle a NOT PROVEN (issue 34 item 2): how many cases, or how many runs of every case, give a
chance ``target`` of showing non-inferiority at the margin if the candidate is truly no worse, computed from
the spread of the per-case differences these two releases show (not an assumed churn).

The non-inferiority rule passes when the lower bound of the two-sided (1 - 2 alpha) interval of the mean
difference is above -margin: at true difference 0 a one-sided level-alpha test of H0: difference <= -margin,
whose power on n cases with per-case variance v is

    power = Phi(margin sqrt(n) / sqrt(v) - z_{1-alpha})

(the normal form of the paired non-inferiority test, Chow, Shao & Wang 2008, *Sample Size Calculations in
Clinical Research*, 2nd ed., section 4.1; for paired pass/fail Nam 1997, Biometrics 53:1422: at difference 0 a
case's difference is -1, 0 or +1 with variance the discordant share). So n(target) = ((z_{1-alpha} +
z_target)^2 v / margin^2), rounded up. For pass/fail with one run, where the rule reads Newcombe's interval
and the normal form is optimistic at small discordant counts (5% discordance: 124 cases give 71%, not 80%),
the chance is computed on the rule itself (:func:`noninferiority_chance`: summed exactly over the discordant
counts, D ~ Bin(n, q) and broke | D ~ Bin(D, 1/2), the concordant cases split at their expected both-pass
share) and the cases are the smallest n whose chance reaches the target, below 100 expected discordant
cases (above, the normal form is within a point of it).

Runs: with R runs of every case on both releases and each case reduced to its mean, the variance of a case's
difference is v(R) = c + r / R, where r is the run-to-run share (two runs of the same release disagree on a
share r of cases: the part of the discordance a rerun averages away; stats.churn) and c the case-level part
(cases whose outcome the candidate really changed, in either direction: a rerun does not average it away). The
runs that reach the target on the same cases are the smallest R with c + r / R <= n margin^2 / (z_{1-alpha} +
z_target)^2; none exists when c alone is above that bound, and none can be told when r is unknown (one run of
each release and no rerun: then run-to-run noise and case-level change look alike).
tests/stats/test_stats_settle.py checks the cases against exact enumeration of the Newcombe-interval rule and
the runs against simulated releases.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np
from numpy.typing import NDArray


_Z = NormalDist()
MAX_RUNS = 1000  # beyond this many runs per case the answer is "not by runs"


@dataclass(frozen=True, slots=True)
class NonInferiorityPlan:
    """The settling figures at each ``targets`` chance. ``cases_needed[i]``: the cases (at the current runs
    per case) that give targets[i]; ``runs_needed[i]``: the runs of every case (on the current cases) that
    give it, or None, with ``runs_reason`` "case-level change" (the case-level part alone is too wide for
    these cases), "unknown" (the run-to-run share was not measured) or "" (a number is given).
    ``power`` is the chance at the current design; ``variance`` = ``case_share`` + ``run_share`` / ``runs``."""

    n: int
    runs: int
    variance: float
    run_share: float | None
    case_share: float | None
    margin: float
    alpha: float
    power: float
    targets: tuple[float, ...]
    cases_needed: tuple[int | None, ...]
    runs_needed: tuple[int | None, ...]
    runs_reason: str
    method: str = "normal approximation (Nam 1997; Chow, Shao & Wang 2008, section 4.1)"
    # The runs are always the normal form: several runs take the paired t path, whose interval it describes.


EXACT_METHOD = ("the Newcombe-interval rule's chance, summed over the discordant counts (the normal form above "
                "100 expected discordant cases)")
EXACT_BELOW = 100
# The log of the weight of a discordant count below which the exact sum stops walking outward.
_NEGLIGIBLE = math.log(1e-13)
NORMAL_METHOD = "normal approximation (Nam 1997; Chow, Shao & Wang 2008, section 4.1)"


def _wilson(k: np.ndarray, n: int, z: float) -> tuple[np.ndarray, np.ndarray]:
    """stats.proportions.wilson_interval's limits on arrays of (fractional) successes out of n."""
    p = k / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * np.sqrt(np.maximum(p * (1 - p) / n + z2 / (4 * n * n), 0.0)) / (1 + z2 / n)
    low = np.where(k <= 0, 0.0, np.maximum(0.0, centre - half))
    high = np.where(k >= n, 1.0, np.minimum(1.0, centre + half))
    return low, high


def newcombe_lower(a: np.ndarray, b: np.ndarray, c: np.ndarray, d: np.ndarray, n: int,
                   confidence: float) -> np.ndarray:
    """The lower limit of stats.proportions.newcombe_paired_interval (method 10, with its phi correction) on
    arrays of cells summing to n: the same formula, vectorised for the chance below (tested equal)."""
    z = _Z.inv_cdf(0.5 + confidence / 2)
    p1, p2 = (a + c) / n, (a + b) / n
    l1, _ = _wilson(a + c, n, z)
    _, u2 = _wilson(a + b, n, z)
    margins = (a + b) * (c + d) * (a + c) * (b + d)
    big_a = a * d - b * c
    root = np.sqrt(np.where(margins > 0, margins, 1.0))
    phi = np.where(margins == 0, 0.0, np.where(big_a > n / 2, (big_a - n / 2) / root,
                                               np.where(big_a >= 0, 0.0, big_a / root)))
    dl1, du2 = p1 - l1, u2 - p2
    low = p1 - p2 - np.sqrt(np.maximum(dl1 * dl1 - 2 * phi * dl1 * du2 + du2 * du2, 0.0))
    lower: NDArray[np.float64] = np.maximum(-1.0, low)
    return lower


def noninferiority_chance(n: int, discordant: float, p0: float, margin: float, alpha: float = 0.05) -> float:
    """The chance that the (1 - 2 alpha) Newcombe interval's lower bound is above -margin on n cases of a
    candidate that changes nothing: each case broke with probability q / 2, fixed with q / 2 (q =
    ``discordant``), both-pass p0 - q / 2. Exact over the discordant counts D ~ Bin(n, q) (within 7 standard
    deviations, and beyond them while a count weighs more than 1e-13: the rest weighs below 1e-11) and
    broke | D ~ Bin(D, 1/2); the n - D concordant cases split at their expected both-pass share (a fractional
    cell, as Newcombe's limits allow)."""
    q = min(max(discordant, 0.0), 1.0)
    if q == 0 or n < 1:
        return 1.0 if q == 0 else 0.0
    sd = math.sqrt(n * q * (1 - q))
    log_q, log_p = math.log(q), (math.log1p(-q) if q < 1 else -math.inf)

    def log_pmf(k: int) -> float:  # Bin(n, q) at one count; at q = 1 only D = n weighs (1), not every count
        if q == 1:
            return 0.0 if k == n else -math.inf
        return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1) + k * log_q + (n - k) * log_p

    # 7 standard deviations leave out less than 1e-11 only near the normal limit: with few expected discordant
    # cases the tail is Poisson-like (n = 100, q = 1e-4: P(D > 2) = 1.6e-7). So each end of the window also
    # walks outward while the next count weighs more than 1e-13; past the mode the counts fall at least
    # geometrically, so what is left beyond each end weighs below 1e-11.
    first, last = max(0, math.floor(n * q - 7 * sd - 1)), min(n, math.ceil(n * q + 7 * sd + 1))
    while first > 0 and log_pmf(first - 1) > _NEGLIGIBLE:
        first -= 1
    while last < n and log_pmf(last + 1) > _NEGLIGIBLE:
        last += 1
    counts = np.arange(first, last + 1)
    # log k! and log C(n, k) up to the largest count, each summed over k terms of its own: from lgamma(n + 1) they
    # would carry its rounding (1e-8 of the weight at n = 10^7), and nothing of size n is made.
    log_fact = np.concatenate([[0.0], np.cumsum(np.log(np.arange(1, last + 1)))])
    log_choose = np.concatenate([[0.0], np.cumsum(np.log((n - np.arange(last)) / np.arange(1, last + 1)))])
    log_count = log_choose[counts] + counts * log_q + (
        (n - counts) * log_p if q < 1 else np.where(counts == n, 0.0, -np.inf))
    broke = np.arange(int(counts.max()) + 1)[None, :]
    inside = broke <= counts[:, None]
    safe = np.where(inside, broke, 0)
    log_split = np.where(inside, log_fact[counts][:, None] - log_fact[safe] - log_fact[np.where(inside, counts[:, None]
                                                                                         - broke, 0)], -np.inf)
    log_split = log_split - counts[:, None] * math.log(2.0)
    share = min(1.0, max(0.0, (p0 - q / 2) / (1 - q))) if q < 1 else 0.0
    rest = (n - counts)[:, None].astype(float)
    b = safe.astype(float)
    c = np.where(inside, counts[:, None] - broke, 0).astype(float)
    low = newcombe_lower(rest * share, b, c, rest * (1 - share), n, 1 - 2 * alpha)
    weight = np.exp(log_count[:, None] + log_split)
    return float(min(1.0, np.sum(np.where(inside & (low > -margin), weight, 0.0))))


def _cases_by_chance(target: float, q: float, p0: float, margin: float, alpha: float, guess: int) -> int:
    """The smallest n whose exact chance reaches ``target``, bisected in a bracket around the normal form's
    guess (the chance rises with n but for the discreteness of small counts)."""
    lo, hi = max(1, guess // 2), max(2, guess)
    while noninferiority_chance(hi, q, p0, margin, alpha) < target:
        lo, hi = hi, 2 * hi
    while lo > 1 and noninferiority_chance(lo, q, p0, margin, alpha) >= target:
        lo, hi = max(1, lo // 2), lo
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if noninferiority_chance(mid, q, p0, margin, alpha) >= target else (mid, hi)
    return hi


def _bound(target: float, alpha: float, margin: float) -> float:
    """The largest per-case variance v with which n cases reach ``target``, divided by n."""
    z = _Z.inv_cdf(1 - alpha) + _Z.inv_cdf(target)
    return margin * margin / (z * z)


def settle_noninferiority(n: int, variance: float, margin: float, alpha: float = 0.05, *, runs: int = 1,
                          run_share: float | None = None, targets: tuple[float, ...] = (0.8, 0.95),
                          pass_rate: float | None = None) -> NonInferiorityPlan:
    """The cases and runs that settle the non-inferiority question (module docstring).

    ``variance``: the per-case difference's second moment at the current ``runs`` (pass/fail with one run:
    the discordant share (fixed + broke) / n; several runs: the mean squared difference of the per-case
    means), taken at true difference 0. ``run_share``: the run-to-run share r measured from a baseline rerun
    or the baseline's own runs, None when unknown. ``pass_rate`` (pass/fail with one run: the baseline's)
    computes the chance and the cases on the Newcombe-interval rule itself rather than the normal form."""
    if n < 1 or not variance >= 0 or not 0 < margin < 1 or not 0 < alpha < 0.5 or runs < 1:
        raise ValueError("n >= 1, variance >= 0, 0 < margin < 1, 0 < alpha < 0.5 and runs >= 1 are required")
    if any(not 0.5 <= t < 1 for t in targets):
        raise ValueError("every target chance must be in [0.5, 1)")
    if run_share is not None and not 0 <= run_share <= 1:
        raise ValueError("the run-to-run share must be in [0, 1]")
    z_alpha = _Z.inv_cdf(1 - alpha)
    power = 1.0 if variance == 0 else _Z.cdf(margin * math.sqrt(n) / math.sqrt(variance) - z_alpha)
    cases = tuple(0 if variance == 0 else max(1, math.ceil(variance / _bound(t, alpha, margin) - 1e-9))
                  for t in targets)
    exact = pass_rate is not None and runs == 1 and 0 < variance <= 1
    if exact and pass_rate is not None:  # (exact implies it: the repeat narrows pass_rate for mypy)
        # On the rule itself where the normal form is off by more than a point: below EXACT_BELOW expected
        # discordant cases (at q = 0.18 the normal 80% size, 80 discordant, gives 79.2%; at q = 0.05, 6
        # discordant, 71%). Above, the normal form stands, and the search would cost tenths of a second.
        if n * variance <= EXACT_BELOW:
            power = noninferiority_chance(n, variance, pass_rate, margin, alpha)
        cases = tuple(_cases_by_chance(t, variance, pass_rate, margin, alpha, guess)
                      if guess * variance <= EXACT_BELOW else guess for t, guess in zip(targets, cases))
    case_share = None if run_share is None else max(0.0, variance - run_share / runs)
    needed: list[int | None] = []
    reason = ""
    for t in targets:
        limit = n * _bound(t, alpha, margin)
        if variance <= limit:
            needed.append(runs)  # the runs as they are give the target chance
        elif run_share is None or case_share is None:
            needed.append(None)
            reason = "unknown"
        elif case_share >= limit or run_share == 0:
            needed.append(None)
            reason = reason or "case-level change"
        else:
            r = math.ceil(run_share / (limit - case_share) - 1e-9)
            needed.append(r if r <= MAX_RUNS else None)
            if r > MAX_RUNS:
                reason = reason or "case-level change"
    return NonInferiorityPlan(int(n), int(runs), float(variance), run_share, case_share, float(margin),
                              float(alpha), float(power), tuple(targets), cases, tuple(needed), reason,
                              EXACT_METHOD if exact else NORMAL_METHOD)


@dataclass(frozen=True, slots=True)
class DiscordanceSplit:
    """The per-case discordance between two releases with ``runs`` runs of each, split into the part a rerun
    repeats and the part it averages away (a one-way random-effects decomposition of d_ij = candidate run j -
    baseline run j, the case the group, as in the ICC). ``total`` is the mean square of the per-case mean
    difference at these runs, ``case_part`` the covariance of two runs' differences of one case (the between-
    release change more runs cannot remove: E[d_ij d_ik], j != k, so every case's own true difference squared),
    ``run_part`` the within-case variance of one run's difference (what R runs divide by R); total = case_part +
    run_part / runs, up to the sampling error of each estimate."""

    n: int
    runs: int
    total: float
    case_part: float
    run_part: float


def discordance_split(base_runs: NDArray[np.float64], cand_runs: NDArray[np.float64]) -> DiscordanceSplit:
    """The split of (runs, cases) arrays of outcomes (pass/fail or scores), runs paired by index (independent
    runs are exchangeable, so any pairing estimates the same parts). With one run the parts cannot be told apart:
    ValueError. case_part = mean over cases of ((sum_j d_ij)^2 - sum_j d_ij^2) / (R (R - 1)), the unbiased
    estimate of E[d_ij d_ik]; run_part = mean over cases of the sample variance of d_i1..d_iR (ddof 1), the
    unbiased within-case variance (the ANOVA estimators of a one-way random-effects model; Searle, Casella &
    McCulloch 1992, *Variance Components*)."""
    base = np.asarray(base_runs, dtype=np.float64)
    cand = np.asarray(cand_runs, dtype=np.float64)
    if base.ndim != 2 or base.shape != cand.shape:
        raise ValueError("two (runs, cases) arrays of one shape are needed")
    runs, n = base.shape
    if runs < 2 or n < 1:
        raise ValueError("at least two runs of at least one case are needed to split the discordance")
    d = cand - base
    sums = d.sum(axis=0)
    squares = (d * d).sum(axis=0)
    case_part = float(np.mean((sums * sums - squares) / (runs * (runs - 1))))
    run_part = float(np.mean((squares - sums * sums / runs) / (runs - 1)))
    total = float(np.mean((sums / runs) ** 2))
    return DiscordanceSplit(int(n), int(runs), total, case_part, run_part)


def smallest_margin(n: int, variance: float, alpha: float = 0.05, target: float = 0.8,
                    pass_rate: float | None = None) -> float:
    """The smallest non-inferiority margin these ``n`` cases show with chance ``target`` for a candidate that
    changes nothing, at the per-case difference's mean square ``variance`` (one run of pass/fail: the discordant
    share): the normal form (z_{1-alpha} + z_target) sqrt(variance / n) (Chow, Shao & Wang 2008, section 4.1,
    solved for the margin); with ``pass_rate`` (one run of pass/fail) the smallest margin at which the
    Newcombe-interval rule's exact chance (:func:`noninferiority_chance`) reaches the target, by bisection (the
    chance rises with the margin), up to 100 expected discordant cases. At most 1 (a pass rate cannot move
    further); 0 when nothing changed."""
    if n < 1 or not variance >= 0 or not 0 < alpha < 0.5 or not 0.5 <= target < 1:
        raise ValueError("n >= 1, variance >= 0, 0 < alpha < 0.5 and 0.5 <= target < 1 are required")
    if variance == 0:
        return 0.0
    normal = (_Z.inv_cdf(1 - alpha) + _Z.inv_cdf(target)) * math.sqrt(variance / n)
    if pass_rate is None or not 0 < variance <= 1 or n * variance > EXACT_BELOW:
        return min(1.0, normal)  # above 100 expected discordant cases the normal form is within a point
    lo, hi = 0.0, 1.0
    if noninferiority_chance(n, variance, pass_rate, hi - 1e-9, alpha) < target:
        return 1.0
    for _ in range(24):  # to 6e-8 of a pass rate
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if noninferiority_chance(n, variance, pass_rate, mid, alpha) >= target else (mid, hi)
    return hi
