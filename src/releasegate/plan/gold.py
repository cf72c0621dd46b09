"""``releasegate plan RESULTS --gold FILE [--gold-width W]`` (issue 35 item 5): how many gold labels per release
give the corrected difference's interval a target width, from the judge's agreement measured on the gold labels
given (the moments of the paired sample, stats/ppi.py ``gold_labels_for_width``), and where a sample stratified
by whether the judge changed the case would need fewer (stats/ppi_strata.py). Figures only; the lines are
written by :func:`gold_plan_lines`."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from releasegate import fmt
from releasegate.errors import InputError
from releasegate.model import JudgeSection, Report
from releasegate.stats.ppi import GoldLabelPlan, gold_labels_for_width
from releasegate.stats.ppi_strata import StratifiedAllocation


@dataclass(frozen=True)
class GoldPlan:
    """One candidate's answer: the plan at the target width, and the stratified allocation beside it (its
    ``stratified_needed``: the random sample's ``needed`` times the design effect, None when undefined)."""

    candidate: str
    baseline: str
    labelled: int
    plan: GoldLabelPlan | None
    allocation: StratifiedAllocation | None
    stratified_needed: int | None
    design: str


def gold_plans(report: Report, width: float | None) -> list[GoldPlan]:
    """Every candidate's gold-label plan at ``width`` (None: the note's own target, the margin)."""
    if width is not None and not (0 < width < 2):
        raise InputError(f"--gold-width must be a positive width of the difference's interval, below 2, got {width:g}")
    out = []
    analysis = report.sections[0].analysis
    for cand in analysis.candidates:
        section: JudgeSection = cand.sections.judge
        plan = section.plan
        if plan is not None and width is not None:
            plan = gold_labels_for_width(plan.var_gold, plan.var_judge, plan.cov, plan.n_cases, plan.labelled,
                                         width, plan.confidence)
        a = section.allocation
        stratified = (int(math.ceil(plan.needed * a.design_effect)) if plan is not None and plan.needed
                      and a is not None and a.defined else None)
        out.append(GoldPlan(cand.name, analysis.baseline, section.corrected.paired_cases, plan, a, stratified,
                            section.corrected.design))
    return out


def _width(x: float) -> str:
    return f"{fmt.size_points(x)} points"


def gold_plan_lines(plans: list[GoldPlan]) -> list[str]:
    lines = []
    for p in plans:
        head = f"{p.candidate} against {p.baseline}"
        if p.plan is None:
            lines.append(f"{head}: no gold-label plan; it needs the same cases labelled on both releases "
                         f"(the gold labels here are {p.design.replace('_', ' ')}) and a corrected interval")
            continue
        plan = p.plan
        lines.append(f"{head}: {p.labelled} paired gold labels give a corrected interval {_width(plan.width_now)} "
                     f"wide (of {plan.n_cases:,} cases)")
        if not plan.reachable:
            lines.append(f"  a width of {_width(plan.target_width)} is out of reach: every case labelled gives "
                         f"{_width(plan.width_all)}")
            continue
        lines.append(f"  {plan.needed} gold-labelled cases per release, drawn at random (the same cases on both), "
                     f"give {_width(plan.target_width)}: {plan.more} more")
        a = p.allocation
        if a is not None and a.defined and p.stratified_needed is not None:
            shares = ", ".join(f"{name} {count} cases: {100 * share:.0f}% of the labels"
                               for name, count, share in zip(a.strata, a.cases, a.shares, strict=True))
            lines.append(f"  stratified by whether the judge changed the case ({shares}): about "
                         f"{p.stratified_needed} (design effect {a.design_effect:.2f}); releasegate's correction "
                         "reads a random sample, so draw at random (docs/judge.md, how many labels)")
    return lines


def gold_plan_dict(plans: list[GoldPlan]) -> dict[str, Any]:
    """The plan as JSON (``releasegate plan --gold ... -o plan.json``)."""
    import dataclasses

    return {"gold_plans": [dataclasses.asdict(p) for p in plans]}
