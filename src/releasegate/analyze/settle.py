"""What would settle a NOT PROVEN (issue 34 item 2), from the discordance these two releases show: the cases,
or the runs of every case, that give an 80% and a 95% chance of showing non-inferiority at the margin if the
candidate is truly no worse (stats.settle.settle_noninferiority). Set when the non-inferiority rule fires (the
lower bound of the (1 - 2 alpha) interval below -margin), the only time it is read; the exact chance of the
Newcombe-interval rule costs up to a quarter of a second on a large suite."""

from __future__ import annotations

import math

from releasegate.analyze.churn import MeasuredChurn
from releasegate.model import CandidateAnalysis
from releasegate.model.budget import Settle
from releasegate.policy import Policy
from releasegate.stats.settle import settle_noninferiority

TARGETS = (0.8, 0.95)


def settle_of(cand: CandidateAnalysis, measured: MeasuredChurn | None, policy: Policy, *, binary: bool,
              runs: int) -> Settle | None:
    """The settling figures of one candidate; None with the margin off, no case compared, or the rule passed.

    The variance of a case's difference at true difference 0 is its mean square: with one run of pass/fail the
    discordant share (fixed + broke) / n; otherwise sd^2 + mean^2 of the per-case mean differences; with
    clusters times the design effect (more cases then means more groups like these). The run-to-run share is
    the baseline's churn from a rerun or its own runs (pass/fail only); without it more runs cannot be told
    apart from more of the same (stats.settle)."""
    o = cand.overall
    if cand.judged is not None:
        # The corrected difference (gold labels, judge_correction = "ppi") narrows with gold labels, not cases:
        # the judge section's plan says how many labels would (analyze/judge.py).
        return None
    if policy.margin <= 0 or o.n < 1 or not 0 < policy.margin < 1 or not o.ni_low < -policy.margin:
        return None
    power = cand.power
    if binary and runs == 1:
        variance = (o.fixed + o.broke) / o.n
    else:
        sd, mean = power.sd_of_difference, o.diff
        if not (math.isfinite(sd) and math.isfinite(mean)):
            return None
        variance = sd * sd + mean * mean
    clusters = cand.sections.clusters
    clustered = clusters is not None
    groups = None
    if clusters is not None:
        from releasegate.analyze.clusters import FEW_CLUSTERS  # grouped cases only: CR2 stays unimported otherwise

        groups = clusters.n_clusters if clusters.n_clusters < FEW_CLUSTERS else None
    if clustered and math.isfinite(power.design_effect):
        variance *= max(1.0, power.design_effect)
    run_share, source = None, "unknown"
    if measured is not None and binary and not clustered:
        run_share, source = float(measured.churn.share), measured.source
    one_run = binary and runs == 1 and not clustered
    share = None if run_share is None else min(1.0, run_share)
    pass_rate = o.baseline.value if one_run else None
    plan = settle_noninferiority(o.n, variance, policy.margin, policy.alpha, runs=max(1, runs), run_share=share,
                                 targets=TARGETS, pass_rate=pass_rate)
    if variance == 0 or not o.diff < 0:
        return Settle(plan, source, groups=groups)
    # A loss was measured: beside the sizes at no true difference, the same question as if that loss were the
    # true one, at the margin it leaves (issue 46 item 4); none when the loss is at or beyond the margin.
    left = policy.margin + o.diff
    observed = settle_noninferiority(o.n, variance, left, policy.alpha, runs=max(1, runs), run_share=share,
                                     targets=TARGETS, pass_rate=pass_rate) if 0 < left < 1 else None
    return Settle(plan, source, float(o.diff), observed, groups)
