"""The candidate x metric grid of a report gating several metrics: per candidate its verdict and, per metric, that
metric's verdict, the overall difference with its interval and the rules that fired. Every format that opens
with the grid reads it from here (the Markdown and the job summary through templates/grid.md, the JSON, the
HTML and PDF page), so the figures are the same everywhere. The provenance of each metric's section is here too.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

from releasegate.model import CandidateVerdict, Decision, Provenance, Report


@dataclass(frozen=True)
class GridCell:
    """One metric's verdict for one candidate, its overall comparison and the rules that fired."""

    metric: str
    decision: Decision
    diff: float
    ci_low: float
    ci_high: float
    p_one_sided: float
    p_adjusted: float
    rules_fired: tuple[str, ...]
    binary: bool  # a pass/fail difference (in points of pass rate), else a score's

    @property
    def ship(self) -> bool:
        return self.decision is Decision.SHIP


@dataclass(frozen=True)
class GridRow:
    """One candidate: its verdict over every metric and a cell per metric (the sections' order)."""

    name: str
    verdict: CandidateVerdict
    cells: tuple[GridCell, ...]


def grid(report: Report) -> tuple[GridRow, ...]:
    """One row per candidate, in the report's order."""
    rows = []
    for i, verdict in enumerate(report.verdicts):
        cells = []
        for section, mine in zip(report.sections, verdict.by_metric):
            o = section.analysis.candidates[i].overall
            cells.append(GridCell(section.metric, mine.decision, o.diff, o.ci_low, o.ci_high, o.p_one_sided,
                                  o.p_adjusted, tuple(r.rule for r in mine.reasons), section.analysis.mcnemar_path))
        rows.append(GridRow(verdict.candidate, verdict, tuple(cells)))
    return tuple(rows)


def worst_first(row: GridRow) -> tuple[Any, ...]:
    """DON'T SHIP first, then NOT PROVEN, then the most blocking metrics, then the largest drop on any metric,
    then the name."""
    drops = [c.diff for c in row.cells if isinstance(c.diff, float) and math.isfinite(c.diff)]
    return (_RANK[row.verdict.decision], -len(row.verdict.blocking), min(drops, default=math.inf), row.name)


_RANK = {Decision.DONT_SHIP: 0, Decision.NOT_PROVEN: 1, Decision.SHIP: 2}


def section_provenance(report: Report, index: int) -> Provenance:
    """The provenance of one metric's section, as a run of that metric alone records it: the title names the
    metric, the policy the metric gated and the inputs as that metric's reading recorded them (a report of one
    metric: the report's own)."""
    prov = report.provenance
    if not report.several:
        return prov
    metric = report.sections[index].metric
    return dataclasses.replace(prov, title=f"{prov.title}: {metric}", policy={**prov.policy, "metric": metric},
                               inputs=prov.metric_inputs.get(metric, prov.inputs))
