"""What the renderers read: one Report holding one section per metric gated, and one verdict per candidate.

A run gates one metric (the outcome column: the common case) or several (``--metric NAME``, repeatable); either
way the Report holds a :class:`MetricSection` per metric (that metric's analysis and its rules' verdicts) and a
:class:`CandidateVerdict` per candidate: SHIP only when every metric's verdict is, the headline naming the
metric(s) that block when there are several.
"""

from __future__ import annotations

from dataclasses import dataclass

from releasegate.model.checks import RuleCheck
from releasegate.model.core import Analysis, Decided, Decision, NotJudged, Provenance, Reason, Verdict
from releasegate.model.exclusions import InputExclusion


@dataclass(frozen=True)
class MetricSection:
    """One metric gated: its analysis (every figure is the single-metric run's; with several metrics the
    adjusted p-values carry the correction across metrics) and its rules' verdict per candidate."""

    metric: str
    analysis: Analysis
    verdicts: tuple[Verdict, ...]

    @property
    def ship_all(self) -> bool:
        return all(v.ship for v in self.verdicts)

    @property
    def decision(self) -> Decision:
        """DON'T SHIP if any candidate is, else NOT PROVEN if any is, else SHIP."""
        return Decision.worst(v.decision for v in self.verdicts)

    def verdict_of(self, candidate: str) -> Verdict:
        return next(v for v in self.verdicts if v.candidate == candidate)


@dataclass(frozen=True)
class CandidateVerdict(Decided):
    """One candidate's verdict from every metric: ``by_metric`` holds each metric's own (in the sections' order);
    with one metric the headline is that metric's."""

    candidate: str
    decision: Decision
    headline: str
    by_metric: tuple[Verdict, ...]
    # What the comparisons set apart, as the headline names it first ("" for nothing): one metric's clause, or
    # with several metrics the one clause they share, else each metric's.
    excluded: str = ""

    def __repr__(self) -> str:
        # What a notebook prints for ``note.verdicts[0]``: the verdict and why, not the dataclass's every field.
        metrics = f", metrics={[v.metric for v in self.by_metric]!r}" if len(self.by_metric) > 1 else ""
        return f"<CandidateVerdict {self.candidate!r}: {self.label}{metrics}: {self.because}>"

    @property
    def blocking(self) -> tuple[str, ...]:
        """The metrics whose rules keep this candidate from SHIP (DON'T SHIP or NOT PROVEN), in the sections'
        order."""
        return tuple(v.metric for v in self.by_metric if not v.ship)

    @property
    def because(self) -> str:
        """The headline without its "LABEL candidate: " start."""
        if len(self.by_metric) == 1:
            return self.by_metric[0].because
        named = f" ({self.excluded})" if self.excluded else ""
        return self.headline.removeprefix(f"{self.label} {self.candidate}{named}: ")

    @property
    def reasons(self) -> tuple[Reason, ...]:
        """Every rule that fired, metric by metric (each Reason names its metric)."""
        return tuple(r for v in self.by_metric for r in v.reasons)

    @property
    def checks(self) -> tuple[RuleCheck, ...]:
        return tuple(c for v in self.by_metric for c in v.checks)

    @property
    def warnings(self) -> tuple[str, ...]:
        if len(self.by_metric) == 1:
            return self.by_metric[0].warnings
        return tuple(f"{v.metric}: {w}" for v in self.by_metric for w in v.warnings)


@dataclass(frozen=True)
class Report:
    """Every metric's section, the verdict per candidate (the sections' candidate order) and the provenance of
    the run: everything a renderer needs."""

    sections: tuple[MetricSection, ...]
    verdicts: tuple[CandidateVerdict, ...]
    provenance: Provenance

    @property
    def ship_all(self) -> bool:
        """Every candidate SHIPs (a NOT PROVEN one does not, even when the policy lets the gate pass)."""
        return all(v.ship for v in self.verdicts)

    @property
    def decision(self) -> Decision:
        """The gate's verdict over the candidates: DON'T SHIP if any is, else NOT PROVEN if any is, else SHIP."""
        return Decision.worst(v.decision for v in self.verdicts)

    @property
    def any_dont_ship(self) -> bool:
        """Some candidate is DON'T SHIP (``check`` exits 1)."""
        return self.decision is Decision.DONT_SHIP

    @property
    def not_proven_allowed(self) -> bool:
        """The policy lets a NOT PROVEN pass the gate (``not_proven = "warn"``); the note still says NOT PROVEN."""
        return self.provenance.policy.get("not_proven") == "warn"

    @property
    def passes(self) -> bool:
        """The gate passes: every candidate SHIPs, or the ones that do not are NOT PROVEN and the policy warns."""
        d = self.decision
        return d is Decision.SHIP or (d is Decision.NOT_PROVEN and self.not_proven_allowed)

    @property
    def metrics(self) -> tuple[str, ...]:
        return tuple(s.metric for s in self.sections)

    @property
    def several(self) -> bool:
        """More than one metric: the reports open with the candidate x metric grid."""
        return len(self.sections) > 1

    def section(self, metric: str) -> MetricSection:
        for section in self.sections:
            if section.metric == metric:
                return section
        raise KeyError(f"no metric {metric!r}; metrics: {', '.join(self.metrics)}")

    @property
    def analysis(self) -> Analysis:
        """The analysis of a one-metric report; with several metrics each section holds its own."""
        if self.several:
            raise ValueError(f"this report gates {len(self.sections)} metrics ({', '.join(self.metrics)}): "
                             "read one with report.section(NAME).analysis")
        return self.sections[0].analysis


    @property
    def not_judged(self) -> tuple[NotJudged, ...]:
        """The releases of the data no verdict is about: every metric's table holds the same releases."""
        return self.sections[0].analysis.not_judged

    @property
    def excluded(self) -> tuple[tuple[str, InputExclusion], ...]:
        """What the reading of the inputs left out of every comparison, each record once: with "" when every
        metric's section holds it (loading's), else with the metric whose section does (its rows without an
        outcome)."""
        out: list[tuple[str, InputExclusion]] = []
        for index, section in enumerate(self.sections):
            for item in section.analysis.excluded:
                shared = all(item in s.analysis.excluded for s in self.sections)
                if not (shared and index):
                    out.append(("" if shared else section.metric, item))
        return tuple(out)
