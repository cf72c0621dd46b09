"""Pass/fail over several runs whose per-case differences are all -1, 0 or +1: the McNemar comparison.

When every case's mean difference over its runs is -1, 0 or +1 (each case either changed in every run or not
at all in the mean, e.g. two identical runs), the paired t test answers the conditional question McNemar
answers exactly, and answers it wrongly where it matters: 1,000 cases, 4 broke, 0 fixed gives paired t p 0.023
while the exact one-sided p is 0.0625. This comparison gives those rows the McNemar path's figures (exact or
mid-p one-sided p as the policy says, Newcombe's paired interval), so one run, two identical runs and cluster
= case id reach one verdict (issue 21 item 6a).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from releasegate.analyze.pairing import paired_difference
from releasegate.model import Comparison
from releasegate.policy import Policy
from releasegate.stats.mcnemar import mcnemar_test
from releasegate.stats.proportions import newcombe_paired_interval
from releasegate.stats.sparse import is_sparse

# The McNemar path's own names: the test is the same, and the family's discrete correction reads them.
METHOD_EXACT = "McNemar exact"
METHOD_MIDP = "McNemar mid-p"


def sparse_rates(base: np.ndarray, cand: np.ndarray) -> bool:
    """True when the per-case pass rates differ by exactly -1, 0 or +1 in every case (and there is a case)."""
    return bool(base.size) and is_sparse(paired_difference(base, cand))


def with_sparse_figures(paired: Comparison, base: np.ndarray, cand: np.ndarray, policy: Policy) -> Comparison:
    """The paired-mean comparison ``paired`` of per-case pass rates whose differences are all -1, 0 or +1,
    with the McNemar path's interval and p in place of the paired t ones.

    A case with difference -1 passed every run on the baseline and none on the candidate (broke), +1 the
    reverse (fixed). Unchanged cases may pass some of their runs: they enter Newcombe's interval through the
    releases' mean pass rates (both-pass = the sum of their pass rates, fractional), which is all the
    interval's Wilson limits read; with whole-number rates it is the McNemar path's interval exactly."""
    d = paired_difference(base, cand)
    broke = int(np.count_nonzero(d == -1.0))
    fixed = int(np.count_nonzero(d == 1.0))
    same = d == 0.0
    passes_unchanged = float(base[same].sum())
    fails_unchanged = float(np.count_nonzero(same)) - passes_unchanged
    test = mcnemar_test(fixed, broke)
    ci = newcombe_paired_interval(passes_unchanged, broke, fixed, fails_unchanged, policy.confidence)
    ni = newcombe_paired_interval(passes_unchanged, broke, fixed, fails_unchanged, 1 - 2 * policy.alpha)
    use_midp = policy.mcnemar == "midp"
    return replace(
        paired, ci_low=ci.low, ci_high=ci.high, ni_low=ni.low, ni_high=ni.high, fixed=fixed, broke=broke,
        p_value=test.p_two_sided, p_midp=test.midp_two_sided,
        p_one_sided=test.midp_regression if use_midp else test.p_regression,
        method=METHOD_MIDP if use_midp else METHOD_EXACT, degenerate=test.degenerate,
        trials=None if use_midp else fixed + broke)
