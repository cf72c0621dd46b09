"""Several metrics gated at once: one single-metric Report per metric and one verdict per candidate from all.

Each metric's Report is the single-metric run of it (the same figures; its adjusted p-values carry the
correction across metrics, :mod:`releasegate.analyze.metrics`); :class:`MetricsVerdict` is SHIP only when every
metric's verdict is.
"""

from __future__ import annotations

from dataclasses import dataclass

from releasegate.model.core import Report


@dataclass(frozen=True)
class MetricsVerdict:
    """One candidate's verdict from every metric's rules; ``blocking`` names the metrics whose rules fired."""

    candidate: str
    ship: bool
    headline: str
    blocking: tuple[str, ...]

    @property
    def label(self) -> str:
        return "SHIP" if self.ship else "DON'T SHIP"


@dataclass(frozen=True)
class MetricsReport:
    """The metrics in the order given, each one's Report, and the combined verdicts (the candidates' order)."""

    metrics: tuple[str, ...]
    reports: tuple[Report, ...]
    verdicts: tuple[MetricsVerdict, ...]

    @property
    def ship_all(self) -> bool:
        return all(v.ship for v in self.verdicts)

    def report_of(self, metric: str) -> Report:
        return self.reports[self.metrics.index(metric)]
