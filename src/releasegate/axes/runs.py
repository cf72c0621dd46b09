"""The run axis: "would a rerun agree?", beside the case axis: "would other cases agree?".

A gap between two releases can be luck in two independent ways (the seed notebook's point). Models sample, so
the overall score moves from run to run: the run axis compares the per-run overall means of the two releases
(Welch t, as the seed library does). The cases are one draw of the inputs the release will meet: the case axis
is the paired comparison of per-case means the verdict reads (clustered when clusters are given). The two can
disagree, and the sentence in ``agreement`` says so in plain words.

For pass/fail outcomes it also gives McNemar's test on each case's majority outcome, with the rule stated.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from releasegate import fmt
from releasegate.model import Comparison
from releasegate.policy import Policy
from releasegate.stats.clusters import durkalski_test
from releasegate.stats.continuous import WelchResult, welch_t_test
from releasegate.stats.mcnemar import mcnemar_test
from releasegate.validate import ValidatedResults

MAJORITY_RULE = "a case passes when it passes in more than half of its runs, so exactly half counts as a fail"


@dataclass(frozen=True)
class RunRate:
    """One run's overall mean (pass rate or score) of each release over the paired cases; NaN when that
    release has no such run."""

    run: str
    baseline: float
    candidate: float


@dataclass(frozen=True)
class MajorityMcNemar:
    """McNemar's test on each case's majority outcome over its runs (pass/fail outcomes only)."""

    rule: str
    fixed: int
    broke: int
    p_value: float
    p_one_sided: float
    durkalski_p_value: float  # the clustered version when clusters are given, else NaN
    durkalski_p_one_sided: float


@dataclass(frozen=True)
class RunAxis:
    """Both axes of one candidate against the baseline, and whether they agree."""

    runs_baseline: int
    runs_candidate: int
    runs_per_case_min: int
    runs_per_case_max: int
    per_run: tuple[RunRate, ...]
    baseline_run_sd: float
    candidate_run_sd: float
    run_diff: float
    run_ci_low: float
    run_ci_high: float
    run_t: float
    run_df: float
    run_p_value: float
    run_defined: bool
    case_diff: float
    case_ci_low: float
    case_ci_high: float
    case_p_value: float
    case_method: str
    run_decisive: bool
    case_decisive: bool
    disagree: bool
    agreement: str
    majority: MajorityMcNemar | None
    warnings: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def _run_key(label) -> tuple:
    """Runs in numeric order when their labels are numbers (run 10 after run 9), else in text order."""
    text = str(label)
    try:
        return (0, float(text), text)
    except ValueError:
        return (1, 0.0, text)


def _sd(values: np.ndarray) -> float:
    return float(np.std(values, ddof=1)) if values.size > 1 else math.nan


def _gap(x: float) -> str:
    return fmt.number(x) if x < 0 else "+" + fmt.number(x)


def agreement_sentence(welch: WelchResult, base_runs: np.ndarray, cand_runs: np.ndarray, case: Comparison,
                       alpha: float, group: str | None, baseline: str) -> tuple[str, str, bool, bool]:
    """The plain-words reading of the two axes: (sentence, short warning or "", run axis decisive, case axis
    decisive). Decisive means two-sided p below alpha; the warning is set when the axes disagree. ``group``
    names the cluster column when the case axis counts groups, else None."""
    case_dec = case.p_value < alpha
    cases, other = (("groups of cases", f"another set of {group} groups") if group
                    else ("cases", "another set of cases"))
    interval = f"[{_gap(case.ci_low)}, {_gap(case.ci_high)}]"
    case_figures = f"{_gap(case.diff)} {interval}, {fmt.p_is(case.p_value)}"
    runs = f"{welch.n_baseline} and {welch.n_candidate} runs"
    tail = " The verdict follows the case axis: a release meets new inputs, not reruns of these ones."
    if not welch.defined:
        one = baseline if welch.n_baseline < 2 else "the candidate"
        return (f"The run axis cannot be tested: {one} has a single run. The case axis gives a gap of "
                f"{case_figures}." + tail, "", False, case_dec)
    run_dec = welch.pvalue < alpha
    run_p = fmt.p_is(welch.pvalue)
    warning = ""
    if run_dec and not case_dec:
        higher = welch.diff > 0
        every = (cand_runs.min() > base_runs.max()) if higher else (cand_runs.max() < base_runs.min())
        when = "in every run" if every else "run after run, on average"
        text = (f"The two axes disagree. A rerun would very likely show the same gap: {when} the candidate "
                f"scores {'higher' if higher else 'lower'} ({_gap(welch.diff)}, {run_p} across {runs}). But the "
                f"{cases} differ among themselves far more than that: the case-level interval {interval} "
                f"includes no change ({fmt.p_is(case.p_value)}), so {other} could show no gap, or the opposite "
                "one. The gap is real for these cases, not shown for the inputs the release will meet.")
        warning = (f"the two axes disagree: a rerun would keep the gap ({run_p}), but {other} might not "
                   f"({case_figures})")
    elif case_dec and not run_dec:
        text = (f"The two axes disagree. Across {cases} the gap is clear ({case_figures}), but the overall "
                f"score moves from run to run about as much as the gap ({run_p} across {runs}), so a single "
                "rerun could show a smaller gap or none. With few runs this test is weak; more runs would "
                "settle it.")
        warning = (f"the two axes disagree: the gap holds across {cases} ({case_figures}) but not clearly from "
                   f"run to run ({run_p}, {runs})")
    elif run_dec and case_dec:
        text = (f"Both axes agree: a rerun would very likely show the same gap ({run_p}), and so would "
                f"{other} ({case_figures}).")
    else:
        text = (f"Neither axis shows a gap: the score moves from run to run ({run_p}) and from case to case "
                f"({interval}, {fmt.p_is(case.p_value)}) by more than the observed {_gap(case.diff)}.")
    return text + tail, warning, run_dec, case_dec


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
        d_two, d_one = durk.pvalue, durk.p_regression
    return MajorityMcNemar(MAJORITY_RULE, test.fixed, test.broke, test.pvalue, test.p_regression, d_two, d_one)


def run_axis(data: ValidatedResults, candidate: str, paired: pd.DataFrame, case: Comparison, policy: Policy,
             all_paired: bool = False) -> RunAxis:
    """The run axis of one candidate: per-run overall means of both releases over the paired cases, Welch t on
    them, the case axis figures of ``case`` (the comparison the verdict reads) and the sentence that reads both.
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
    agg = sub.groupby(["release", "case_id"], sort=False)["outcome"].agg(["sum", "count"])
    counts = agg["count"]
    group = policy.columns.get("cluster", "cluster") if "cluster" in paired.columns else None
    text, warning, run_dec, case_dec = agreement_sentence(welch, b, c, case, policy.alpha, group, data.baseline)
    warnings = [warning] if warning else []
    if counts.min() != counts.max():
        warnings.append(f"cases have between {counts.min()} and {counts.max()} runs: each case counts once, "
                        "as the mean of the runs it has")
    majority = _majority(agg, data, candidate, paired) if data.outcome_kind == "binary" else None
    return RunAxis(
        runs_baseline=int(b.size), runs_candidate=int(c.size),
        runs_per_case_min=int(counts.min()), runs_per_case_max=int(counts.max()),
        per_run=per_run, baseline_run_sd=_sd(b), candidate_run_sd=_sd(c),
        run_diff=welch.diff, run_ci_low=welch.ci_low, run_ci_high=welch.ci_high, run_t=welch.t, run_df=welch.df,
        run_p_value=welch.pvalue, run_defined=welch.defined,
        case_diff=case.diff, case_ci_low=case.ci_low, case_ci_high=case.ci_high, case_p_value=case.p_value,
        case_method=case.method, run_decisive=run_dec, case_decisive=case_dec, disagree=bool(warning),
        agreement=text, majority=majority, warnings=tuple(warnings),
    )
