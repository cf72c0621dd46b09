"""One verdict per candidate from every metric's rules: SHIP only when no metric's rule fired; the headline
names the metric(s) that block."""

from __future__ import annotations

from releasegate.model import MetricsVerdict, Report
from releasegate.wording import metrics as words


def combine(metrics: tuple[str, ...], reports: tuple[Report, ...]) -> tuple[MetricsVerdict, ...]:
    """The combined verdicts, in the candidates' order; ``reports`` are the metrics' in ``metrics`` order."""
    out = []
    for i, candidate in enumerate(v.candidate for v in reports[0].verdicts):
        per_metric = [(m, r.verdicts[i]) for m, r in zip(metrics, reports)]
        blocking = tuple(m for m, v in per_metric if not v.ship)
        out.append(MetricsVerdict(candidate, not blocking, words.headline(candidate, per_metric, blocking), blocking))
    return tuple(out)
