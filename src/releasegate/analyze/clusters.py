"""Grouped cases (SPEC 4.4): when a cluster column is given, the clustered figures replace the naive ones.

Cases in one group (several questions on one passage, several turns of one conversation) share whatever makes
the group easy or hard, so they carry less information than as many independent cases, and intervals that
treat them as independent are too narrow. Per comparison (overall and each category) the interval and the
p-value come from one method (:mod:`.clustered_verdict`): the cluster sign-flip below 20 groups, CR2 with
Bell-McCaffrey df from there on, the exact conditional test when every group's change is -1, 0 or +1. The
naive figures, the cluster bootstrap and Durkalski's clustered McNemar stay in the section beside them.
Numbers and flags only: wording.sections explains them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from releasegate.analyze.clustered_verdict import clustered_verdict
from releasegate.analyze.pairing import paired_difference
from releasegate.model import Comparison, Rate
from releasegate.model.axes import ClusterAnalysis
from releasegate.policy import Policy
from releasegate.stats.clusters import (
    CR2Result,
    ClusterBootstrapResult,
    DurkalskiResult,
    cluster_bootstrap_intervals,
    cluster_signflip_test,
    cr2_test,
    design_effect,
    durkalski_test,
    smallest_cluster_p,
)
from releasegate.stats.multiplicity import best_case_multiplier

FEW_CLUSTERS = 20
METHOD_BINARY = "Durkalski clustered McNemar"
METHOD_SCORES = "CR2 clustered t"
# The comparison's method by the test of analyze.clustered_verdict (p and interval from one method).
METHODS = {"sparse": "exact conditional on groups", "signflip": "cluster sign-flip", "cr2": "CR2 clustered t"}


@dataclass(frozen=True)
class _Clustered:
    comparison: Comparison
    boot: tuple[ClusterBootstrapResult, ...]
    cr2: CR2Result
    durkalski: DurkalskiResult | None  # pass/fail only
    test: str


def _unbounded(binary: bool) -> tuple[float, float]:
    # With one group there is no replication to estimate the spread from: nothing is ruled out.
    return (-1.0, 1.0) if binary else (-math.inf, math.inf)


def _clustered(naive: Comparison, d: np.ndarray, codes: np.ndarray, broke: np.ndarray, fixed: np.ndarray,
               policy: Policy, binary: bool) -> _Clustered:
    """One comparison with the clustered interval and p in place of the naive ones."""
    boot = cluster_bootstrap_intervals(d, codes, (policy.confidence, 1 - 2 * policy.alpha),
                                       policy.n_resamples, policy.seed)
    cr2 = cr2_test(d, codes, policy.confidence)
    durk = durkalski_test(broke, fixed, codes) if binary else None
    groups = boot[0].n_clusters
    if groups == d.size and groups >= 2:
        # Every group is one case: grouping changes nothing, so the figures are the ungrouped ones (issue 34
        # item 6: one verdict and one set of fired rules whatever the coding).
        return _Clustered(naive, boot, cr2, durk, "singleton")
    trials = None
    if groups < 2:
        ci = ni = _unbounded(binary)
        p_two = p_one = 1.0
        test, degenerate = "none", bool(durk.degenerate) if durk is not None else naive.degenerate
    else:
        v = clustered_verdict(d, codes, policy, binary, cr2)
        ci, ni, p_two, p_one, test, degenerate = (v.ci_low, v.ci_high), (v.ni_low, v.ni_high), v.p_value, \
            v.p_one_sided, v.test, v.degenerate
        trials = v.trials
    comparison = replace(
        naive, ci_low=ci[0], ci_high=ci[1], ni_low=ni[0], ni_high=ni[1], p_value=p_two, p_midp=math.nan,
        p_one_sided=p_one, method=METHODS.get(test, METHOD_BINARY if binary else METHOD_SCORES),
        degenerate=degenerate, trials=trials)
    return _Clustered(comparison, boot, cr2, durk, test)


def _width_ratio(naive: Comparison, clustered: Comparison) -> float:
    naive_width = naive.ci_high - naive.ci_low
    width = clustered.ci_high - clustered.ci_low
    if not (naive_width > 0 and math.isfinite(naive_width)):
        return math.nan
    return width / naive_width


def apply_clusters(overall: Comparison, categories: list[Comparison], base: np.ndarray, cand: np.ndarray,
                   cluster_codes: np.ndarray, category_codes: np.ndarray | None, policy: Policy,
                   binary: bool) -> tuple[Comparison, list[Comparison], ClusterAnalysis]:
    """Replace the naive interval and p of the overall and per-category comparisons by the clustered ones
    (before the multiplicity adjustment), and describe both in a ClusterAnalysis. ``cluster_codes`` are
    integer group codes 0..G-1 per case, in the order of ``base`` and ``cand``."""
    d = paired_difference(base, cand)
    codes = np.asarray(cluster_codes)
    broke = (base == 1) & (cand == 0)
    fixed = (base == 0) & (cand == 1)
    main = _clustered(overall, d, codes, broke, fixed, policy, binary)
    multiplier = best_case_multiplier(policy.correction, 1 + len(categories))
    new_categories, few = [], []
    for k, naive in enumerate(categories):
        inside = category_codes == k
        result = _clustered(naive, d[inside], codes[inside], broke[inside], fixed[inside], policy, binary)
        new_categories.append(result.comparison)
        g_k = result.boot[0].n_clusters
        if smallest_cluster_p(g_k, two_sided=False) * multiplier >= policy.alpha:
            few.append((naive.label, g_k))
    sizes = np.bincount(codes)
    g = int(sizes.size)
    n = int(d.size)
    deff = design_effect(d, codes)
    flip = cluster_signflip_test(d, codes, n_resamples=policy.n_resamples, seed=policy.seed)
    cr2, durk, boot = main.cr2, main.durkalski, main.boot
    column = policy.columns.get("cluster", "cluster")
    ratio = _width_ratio(overall, main.comparison)
    nan = math.nan
    cr2_usable = bool(cr2.defined and math.isfinite(cr2.se) and cr2.se > 0)
    analysis = ClusterAnalysis(
        cluster_column=column, n_cases=n, n_clusters=g, smallest_cluster=int(sizes.min()),
        median_cluster=float(np.median(sizes)), largest_cluster=int(sizes.max()), estimate=float(d.mean()),
        naive_method=overall.method, naive_ci_low=overall.ci_low, naive_ci_high=overall.ci_high,
        naive_p_value=overall.p_value, naive_p_one_sided=overall.p_one_sided,
        naive_se=float(np.std(d, ddof=1) / math.sqrt(n)) if n > 1 else nan,
        bootstrap_ci_low=boot[0].low, bootstrap_ci_high=boot[0].high,
        bootstrap_ni_low=boot[1].low, bootstrap_ni_high=boot[1].high,
        n_resamples=policy.n_resamples, seed=policy.seed, confidence=policy.confidence,
        # A zero CR2 standard error (every group's mean the same) is no certainty: its t, p and interval are
        # undefined (null in the JSON), not p = 0 (issue 34 item 6).
        cr2_se=cr2.se, cr2_df=cr2.df, cr2_t=cr2.t if cr2_usable else nan,
        cr2_p_value=cr2.p_two_sided if cr2_usable else nan, cr2_p_one_sided=cr2.p_regression if cr2_usable else nan,
        cr2_ci_low=cr2.low if cr2_usable else nan, cr2_ci_high=cr2.high if cr2_usable else nan,
        cr1_se=cr2.cr1_se,
        durkalski_chi2=durk.chi2 if durk else nan, durkalski_p_value=durk.p_two_sided if durk else nan,
        durkalski_p_one_sided=durk.p_regression if durk else nan,
        signflip_p_value=flip.p_two_sided, signflip_p_one_sided=flip.p_regression, signflip_exact=flip.exact,
        smallest_p_two_sided=smallest_cluster_p(g), smallest_p_one_sided=smallest_cluster_p(g, two_sided=False),
        design_effect=deff, effective_n=n / deff, width_ratio=ratio,
        verdict_test=main.test, binary=binary, verdict_p_value=main.comparison.p_value,
        few_cluster_categories=tuple(few),
        naive_ni_low=overall.ni_low, verdict_p_one_sided=main.comparison.p_one_sided,
        verdict_ni_low=main.comparison.ni_low, clustered_ci_low=main.comparison.ci_low,
        clustered_ci_high=main.comparison.ci_high,
    )
    return main.comparison, new_categories, analysis


def clustered_rate(values: np.ndarray, cluster: pd.Series, confidence: float, binary: bool) -> Rate:
    """A release's mean with the CR2 interval over its groups (clipped to [0, 1] for pass rates)."""
    codes = pd.factorize(cluster)[0]
    r = cr2_test(values, codes, confidence)
    low, high = (r.low, r.high) if r.defined else _unbounded(binary)
    if binary:
        low, high = max(0.0, low), min(1.0, high)
    return Rate(int(values.size), float(values.mean()), low, high)
