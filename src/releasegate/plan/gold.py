"""``releasegate plan RESULTS --gold FILE [--gold-width W]`` (issue 35 item 5): how many gold labels per release
give the corrected difference's interval a target width, from the judge's agreement measured on the gold labels
given (the moments of the paired sample, stats/ppi.py ``gold_labels_for_width``), and where a sample stratified
by whether the judge changed the case would need fewer (stats/ppi_strata.py). Figures only; the lines are
written by wording/plan.py."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from releasegate.errors import InputError
from releasegate.model import JudgeSection, Report
from releasegate.stats.ppi import GoldLabelPlan, gold_labels_for_width
from releasegate.stats.ppi_strata import StratifiedAllocation
from releasegate.wording import plan as words


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


def gold_plan_lines(plans: list[GoldPlan]) -> list[str]:
    """Every candidate's plan in plain lines, written by wording/plan.py from :func:`gold_plan_dict`."""
    return words.gold_plan_lines(gold_plan_dict(plans))


def gold_plan_dict(plans: list[GoldPlan]) -> dict[str, Any]:
    """The plan as JSON (``releasegate plan --gold ... -o plan.json``)."""
    import dataclasses

    return {"gold_plans": [dataclasses.asdict(p) for p in plans]}
