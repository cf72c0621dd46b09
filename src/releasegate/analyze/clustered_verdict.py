"""The p-value and the interval of a clustered comparison, from one method (issue 21 item 6b, 6c).

The verdict once read a percentile cluster bootstrap interval beside a CR2 or Durkalski p, so the interval
and the test could disagree, and CR2 at two groups with identical changes gave a standard error of 0 and
p = 0. Now, per comparison (overall and each category):

- below ``SMALL_G`` (20) groups: the cluster sign-flip test and the interval that inverts it (the same
  flips), never below p = 2^-G one-sided; at G <= 5 the 95% interval is unbounded, the honest answer;
- from ``SMALL_G`` groups on: CR2 with Bell-McCaffrey df for the p and the t interval with the same df and
  standard error; a zero CR2 standard error is no certainty: the sign-flip gives the p and no interval is
  claimed (unbounded, so non-inferiority cannot pass);
- whatever G, when every group's change sums to -1, 0 or +1 (cluster = case id, one changed case per group)
  the p is the exact conditional test on the groups that changed (:mod:`releasegate.stats.sparse_clusters`),
  which is what the sign-flip p is there, and what the same rows give ungrouped.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from releasegate.policy import Policy
from releasegate.stats.cluster_signflip_interval import SMALL_G, cluster_signflip_interval
from releasegate.stats.clusters import CR2Result, cluster_signflip_test, cr2_test
from releasegate.stats.sparse_clusters import cluster_sparse_test, is_cluster_sparse

TESTS = {"sparse": "exact conditional test on the groups that changed",
         "signflip": "cluster sign-flip test, inverted for the interval",
         "cr2": "CR2 clustered t, interval with the same standard error and df"}


@dataclass(frozen=True)
class ClusteredVerdict:
    """``test`` names the method of the p ("sparse", "signflip" or "cr2", see ``TESTS``); the intervals at
    the report's confidence (``ci_*``) and at 1 - 2 alpha (``ni_*``) come from the sign-flip inversion or
    CR2, the one the p comes from (for "sparse": the sign-flip below ``SMALL_G`` groups, else CR2), or are
    unbounded when CR2's standard error is 0 at ``SMALL_G`` groups or more."""

    test: str
    ci_low: float
    ci_high: float
    ni_low: float
    ni_high: float
    p_value: float
    p_one_sided: float
    degenerate: bool
    trials: int | None = None  # "sparse" with the exact p: the groups that changed (the discrete correction's n)


def _cr2_usable(r: CR2Result) -> bool:
    return bool(r.defined and math.isfinite(r.se) and r.se > 0)


def clustered_verdict(d: np.ndarray, codes: np.ndarray, policy: Policy, bounded: bool,
                      cr2: CR2Result | None = None) -> ClusteredVerdict:
    """The clustered p and intervals of the mean of ``d`` over groups ``codes`` (at least two groups);
    ``bounded`` clips the intervals to [-1, 1] (differences of pass rates); ``cr2`` is ``cr2_test(d, codes,
    policy.confidence)`` when the caller has it."""
    ni_level = 1 - 2 * policy.alpha
    g = int(np.unique(codes).size)
    cr2 = cr2 if cr2 is not None else cr2_test(d, codes, policy.confidence)
    if g < SMALL_G:
        inner = cluster_signflip_interval(d, codes, policy.confidence, policy.n_resamples, policy.seed)
        outer = cluster_signflip_interval(d, codes, ni_level, policy.n_resamples, policy.seed)
        test, p_one = "signflip", inner.p_regression
        p_two = min(1.0, 2.0 * min(inner.p_regression, inner.p_improvement))
        ci, ni_ci = (inner.low, inner.high), (outer.low, outer.high)
    elif _cr2_usable(cr2):
        ni = cr2_test(d, codes, ni_level)
        test, p_two, p_one = "cr2", cr2.p_two_sided, cr2.p_regression
        ci, ni_ci = (cr2.low, cr2.high), (ni.low, ni.high)
    else:
        # Every group's mean equals the overall mean: CR2's standard error is 0, which is no certainty. The
        # sign-flip p is still valid; no interval is, so nothing is ruled out (non-inferiority cannot pass).
        flip = cluster_signflip_test(d, codes, n_resamples=policy.n_resamples, seed=policy.seed)
        test, p_two, p_one = "signflip", flip.p_two_sided, flip.p_regression
        ci = ni_ci = (-math.inf, math.inf)
    degenerate = not np.any(d)
    trials = None
    if is_cluster_sparse(d, codes):
        exact = cluster_sparse_test(d, codes)
        test, p_two, degenerate = "sparse", exact.p_two_sided, exact.degenerate
        p_one = exact.midp_regression if policy.mcnemar == "midp" else exact.p_regression
        trials = None if policy.mcnemar == "midp" else exact.broke + exact.fixed
    if bounded:
        ci, ni_ci = (max(-1.0, ci[0]), min(1.0, ci[1])), (max(-1.0, ni_ci[0]), min(1.0, ni_ci[1]))
    return ClusteredVerdict(test, ci[0], ci[1], ni_ci[0], ni_ci[1], p_two, p_one, bool(degenerate), trials)
