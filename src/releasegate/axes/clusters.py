"""Grouped cases (SPEC 4.4): when a cluster column is given, the clustered figures replace the naive ones.

Cases in one group (several questions on one passage, several turns of one conversation) share whatever makes
the group easy or hard, so they carry less information than as many independent cases, and intervals that
treat them as independent are too narrow. Per comparison (overall and each category) the interval becomes the
cluster bootstrap (whole groups resampled, ratio of sums) and the p-value the Durkalski clustered McNemar test
(pass/fail) or the CR2 t test with Bell-McCaffrey df (scores, runs); the naive figures stay in the extra.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from releasegate import fmt
from releasegate.axes.changes import significant_change
from releasegate.model import Comparison, Rate
from releasegate.policy import Policy
from releasegate.stats.clusters import (
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


@dataclass(frozen=True)
class ClusterAnalysis:
    """The clustered and the naive figures of the overall comparison, side by side, and what they mean."""

    cluster_column: str
    n_cases: int
    n_clusters: int
    smallest_cluster: int
    median_cluster: float
    largest_cluster: int
    estimate: float
    naive_method: str
    naive_ci_low: float
    naive_ci_high: float
    naive_p_value: float
    naive_p_one_sided: float
    naive_se: float
    bootstrap_ci_low: float
    bootstrap_ci_high: float
    bootstrap_ni_low: float
    bootstrap_ni_high: float
    n_resamples: int
    seed: int
    confidence: float
    cr2_se: float
    cr2_df: float
    cr2_t: float
    cr2_p_value: float
    cr2_p_one_sided: float
    cr2_ci_low: float
    cr2_ci_high: float
    cr1_se: float
    durkalski_chi2: float
    durkalski_p_value: float
    durkalski_p_one_sided: float
    signflip_p_value: float
    signflip_p_one_sided: float
    signflip_exact: bool
    smallest_p_two_sided: float
    smallest_p_one_sided: float
    design_effect: float
    effective_n: float
    width_ratio: float
    verdict_method: str
    verdict_test: str  # "durkalski" (pass/fail) or "cr2" (scores, runs): the p the verdict reads
    explanation: str
    floor: str  # the smallest p the design can reach, in words
    few_cluster_categories: tuple[tuple[str, int], ...]
    warnings: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass(frozen=True)
class _Clustered:
    comparison: Comparison
    boot: tuple
    cr2: Any
    durkalski: Any


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
    if groups < 2:
        ci = ni = _unbounded(binary)
        p_two = p_one = 1.0
    else:
        ci = (boot[0].ci_low, boot[0].ci_high)
        ni = (boot[1].ci_low, boot[1].ci_high)
        p_two, p_one = (durk.pvalue, durk.p_regression) if binary else (cr2.pvalue, cr2.p_regression)
    comparison = replace(
        naive, ci_low=ci[0], ci_high=ci[1], ni_low=ni[0], ni_high=ni[1], p_value=p_two, p_midp=math.nan,
        p_one_sided=p_one, method=METHOD_BINARY if binary else METHOD_SCORES,
        degenerate=bool(durk.degenerate) if binary else naive.degenerate)
    return _Clustered(comparison, boot, cr2, durk)


def _width_ratio(naive: Comparison, clustered: Comparison) -> float:
    naive_width = naive.ci_high - naive.ci_low
    width = clustered.ci_high - clustered.ci_low
    if not (naive_width > 0 and math.isfinite(naive_width)):
        return math.nan
    return width / naive_width


def _explanation(column: str, n: int, g: int, sizes: np.ndarray, deff: float, ratio: float,
                 naive: Comparison, clustered: Comparison, binary: bool) -> str:
    def interval(c: Comparison) -> str:
        if binary:
            return fmt.interval_points(c.ci_low, c.ci_high) + " points"
        return fmt.interval_signed(c.ci_low, c.ci_high)

    low, high = int(sizes.min()), int(sizes.max())
    each = f"{low} cases each" if low == high else f"{low} to {high} cases each"
    text = (f"The {n:,} cases come in {g:,} groups (by {column}), {each}. Cases in one group share what makes the group easy or hard, so they count for less than "
            f"{n:,} independent cases")
    if deff > 1.05:
        text += (f": the difference carries about as much information as {n / deff:,.0f} independent cases "
                 f"(design effect {deff:.1f}).")
    else:
        text += ", although here the grouping barely matters (design effect about 1)."
    if math.isfinite(ratio) and ratio >= 1.1:
        text += (f" Resampling whole groups gives an interval {ratio:.1f} times as wide as treating every case "
                 f"as independent ({interval(clustered)} against {interval(naive)}). The wider one is the "
                 "honest one, and the verdict uses it.")
    else:
        text += (f" The interval that resamples whole groups, {interval(clustered)}, is about as wide as the one "
                 f"that treats cases as independent, {interval(naive)}; the verdict uses the grouped one.")
    return text


def _warnings(column: str, g: int, few: list[tuple[str, int]], policy: Policy) -> list[str]:
    out = []
    if g < 2:
        out.append(f"all cases are in one {column} group: no statement about other groups is possible, so "
                   "every p is 1 and nothing is ruled out")
    elif g < FEW_CLUSTERS:
        out.append(f"only {g} groups ({column}): grouped intervals are unreliable below {FEW_CLUSTERS} groups, "
                   f"and no test that respects the grouping can reach p below {smallest_cluster_p(g):.2g} "
                   f"(two-sided; {smallest_cluster_p(g, two_sided=False):.2g} one-sided). More groups, not "
                   "more cases per group, would help")
    if few:
        names = ", ".join(f"{label} ({k})" for label, k in few)
        out.append(f"categories with too few {column} groups to show a regression on their own after the "
                   f"{policy.correction} correction: {names}")
    return out


def _floor(g: int) -> str:
    two, one = smallest_cluster_p(g), smallest_cluster_p(g, two_sided=False)
    text = (f"With {g:,} groups no test that respects them can reach p below {two:.2g} two-sided "
            f"({one:.2g} one-sided, all groups' changes in one direction).")
    if g >= FEW_CLUSTERS:
        text += " That floor is far below any threshold in use, so it costs nothing here."
    return text


def _changes_verdict(naive: Comparison, clustered: Comparison, column: str, policy: Policy,
                     binary: bool) -> list[str]:
    """Say so when counting groups rather than single cases changes what a rule concludes."""
    unit = (lambda x: f"{fmt.points(x)} points") if binary else fmt.signed
    out = []
    if policy.margin > 0 and naive.ni_low >= -policy.margin > clustered.ni_low:
        out.append(f"the grouping decides the non-inferiority rule: treating the cases as independent, the "
                   f"{round((1 - 2 * policy.alpha) * 100)}% interval's lower bound would be {unit(naive.ni_low)}, "
                   f"within the margin of {unit(-policy.margin)}; counting {column} groups it is "
                   f"{unit(clustered.ni_low)}, beyond it")
    if naive.p_one_sided < policy.alpha <= clustered.p_one_sided:
        out.append(f"treating the cases as independent the drop would look significant (one-sided "
                   f"{fmt.p_is(naive.p_one_sided)}); counting {column} groups it is not "
                   f"({fmt.p_is(clustered.p_one_sided)})")
    return out


def apply_clusters(overall: Comparison, categories: list[Comparison], paired: pd.DataFrame,
                   category_codes: np.ndarray | None, policy: Policy,
                   binary: bool) -> tuple[Comparison, list[Comparison], ClusterAnalysis]:
    """Replace the naive interval and p of the overall and per-category comparisons by the clustered ones
    (before the multiplicity adjustment), and describe both in a ClusterAnalysis."""
    base = paired["base"].to_numpy(np.float64)
    cand = paired["cand"].to_numpy(np.float64)
    d = significant_change(base, cand)
    codes = pd.factorize(paired["cluster"])[0]
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
    analysis = ClusterAnalysis(
        cluster_column=column, n_cases=n, n_clusters=g, smallest_cluster=int(sizes.min()),
        median_cluster=float(np.median(sizes)), largest_cluster=int(sizes.max()), estimate=float(d.mean()),
        naive_method=overall.method, naive_ci_low=overall.ci_low, naive_ci_high=overall.ci_high,
        naive_p_value=overall.p_value, naive_p_one_sided=overall.p_one_sided,
        naive_se=float(np.std(d, ddof=1) / math.sqrt(n)) if n > 1 else nan,
        bootstrap_ci_low=boot[0].ci_low, bootstrap_ci_high=boot[0].ci_high,
        bootstrap_ni_low=boot[1].ci_low, bootstrap_ni_high=boot[1].ci_high,
        n_resamples=policy.n_resamples, seed=policy.seed, confidence=policy.confidence,
        cr2_se=cr2.se, cr2_df=cr2.df, cr2_t=cr2.t, cr2_p_value=cr2.pvalue, cr2_p_one_sided=cr2.p_regression,
        cr2_ci_low=cr2.ci_low, cr2_ci_high=cr2.ci_high, cr1_se=cr2.cr1_se,
        durkalski_chi2=durk.chi2 if durk else nan, durkalski_p_value=durk.pvalue if durk else nan,
        durkalski_p_one_sided=durk.p_regression if durk else nan,
        signflip_p_value=flip.pvalue, signflip_p_one_sided=flip.p_regression, signflip_exact=flip.exact,
        smallest_p_two_sided=smallest_cluster_p(g), smallest_p_one_sided=smallest_cluster_p(g, two_sided=False),
        design_effect=deff, effective_n=n / deff, width_ratio=ratio,
        verdict_method=(f"cluster bootstrap interval ({policy.n_resamples:,} resamples of whole groups); "
                        f"{METHOD_BINARY if binary else METHOD_SCORES} p"),
        verdict_test="durkalski" if binary else "cr2",
        explanation=_explanation(column, n, g, sizes, deff, ratio, overall, main.comparison, binary),
        floor=_floor(g),
        few_cluster_categories=tuple(few),
        warnings=tuple(_warnings(column, g, few, policy) + _changes_verdict(overall, main.comparison, column, policy,
                                                                           binary)),
    )
    return main.comparison, new_categories, analysis


def clustered_rate(values: np.ndarray, cluster: pd.Series, confidence: float, binary: bool) -> Rate:
    """A release's mean with the CR2 interval over its groups (clipped to [0, 1] for pass rates)."""
    codes = pd.factorize(cluster)[0]
    r = cr2_test(values, codes, confidence)
    low, high = (r.ci_low, r.ci_high) if r.defined else _unbounded(binary)
    if binary:
        low, high = max(0.0, low), min(1.0, high)
    return Rate(int(values.size), float(values.mean()), low, high)
