"""One case as the report lists it: a case whose outcome changed, or one of the case view's lists; and what
the case explorer lists beside them (the unchanged cases of a small suite, each case's latency and cost change)."""

from __future__ import annotations

from collections.abc import Mapping
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


# A candidate's unchanged cases are listed when it has at most this many paired cases (the case explorer of the
# HTML note then holds every case of the suite); beyond, they are counted only. At 2,000 cases the unchanged
# rows of a typical suite add about 0.5 MB of text to the note (bench/explorer.py).
UNCHANGED_LISTED_UP_TO = 2_000


@dataclass(frozen=True)
class CaseDetails:
    """What a reader exploring one candidate's cases needs beside its broken and fixed listings.

    ``unchanged``: the paired cases whose outcome did not change (beyond ``min_change`` for scores; errored
    cases aside), listed only when the candidate has at most :data:`UNCHANGED_LISTED_UP_TO` paired cases;
    ``unchanged_total`` counts them either way. ``latency_change`` and ``cost_change``: candidate minus
    baseline per listed case id (milliseconds; the cost's unit), for the cases with a value on both sides.
    """

    unchanged: tuple[CaseChange, ...]
    unchanged_total: int
    latency_change: Mapping[str, float]
    cost_change: Mapping[str, float]
