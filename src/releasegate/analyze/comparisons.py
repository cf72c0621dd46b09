"""The two comparisons of the fixed plan, each of two paired arrays: the McNemar comparison of pass/fail
outcomes (SPEC 4.2) and the paired-mean comparison of per-case means (SPEC 4.3: scores, or pass/fail over
several runs). Overall and within each category the plan builds one of them; clusters then put their
interval and p in place (:mod:`.clusters`) and the family adjusts the p-values (:mod:`.family`).
"""

from __future__ import annotations

import math

import numpy as np

from releasegate.analyze.min_change import moved
from releasegate.analyze.pairing import paired_difference
from releasegate.analyze.sparse_cases import sparse_rates, with_sparse_figures
from releasegate.model import Comparison, Rate
from releasegate.policy import Policy
from releasegate.stats.continuous import mean_interval, paired_t_test
from releasegate.stats.mcnemar import mcnemar_test
from releasegate.stats.proportions import newcombe_paired_interval, wilson_interval


def compare_binary(label: str, base: np.ndarray, cand: np.ndarray, policy: Policy, critical: bool = False) -> Comparison:
    """The McNemar-path comparison of two paired 0/1 arrays (SPEC 4.2)."""
    base = base.astype(bool)
    cand = cand.astype(bool)
    n = int(base.size)
    both_pass = int(np.count_nonzero(base & cand))
    broke = int(np.count_nonzero(base & ~cand))
    fixed = int(np.count_nonzero(~base & cand))
    return compare_counts(label, both_pass, broke, fixed, n - both_pass - broke - fixed, policy, critical)


def compare_counts(label: str, both_pass: int, broke: int, fixed: int, both_fail: int, policy: Policy,
                   critical: bool = False) -> Comparison:
    """:func:`compare_binary` from the four counts of the paired 2x2 table, which are all it reads."""
    n = both_pass + broke + fixed + both_fail
    test = mcnemar_test(fixed, broke)
    ci = newcombe_paired_interval(both_pass, broke, fixed, both_fail, policy.confidence)
    ni = newcombe_paired_interval(both_pass, broke, fixed, both_fail, 1 - 2 * policy.alpha)
    rate_b = wilson_interval(both_pass + broke, n, policy.confidence)
    rate_c = wilson_interval(both_pass + fixed, n, policy.confidence)
    use_midp = policy.mcnemar == "midp"
    return Comparison(
        label=label,
        n=n,
        baseline=Rate(n, rate_b.estimate, rate_b.low, rate_b.high),
        candidate=Rate(n, rate_c.estimate, rate_c.low, rate_c.high),
        diff=ci.estimate,
        ci_low=ci.low,
        ci_high=ci.high,
        ni_low=ni.low,
        ni_high=ni.high,
        fixed=fixed,
        broke=broke,
        both_pass=both_pass,
        both_fail=both_fail,
        p_value=test.p_two_sided,
        p_midp=test.midp_two_sided,
        p_one_sided=test.midp_regression if use_midp else test.p_regression,
        method="McNemar mid-p" if use_midp else "McNemar exact",
        degenerate=test.degenerate,
        critical=critical,
        trials=None if use_midp else fixed + broke,
    )


def bounded(low: float, high: float, lower: float, upper: float) -> tuple[float, float]:
    """An interval intersected with the range its quantity can take. A t interval on per-case means of pass/fail
    outcomes (several runs) can reach past 1 ("0.800 [0.498, 1.102]", issue 31): a rate lies in [0, 1] and a
    difference of rates in [-1, 1], so the part outside holds no possible value and dropping it keeps the
    coverage exactly (the true value is inside the interval exactly when it is inside the intersection)."""
    return min(max(low, lower), upper), max(min(high, upper), lower)


def rate_of(values: np.ndarray, confidence: float, rates: bool) -> Rate:
    """A release's mean of per-case means with the t interval; for pass rates (``rates``) within [0, 1]."""
    m = mean_interval(values, confidence)
    low, high = bounded(m.low, m.high, 0.0, 1.0) if rates else (m.low, m.high)
    return Rate(m.n, m.mean, low, high)


def compare_paired(label: str, base: np.ndarray, cand: np.ndarray, policy: Policy, critical: bool = False,
                   rates: bool = False) -> Comparison:
    """The paired-mean comparison of per-case means (SPEC 4.3): paired t interval and test on d.

    ``fixed``/``broke`` count the cases whose mean went up / down (a score by more than ``policy.min_change``). With ``rates`` (pass/fail over several runs)
    ``both_pass``/``both_fail`` count the cases that pass in every run on both sides / fail in every run on
    both; for scores they are 0. A comparison
    of fewer than two cases has no variance estimate: its p-values are 1 and its interval is unbounded, so it
    can neither show a regression nor prove non-inferiority. Pass rates whose per-case differences are all
    -1, 0 or +1 take the McNemar path's figures instead (:mod:`.sparse_cases`).
    """
    d = paired_difference(base, cand)
    n = int(d.size)
    up, down = moved(d, policy, rates)  # scores: beyond min_change (analyze/min_change.py); the tests read all of d
    t = paired_t_test(d, policy.confidence)
    ni = paired_t_test(d, 1 - 2 * policy.alpha)
    if t.defined:
        p_two, p_one = t.p_two_sided, t.p_regression
        ci, ni_ci = (t.low, t.high), (ni.low, ni.high)
        if rates:  # a difference of two pass rates lies in [-1, 1]
            ci, ni_ci = bounded(*ci, -1.0, 1.0), bounded(*ni_ci, -1.0, 1.0)
    else:
        p_two = p_one = 1.0
        ci = ni_ci = (-math.inf, math.inf)
    comparison = Comparison(
        label=label,
        n=n,
        baseline=rate_of(base, policy.confidence, rates),
        candidate=rate_of(cand, policy.confidence, rates),
        diff=t.mean if n else math.nan,  # the t test's mean: 0 within the rounding of its sum
        ci_low=ci[0],
        ci_high=ci[1],
        ni_low=ni_ci[0],
        ni_high=ni_ci[1],
        fixed=int(np.count_nonzero(up)),
        broke=int(np.count_nonzero(down)),
        both_pass=int(np.count_nonzero((base == 1) & (cand == 1))) if rates else 0,
        both_fail=int(np.count_nonzero((base == 0) & (cand == 0))) if rates else 0,
        p_value=p_two,
        p_midp=math.nan,
        p_one_sided=p_one,
        method="paired t",
        degenerate=bool(n and not np.any(d)),
        critical=critical,
    )
    return with_sparse_figures(comparison, base, cand, policy) if rates and sparse_rates(base, cand) else comparison
