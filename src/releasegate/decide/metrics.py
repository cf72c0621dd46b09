"""One verdict per candidate from every metric's rules: SHIP only when no metric's rule fired; with several
metrics the headline names the metric(s) that block, with one it is that metric's own."""

from __future__ import annotations

from releasegate.model import CandidateVerdict, Decision, MetricSection
from releasegate.wording import metrics as words


def combine(sections: tuple[MetricSection, ...]) -> tuple[CandidateVerdict, ...]:
    """The candidates' verdicts over every section, in the first section's candidate order (every section
    compares the same candidates)."""
    out = []
    for i, first in enumerate(sections[0].verdicts):
        per_metric = tuple(s.verdicts[i] for s in sections)
        blocking = tuple(v.metric for v in per_metric if not v.ship)
        decision = Decision.DONT_SHIP if blocking else Decision.SHIP
        headline = first.headline if len(sections) == 1 else words.headline(first.candidate, per_metric, blocking)
        out.append(CandidateVerdict(first.candidate, decision, headline, per_metric))
    return tuple(out)
