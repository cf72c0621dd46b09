"""The run axis: "would a rerun agree?", beside the case axis: "would other cases agree?".

A gap between two releases can be luck in two independent ways (the seed notebook's point). Models sample, so
the overall score moves from run to run: the run axis compares the per-run overall means of the two releases
(Welch t, as the seed library does). The cases are one draw of the inputs the release will meet: the case axis
is the paired comparison of per-case means the verdict reads (clustered when clusters are given). The two can
disagree; wording.sections says so in plain words. Numbers and flags only.

For pass/fail outcomes it also gives McNemar's test on each case's majority outcome (a case passes when it
passes in more than half of its runs, so exactly half counts as a fail).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pandas as pd

from releasegate.analyze.comparisons import bounded
from releasegate.kinds import OutcomeKind
from releasegate.model import Comparison
from releasegate.model.axes import MajorityMcNemar, RunAxis, RunRate
from releasegate.policy import Policy
from releasegate.stats.clusters import durkalski_test
from releasegate.stats.continuous import welch_t_test
from releasegate.stats.mcnemar import mcnemar_test
from releasegate.validate import ValidatedResults


def _run_key(label: object) -> tuple[int, float, str]:
    """Runs in numeric order when their labels are numbers (run 10 after run 9), else in text order."""
    text = str(label)
    try:
        return (0, float(text), text)
    except ValueError:
        return (1, 0.0, text)


def _sd(values: np.ndarray) -> float:
    return float(np.std(values, ddof=1)) if values.size > 1 else math.nan


def _majority(agg: pd.DataFrame, data: ValidatedResults, candidate: str, paired: pd.DataFrame) -> MajorityMcNemar:
    """McNemar (and Durkalski with clusters) on majority outcomes; ``agg`` holds per (release, case_id) the
    number of passes ("sum") and of runs ("count")."""
    passes = agg["sum"] * 2 > agg["count"]
    base = passes.xs(data.baseline, level="release").reindex(paired.index).to_numpy(bool)
    cand = passes.xs(candidate, level="release").reindex(paired.index).to_numpy(bool)
    broke, fixed = base & ~cand, ~base & cand
    test = mcnemar_test(int(fixed.sum()), int(broke.sum()))
    d_two = d_one = math.nan
    if "cluster" in paired.columns:
        codes = pd.factorize(paired["cluster"])[0]
        durk = durkalski_test(broke, fixed, codes)
        d_two, d_one = durk.p_two_sided, durk.p_regression
    return MajorityMcNemar(test.fixed, test.broke, test.p_two_sided, test.p_regression, d_two, d_one)


def run_axis(data: ValidatedResults, candidate: str, paired: pd.DataFrame, case: Comparison, policy: Policy,
             all_paired: bool = False) -> RunAxis:
    """The run axis of one candidate: per-run overall means of both releases over the paired cases, Welch t on
    them, and the case axis figures of ``case`` (the comparison the verdict reads).
    ``all_paired`` says no case was excluded from the pairing, which spares a filter over every row.
    """
    table = data.table
    sub = table.loc[table["release"].isin([data.baseline, candidate]), ["release", "case_id", "run", "outcome"]]
    if not all_paired:
        sub = sub[sub["case_id"].isin(paired.index)]
    means = sub.groupby(["release", "run"], sort=False)["outcome"].mean()
    base_runs = means.xs(data.baseline, level="release")
    cand_runs = means.xs(candidate, level="release")
    labels = sorted(set(map(str, base_runs.index)) | set(map(str, cand_runs.index)), key=_run_key)
    base_by = dict(zip(map(str, base_runs.index), base_runs.to_numpy(float)))
    cand_by = dict(zip(map(str, cand_runs.index), cand_runs.to_numpy(float)))
    per_run = tuple(RunRate(r, base_by.get(r, math.nan), cand_by.get(r, math.nan)) for r in labels)
    b, c = base_runs.to_numpy(float), cand_runs.to_numpy(float)
    welch = welch_t_test(b, c, policy.confidence)
    run_ci = (welch.low, welch.high)
    if data.outcome_kind == OutcomeKind.BINARY:  # a difference of two pass rates lies in [-1, 1]
        run_ci = bounded(*run_ci, -1.0, 1.0)
    agg = sub.groupby(["release", "case_id"], sort=False)["outcome"].agg(["sum", "count"])
    counts = agg["count"]
    case_dec = case.p_value < policy.alpha
    run_dec = welch.defined and welch.p_two_sided < policy.alpha
    majority = _majority(agg, data, candidate, paired) if data.outcome_kind == OutcomeKind.BINARY else None
    return RunAxis(
        runs_baseline=int(b.size), runs_candidate=int(c.size),
        runs_per_case_min=int(counts.min()), runs_per_case_max=int(counts.max()),
        per_run=per_run, baseline_run_sd=_sd(b), candidate_run_sd=_sd(c),
        run_diff=welch.diff, run_ci_low=run_ci[0], run_ci_high=run_ci[1], run_t=welch.t, run_df=welch.df,
        run_p_value=welch.p_two_sided, run_defined=welch.defined,
        case_diff=case.diff, case_ci_low=case.ci_low, case_ci_high=case.ci_high, case_p_value=case.p_value,
        case_method=case.method, run_decisive=run_dec, case_decisive=case_dec,
        disagree=bool(welch.defined and run_dec != case_dec), majority=majority,
        baseline_run_min=_bound(b, min), baseline_run_max=_bound(b, max),
        candidate_run_min=_bound(c, min), candidate_run_max=_bound(c, max), outcome_kind=data.outcome_kind,
    )


def _bound(values: np.ndarray, which: Callable[[np.ndarray], float]) -> float:
    return float(which(values)) if values.size else math.nan
