"""The non-inferiority rule's reach on this suite: its chance to pass a candidate that changes nothing, at the
churn the data shows (issue 21 item 5), and the cases that would give an even and a target chance."""

from __future__ import annotations

import math
from statistics import NormalDist

from releasegate.model import Comparison
from releasegate.policy import Policy
from releasegate.stats.noninferiority_reach import (
    NonInferiorityReach,
    noninferiority_reach,
    noninferiority_reach_binary,
)


def ni_reach_of(overall: Comparison, policy: Policy, *, mcnemar: bool, clustered: bool,
                exact: bool = True) -> NonInferiorityReach | None:
    """One run of pass/fail: the discordant share (fixed + broke) / n is the churn. Several runs, scores or
    clusters: the spread of a case's difference as the verdict's own (1 - 2 alpha) interval measures it
    (half-width / z_{1-alpha} is its standard error, times sqrt(n)), so clusters and runs count as the rule
    counts them. None when the rule is off or the interval is unbounded (fewer than two cases). ``exact``: the
    smallest margin from the rule's exact chance (one run of pass/fail; a few hundredths of a second, which a
    simulation skips)."""
    if policy.margin <= 0 or overall.n < 1:
        return None
    if mcnemar and not clustered:
        return noninferiority_reach_binary(overall.n, overall.fixed + overall.broke, policy.margin, policy.alpha,
                                           policy.power, overall.baseline.value if exact else None)
    width = overall.ni_high - overall.ni_low
    if not math.isfinite(width) or width < 0:
        return None
    se = width / (2 * NormalDist().inv_cdf(1 - policy.alpha))
    return noninferiority_reach(overall.n, se * math.sqrt(overall.n), policy.margin, policy.alpha, policy.power)
