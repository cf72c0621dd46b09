"""One verdict per candidate from every metric's rules: DON'T SHIP when any metric's verdict is, else NOT PROVEN
when any metric's is, else SHIP; with several metrics the headline names the metric(s) that block (DON'T SHIP
or NOT PROVEN), with one it is that metric's own."""

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
        decision = Decision.worst(v.decision for v in per_metric)
        excluded = words.excluded(per_metric)
        headline = (first.headline if len(sections) == 1
                    else words.headline(first.candidate, per_metric, blocking, decision.label, excluded))
        out.append(CandidateVerdict(first.candidate, decision, headline, per_metric, excluded))
    return tuple(out)
