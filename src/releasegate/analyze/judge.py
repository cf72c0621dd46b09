"""The judge section (issue 35): the outcomes are an LLM judge's verdicts, and a human labelled a sample of the
same cells (the gold labels). Per candidate: the judge against the gold labels on each release (TPR, FPR,
Youden's J, Cohen's kappa), the difference of those between the releases, the pass rates and the paired
difference corrected by prediction-powered inference (stats/ppi.py) beside the raw judge's, and how many
gold labels would bring the corrected interval to a target width.

Units. Without runs a unit is a case. With runs the agreement counts (case, run) cells, the human's label of a
run against the judge's verdict on it; the corrected figures count cases, each the mean over its runs, and a
case counts as labelled for a release when every one of its compared runs is labelled (else it is one of the
judge-only cases, which keeps the estimate unbiased when the labelled cases were sampled at random).
Only compared cells count: gold rows on cells that left the comparison (errored, or excluded with
--allow-missing) are counted in ``gold_unused``.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from releasegate.analyze.pairing import pair
from releasegate.model import CandidateAnalysis, JudgeRelease, JudgeSection
from releasegate.policy import Policy
from releasegate.stats.judge_agreement import judge_agreement, judge_difference
from releasegate.stats.ppi import GoldLabelPlan, PPIDifference, gold_labels_for_width, ppi_mean, ppi_paired_difference
from releasegate.validate import ValidatedResults
from releasegate.validate_gold import ValidatedGold

# The corrected interval's width the plan aims at when the policy has no margin (margin = 0): 5 points.
DEFAULT_TARGET_WIDTH = 0.05


def target_width(policy: Policy) -> float:
    """The plan's target: an interval as wide as the non-inferiority margin, so that a release that changed
    nothing is shown no worse with room to spare (its lower bound at -margin/2); 5 points without a margin."""
    return policy.margin if policy.margin > 0 else DEFAULT_TARGET_WIDTH


def _units(data: ValidatedResults, gold: ValidatedGold, release: str, ids: pd.Index) -> pd.DataFrame:
    """One release's compared units (case_id[, run]) with the judge's ``outcome`` and the human's ``label``
    (NaN where not labelled)."""
    labels = gold.table[gold.table["release"] == release]
    keys = ["case_id", *(["run"] if gold.has_runs else [])]
    if gold.has_runs:
        rows = data.table.loc[(data.table["release"] == release) & data.table["case_id"].isin(ids),
                              ["case_id", "run", "outcome"]]
        units = pd.DataFrame({"case_id": rows["case_id"].astype(str).to_numpy(),
                              "run": rows["run"].astype(str).to_numpy(),
                              "outcome": rows["outcome"].to_numpy(float)})
    else:
        units = pd.DataFrame({"case_id": ids.to_numpy()})
    return units.merge(labels[[*keys, "label"]], on=keys, how="left")


def _case_gold(units: pd.DataFrame, ids: pd.Index, has_runs: bool) -> np.ndarray:
    """The human's value per compared case (the mean over runs when every run is labelled), NaN elsewhere."""
    if not has_runs:
        return units.set_index("case_id")["label"].reindex(ids).to_numpy(float)
    grouped = units.groupby("case_id", sort=False)["label"]
    mean = grouped.mean().where(grouped.count() == grouped.size())
    return mean.reindex(ids).to_numpy(float)


def _plan(base: np.ndarray, cand: np.ndarray, gold_b: np.ndarray, gold_c: np.ndarray, corrected: PPIDifference,
          policy: Policy) -> GoldLabelPlan | None:
    """How many paired gold-labelled cases the target width needs, from the sample's moments (paired only)."""
    if corrected.design != "paired" or not corrected.defined or corrected.degenerate:
        return None
    labelled = np.isfinite(gold_b)
    z, g = gold_c[labelled] - gold_b[labelled], cand - base
    cov = float(np.mean((z - z.mean()) * (g[labelled] - g[labelled].mean())))
    return gold_labels_for_width(float(z.var()), float(g.var()), cov, int(base.size), int(labelled.sum()),
                                 target_width(policy), policy.confidence)


def judge_section(data: ValidatedResults, gold: ValidatedGold, candidate: CandidateAnalysis, policy: Policy,
                  tables: Mapping[str, pd.DataFrame] | None = None) -> JudgeSection:
    """The judge section of one candidate against the baseline (module docstring)."""
    paired, _ = pair(data, candidate.name, tables)
    ids = pd.Index(paired.index.astype(str))
    base, cand = paired["base"].to_numpy(float), paired["cand"].to_numpy(float)
    units = {r: _units(data, gold, r, ids) for r in (data.baseline, candidate.name)}
    case_gold = {r: _case_gold(u, ids, gold.has_runs) for r, u in units.items()}
    keys = ["case_id", *(["run"] if gold.has_runs else [])]
    if gold.has_runs:
        aligned = units[data.baseline].merge(units[candidate.name], on=keys, how="outer", suffixes=("_b", "_c"))
        judge_b, judge_c = aligned["outcome_b"].to_numpy(float), aligned["outcome_c"].to_numpy(float)
        label_b, label_c = aligned["label_b"].to_numpy(float), aligned["label_c"].to_numpy(float)
    else:
        judge_b, judge_c = base, cand
        label_b, label_c = case_gold[data.baseline], case_gold[candidate.name]
    confidence = policy.confidence
    releases = []
    for release, judge, label, case_judge, rate in ((data.baseline, judge_b, label_b, base, candidate.overall.baseline),
                                                    (candidate.name, judge_c, label_c, cand, candidate.overall.candidate)):
        labelled = np.isfinite(label)
        agreement = judge_agreement(label[labelled], judge[labelled], confidence)
        lab_cases = np.isfinite(case_gold[release])
        rate_corrected = ppi_mean(case_gold[release][lab_cases], case_judge[lab_cases], case_judge[~lab_cases],
                                  confidence)
        releases.append(JudgeRelease(release, agreement, rate.value, rate.ci_low, rate.ci_high, rate_corrected))
    difference = judge_difference(label_b, judge_b, label_c, judge_c, confidence)
    corrected = ppi_paired_difference(base, cand, case_gold[data.baseline], case_gold[candidate.name], confidence)
    in_gold = int(gold.table["release"].isin([data.baseline, candidate.name]).sum())
    used = int(np.isfinite(label_b).sum() + np.isfinite(label_c).sum())
    overall = candidate.overall
    return JudgeSection(
        gold_path=gold.path, units="case runs" if gold.has_runs else "cases",
        baseline=releases[0], candidate=releases[1], difference=difference, corrected=corrected,
        raw_diff=overall.diff, raw_ci_low=overall.ci_low, raw_ci_high=overall.ci_high, raw_method=overall.method,
        gold_unused=in_gold - used,
        plan=_plan(base, cand, case_gold[data.baseline], case_gold[candidate.name], corrected, policy))
