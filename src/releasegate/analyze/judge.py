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

from dataclasses import dataclass

import numpy as np
import pandas as pd

from releasegate.model import Comparison, JudgeRelease, JudgeSection
from releasegate.model.judge import GATED_CORRECTED, GATED_RAW, CorrectedFigures
from releasegate.policy import Policy
from releasegate.stats.judge_agreement import judge_agreement, judge_difference, labels_to_clear
from releasegate.stats.ppi import (
    GoldLabelPlan,
    PPIDifference,
    gold_labels_for_width,
    ppi_difference_test,
    ppi_mean,
    ppi_paired_difference,
)
from releasegate.stats.ppi_strata import StratifiedAllocation, neyman_allocation
from releasegate.validate import ValidatedResults
from releasegate.validate.gold import ValidatedGold

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


@dataclass(frozen=True)
class GoldArrays:
    """One comparison's gold labels aligned on its compared cases (module docstring: units and cases): the
    judge's verdict and the human's label per unit of each release (NaN where not labelled), the human's value
    per case (``case_gold``), what a unit is, and the gold rows of the two releases that are not read."""

    judged: tuple[np.ndarray, np.ndarray]
    labels: tuple[np.ndarray, np.ndarray]
    case_gold: tuple[np.ndarray, np.ndarray]
    units: str
    gold_unused: int
    gold_path: str


def gold_arrays(data: ValidatedResults, gold: ValidatedGold, candidate: str, paired: pd.DataFrame) -> GoldArrays:
    """The gold labels of one candidate and the baseline on ``paired``, the plan's pairing of the two."""
    ids = pd.Index(paired.index.astype(str))
    base, cand = paired["base"].to_numpy(float), paired["cand"].to_numpy(float)
    units = {r: _units(data, gold, r, ids) for r in (data.baseline, candidate)}
    case_gold = {r: _case_gold(u, ids, gold.has_runs) for r, u in units.items()}
    keys = ["case_id", *(["run"] if gold.has_runs else [])]
    if gold.has_runs:
        aligned = units[data.baseline].merge(units[candidate], on=keys, how="outer", suffixes=("_b", "_c"))
        judge_b, judge_c = aligned["outcome_b"].to_numpy(float), aligned["outcome_c"].to_numpy(float)
        label_b, label_c = aligned["label_b"].to_numpy(float), aligned["label_c"].to_numpy(float)
    else:
        judge_b, judge_c = base, cand
        label_b, label_c = case_gold[data.baseline], case_gold[candidate]
    in_gold = int(gold.table["release"].isin([data.baseline, candidate]).sum())
    used = int(np.isfinite(label_b).sum() + np.isfinite(label_c).sum())
    return GoldArrays((judge_b, judge_c), (label_b, label_c), (case_gold[data.baseline], case_gold[candidate]),
                      "case runs" if gold.has_runs else "cases", in_gold - used, gold.path)


def corrected_figures(base: np.ndarray, cand: np.ndarray, case_gold: tuple[np.ndarray, np.ndarray],
                      policy: Policy) -> CorrectedFigures:
    """The PPI++ paired difference, its tests at the policy's alpha, and each release's corrected rate, from
    the per-case judged outcomes and the human's per-case values (NaN where not labelled)."""
    rates = []
    for judged, human in ((base, case_gold[0]), (cand, case_gold[1])):
        lab = np.isfinite(human)
        rates.append(ppi_mean(human[lab], judged[lab], judged[~lab], policy.confidence))
    difference = ppi_paired_difference(base, cand, case_gold[0], case_gold[1], policy.confidence)
    return CorrectedFigures(difference, rates[0], rates[1], ppi_difference_test(difference, policy.alpha))


def section_from_arrays(names: tuple[str, str], judged: tuple[np.ndarray, np.ndarray],
                        labels: tuple[np.ndarray, np.ndarray], base: np.ndarray, cand: np.ndarray,
                        case_gold: tuple[np.ndarray, np.ndarray], overall: Comparison, policy: Policy,
                        gold_path: str = "", units: str = "cases", gold_unused: int = 0, *,
                        corrected: CorrectedFigures | None = None, gated: bool = False) -> JudgeSection:
    """The section from aligned arrays: the judge's verdicts and the human's labels per unit (NaN where not
    labelled) of each release, the per-case judged outcomes and gold values, and the plan's own comparison
    ``overall`` of the judged outcomes (bench/judge_gate.py calls it on simulated suites). ``corrected`` are
    the figures :func:`corrected_figures` made (made here when not given); ``gated`` says the rules read them."""
    confidence = policy.confidence
    if corrected is None:
        corrected = corrected_figures(base, cand, case_gold, policy)
    releases = []
    for release, judge, label, rate, rate_corrected in ((names[0], judged[0], labels[0], overall.baseline,
                                                         corrected.baseline),
                                                        (names[1], judged[1], labels[1], overall.candidate,
                                                         corrected.candidate)):
        labelled = np.isfinite(label)
        agreement = judge_agreement(label[labelled], judge[labelled], confidence)
        j = agreement.youden
        releases.append(JudgeRelease(release, agreement, rate.value, rate.ci_low, rate.ci_high, rate_corrected,
                                     labels_to_clear(j.estimate, j.low, agreement.n, policy.judge_min_youden)
                                     if agreement.defined else None))
    difference = judge_difference(labels[0], judged[0], labels[1], judged[1], confidence)
    plan = _plan(base, cand, case_gold[0], case_gold[1], corrected.difference, policy)
    return JudgeSection(
        gold_path=gold_path, units=units,
        baseline=releases[0], candidate=releases[1], difference=difference, corrected=corrected.difference,
        raw_diff=overall.diff, raw_ci_low=overall.ci_low, raw_ci_high=overall.ci_high, raw_method=overall.method,
        gold_unused=gold_unused, plan=plan, allocation=_allocation(base, cand, case_gold, plan),
        gated=GATED_CORRECTED if gated else GATED_RAW, test=corrected.test, raw_p_one_sided=overall.p_one_sided)


def judge_section(base: np.ndarray, cand: np.ndarray, names: tuple[str, str], arrays: GoldArrays,
                  overall: Comparison, policy: Policy, corrected: CorrectedFigures, gated: bool) -> JudgeSection:
    """The judge section of one candidate (module docstring) from its :class:`GoldArrays` and the corrected
    figures made before the plan; ``gated``: the rules read them in the overall test's place
    (judge_correction = "ppi"), and ``overall`` is then the plan's own comparison on the judge's verdicts."""
    return section_from_arrays(names, arrays.judged, arrays.labels, base, cand, arrays.case_gold, overall, policy,
                               arrays.gold_path, arrays.units, arrays.gold_unused, corrected=corrected, gated=gated)


# The strata of the allocation: the cases whose judged outcome changed between the releases, and the rest.
STRATA = ("changed by the judge", "unchanged by the judge")


def _allocation(base: np.ndarray, cand: np.ndarray, case_gold: tuple[np.ndarray, np.ndarray],
                plan: GoldLabelPlan | None) -> StratifiedAllocation | None:
    """Neyman allocation of paired gold labels over changed / unchanged cases (stats/ppi_strata.py)."""
    if plan is None:
        return None
    g = cand - base
    z = case_gold[1] - case_gold[0]  # NaN unless labelled on both releases
    return neyman_allocation(z, g, np.where(g != 0, 0, 1), STRATA)
