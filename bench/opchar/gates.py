"""The gates under study, each a function of one simulated release pair returning "block" (True) or not.

- releasegate itself, through the library's own code: ``library_full`` runs the public path
  (validate -> analyze -> decide on a tidy table); ``library_fast`` calls the same library functions the plan
  is made of, without the pandas validation and pairing, and the study checks on a share of every cell that
  both give the same verdict and the same rules.
- Three gates in common use, written out here because no library ships them as gates:
  a pass-rate threshold, an unpaired two-proportion z-test and a seed-axis Welch t-test on per-run means.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import special

from releasegate.analyze import analyze, parameters_of
from releasegate.analyze.candidate import plan_arrays
from releasegate.decide import RULE_NAMES, decide, decide_candidate
from releasegate.model import Analysis, CandidateAnalysis, CandidateSections, Exclusions
from releasegate.policy import Policy
from releasegate.validate import validate

from .simulate import Sample

BASELINE, CANDIDATE = "baseline", "candidate"

# A decision: for each of decide.RULE_NAMES, whether it fired; SHIP is "none fired".
Decision = tuple[bool, ...]


def category_labels(codes: np.ndarray) -> np.ndarray:
    # Zero-padded so that the library's sorted order is the numeric order.
    return np.char.add("k", np.char.zfill(codes.astype(str), 2))


def cluster_labels(codes: np.ndarray) -> np.ndarray:
    return np.char.add("g", codes.astype(str))


def tidy(sample: Sample) -> pd.DataFrame:
    """The sample as the tidy table a user would give releasegate: one row per (release, case[, run])."""
    n = sample.base.size
    cases = np.char.add("c", np.char.zfill(np.arange(n).astype(str), 5))
    columns: dict[str, np.ndarray] = {}
    if sample.base_runs is None:
        outcomes = {BASELINE: sample.base, CANDIDATE: sample.cand}
        repeat = 1
    else:
        outcomes = {BASELINE: sample.base_runs.ravel(), CANDIDATE: sample.cand_runs.ravel()}
        repeat = sample.base_runs.shape[0]
    columns["release"] = np.repeat([BASELINE, CANDIDATE], n * repeat)
    columns["case_id"] = np.tile(cases, 2 * repeat)
    columns["passed"] = np.concatenate([outcomes[BASELINE], outcomes[CANDIDATE]]).astype(int)
    if repeat > 1:
        columns["run"] = np.tile(np.repeat(np.arange(repeat), n), 2)
    if sample.category is not None:
        columns["category"] = np.tile(category_labels(sample.category), 2 * repeat)
    if sample.cluster is not None:
        columns["cluster"] = np.tile(cluster_labels(sample.cluster), 2 * repeat)
    return pd.DataFrame(columns)


def _fired(checks) -> Decision:
    by_rule = {c.rule: c.fired for c in checks}
    return tuple(by_rule[r] for r in RULE_NAMES)


def library_full(sample: Sample, policies: Sequence[Policy]) -> list[Decision]:
    """releasegate's public path: validate, analyze and decide on the tidy table, once per policy."""
    table = tidy(sample)
    out = []
    for policy in policies:
        analysis = analyze(validate(table, policy), policy)
        out.append(_fired(decide(analysis, policy)[0].checks))
    return out


def library_fast(sample: Sample, policies: Sequence[Policy]) -> list[Decision]:
    """The plan from the library's own array-level entry (analyze.candidate.plan_arrays: comparisons, clusters,
    family) and decide.decide_candidate, without the pandas validation and pairing that dominate the cost of
    one replication, and without what no rule reads (``verdict_only``: the exact power search and the
    powerless flags, most of a replication's time under discrete Holm). Plans are shared between policies that agree on everything the plan reads;
    decide runs once per policy."""
    codes, labels = None, ()
    if sample.category is not None:
        labels, codes = np.unique(category_labels(sample.category), return_inverse=True)
    planned: dict[tuple, CandidateAnalysis] = {}
    out = []
    for policy in policies:
        key = (policy.alpha, policy.confidence, policy.mcnemar, tuple(policy.critical), policy.n_resamples,
               policy.seed, policy.correction, policy.power, policy.critical_rule, policy.critical_weight)
        if key not in planned:
            result = plan_arrays(sample.base, sample.cand, policy, mcnemar=sample.base_runs is None,
                                 runs=sample.base_runs is not None, category_codes=codes,
                                 category_labels=[str(x) for x in labels],
                                 cluster_codes=None if sample.cluster is None else pd.factorize(sample.cluster)[0],
                                 verdict_only=True)
            planned[key] = CandidateAnalysis(CANDIDATE, result.overall, result.categories, (), (), Exclusions(),
                                             result.power, CandidateSections(result.item_axis, None, result.clusters,
                                                               critical=result.critical))
        cand_analysis = planned[key]
        analysis = Analysis(BASELINE, "binary", sample.base.size, (), (cand_analysis,), parameters_of(policy),
                            bool(len(labels)), sample.cluster is not None, sample.base_runs is not None)
        out.append(_fired(decide_candidate(cand_analysis, analysis, policy).checks))
    return out


def _pooled(sample: Sample) -> tuple[float, float, int]:
    """Pass counts of baseline and candidate over every row (case x run), and the number of rows."""
    if sample.base_runs is None:
        return float(sample.base.sum()), float(sample.cand.sum()), sample.base.size
    return float(sample.base_runs.sum()), float(sample.cand_runs.sum()), sample.base_runs.size


def threshold_gate(sample: Sample, drop: float = 0.01) -> bool:
    """Block when the candidate's pass rate is more than ``drop`` below the baseline's."""
    passed_b, passed_c, rows = _pooled(sample)
    # In integer counts, so that a drop of exactly one point is not blocked by rounding.
    return round(passed_b - passed_c, 9) > drop * rows + 1e-9


def ztest_gate(sample: Sample, alpha: float = 0.05) -> bool:
    """Unpaired two-proportion z-test (pooled variance) over every row; block when the candidate is lower and
    the two-sided p is below alpha."""
    passed_b, passed_c, rows = _pooled(sample)
    pooled = (passed_b + passed_c) / (2 * rows)
    se = math.sqrt(pooled * (1 - pooled) * 2 / rows)
    if se == 0:
        return False
    z = (passed_c - passed_b) / rows / se
    return z < 0 and math.erfc(abs(z) / math.sqrt(2)) < alpha


def welch_seed_axis(sample: Sample) -> tuple[float, float]:
    """Welch t on the per-run pass rates (the seed axis), as scipy.stats.ttest_ind(equal_var=False):
    (t, two-sided p); NaN with one run."""
    if sample.base_runs is None or sample.base_runs.shape[0] < 2:
        return math.nan, math.nan
    mb, mc = sample.base_runs.mean(1), sample.cand_runs.mean(1)
    vb, vc = mb.var(ddof=1) / mb.size, mc.var(ddof=1) / mc.size
    diff = mc.mean() - mb.mean()
    if vb + vc == 0:
        return (math.nan, math.nan) if diff == 0 else (math.copysign(math.inf, diff), 0.0)
    t = diff / math.sqrt(vb + vc)
    df = (vb + vc) ** 2 / (vb**2 / (mb.size - 1) + vc**2 / (mc.size - 1))
    return t, float(2 * special.stdtr(df, -abs(t)))


def seed_axis_gate(sample: Sample, alpha: float = 0.05) -> bool | None:
    """Block when the per-run rates say the candidate is lower with two-sided Welch p below alpha; None (not
    applicable) with one run."""
    if sample.base_runs is None:
        return None
    t, p = welch_seed_axis(sample)
    return bool(t < 0 and p < alpha)
