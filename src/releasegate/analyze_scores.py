"""The paired-mean path of the fixed plan (SPEC 4.3): continuous scores, or pass/fail with several runs per case.

Each case is reduced to its mean over runs; the candidate is compared with the baseline on the per-case
differences d = candidate - baseline: paired t interval and p (the gate's one-sided p is "the candidate is
worse"), improved / worsened counts in place of fixed / broke, and the same multiplicity family as the McNemar
path. The item axis details (sign-flip p, spread of d), the run axis and the clustered figures go to
``CandidateAnalysis.extras`` (:mod:`releasegate.axes`); with clusters the clustered interval and p replace the
naive ones in the comparison the verdict reads.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import pandas as pd

from releasegate.analyze import adjust_family, pair
from releasegate.axes.changes import case_changes, significant_change
from releasegate.case_view import case_view
from releasegate.model import CandidateAnalysis, Comparison, Power, Rate
from releasegate.policy import Policy
from releasegate.stats.continuous import mean_interval, paired_t_test
from releasegate.stats.power import minimum_detectable_difference
from releasegate.validate import ValidatedResults


def _rate(values: np.ndarray, confidence: float) -> Rate:
    m = mean_interval(values, confidence)
    return Rate(m.n, m.mean, m.ci_low, m.ci_high)


def compare_paired(label: str, base: np.ndarray, cand: np.ndarray, policy: Policy, critical: bool = False,
                   rates: bool = False) -> Comparison:
    """The paired-mean comparison of per-case means (SPEC 4.3): paired t interval and test on d.

    ``fixed``/``broke`` count the cases whose mean went up / down. With ``rates`` (pass/fail over several runs)
    ``both_pass``/``both_fail`` count the cases that pass in every run on both sides / fail in every run on
    both; for scores they are 0. A comparison
    of fewer than two cases has no variance estimate: its p-values are 1 and its interval is unbounded, so it
    can neither show a regression nor prove non-inferiority.
    """
    d = significant_change(base, cand)
    n = int(d.size)
    t = paired_t_test(d, policy.confidence)
    ni = paired_t_test(d, 1 - 2 * policy.alpha)
    if t.defined:
        p_two, p_one = t.pvalue, t.p_regression
        ci, ni_ci = (t.ci_low, t.ci_high), (ni.ci_low, ni.ci_high)
    else:
        p_two = p_one = 1.0
        ci = ni_ci = (-math.inf, math.inf)
    return Comparison(
        label=label,
        n=n,
        baseline=_rate(base, policy.confidence),
        candidate=_rate(cand, policy.confidence),
        diff=float(d.mean()) if n else math.nan,
        ci_low=ci[0],
        ci_high=ci[1],
        ni_low=ni_ci[0],
        ni_high=ni_ci[1],
        fixed=int(np.count_nonzero(d > 0)),
        broke=int(np.count_nonzero(d < 0)),
        both_pass=int(np.count_nonzero((base == 1) & (cand == 1))) if rates else 0,
        both_fail=int(np.count_nonzero((base == 0) & (cand == 0))) if rates else 0,
        p_value=p_two,
        p_midp=math.nan,
        p_one_sided=p_one,
        method="paired t",
        degenerate=bool(n and not np.any(d)),
        critical=critical,
    )


def power_of(d: np.ndarray, policy: Policy, design_effect: float = 1.0) -> Power:
    """Minimum detectable drop of the one-sided gate at the policy's power, from the sd of d (SPEC 4.7)."""
    sd = float(np.std(d)) if d.size else math.nan
    result = minimum_detectable_difference(sd, int(d.size), policy.alpha, policy.power, True, design_effect)
    return Power(result.mde, sd, design_effect, policy.power, policy.alpha)


def analyze_scores_candidate(data: ValidatedResults, candidate: str, policy: Policy,
                             tables: Mapping[str, pd.DataFrame] | None = None) -> CandidateAnalysis:
    """Run the paired-mean plan for one candidate: overall, per category, run axis and clusters.
    ``tables`` are the releases' case tables when the caller has them (``analyze.case_tables``)."""
    from releasegate.axes.clusters import apply_clusters
    from releasegate.axes.items import item_axis
    from releasegate.axes.runs import run_axis

    paired, exclusions = pair(data, candidate, tables)
    base = paired["base"].to_numpy(np.float64)
    cand = paired["cand"].to_numpy(np.float64)
    d = significant_change(base, cand)
    rates = data.outcome_kind == "binary"
    overall = compare_paired("overall", base, cand, policy, rates=rates)
    categories = []
    category_codes = None
    if data.has_categories:
        category_codes, labels = pd.factorize(paired["category"], sort=True)
        for k, label in enumerate(labels):
            inside = category_codes == k
            categories.append(compare_paired(str(label), base[inside], cand[inside], policy,
                                             critical=str(label) in policy.critical, rates=rates))
    extras: dict = {"item_axis": item_axis(d, policy, data.outcome_kind, data.has_runs, data.has_clusters)}
    design_effect = 1.0
    if data.has_clusters:
        overall, categories, clusters = apply_clusters(
            overall, categories, paired, category_codes, policy, binary=False)
        extras["clusters"] = clusters
        design_effect = clusters.design_effect
    overall, categories = adjust_family(overall, categories, policy)
    if data.has_runs:
        extras["run_axis"] = run_axis(data, candidate, paired, overall, policy, exclusions.count == 0)
    # Pass/fail with runs: "fails on both" is failing every run on both releases.
    extras["case_view"] = case_view(paired, (base == 0) & (cand == 0) if rates else None, data.metadata_columns,
                                    lambda mask: case_changes(paired, mask, data, policy), policy.critical)
    return CandidateAnalysis(
        name=candidate,
        overall=overall,
        categories=tuple(categories),
        broken_cases=case_changes(paired, d < 0, data, policy),
        fixed_cases=case_changes(paired, d > 0, data, policy),
        exclusions=exclusions,
        power=power_of(d, policy, design_effect),
        extras=extras,
    )
