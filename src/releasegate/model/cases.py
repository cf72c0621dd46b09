"""One case as the report lists it: a case whose outcome changed, or one of the case view's lists."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CaseChange:
    """A case whose outcome changed between the baseline and the candidate.

    ``metadata`` holds the candidate's row (every metadata column); ``baseline_texts`` the baseline's value of
    each per-release column (output, reason, error: load/per_release.py), so both answers can be shown.
    """

    case_id: str
    category: str | None
    cluster: str | None
    baseline_outcome: float
    candidate_outcome: float
    critical: bool
    metadata: tuple[tuple[str, str], ...] = ()
    baseline_texts: tuple[tuple[str, str], ...] = ()
