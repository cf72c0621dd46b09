"""The sentences of the HTML note's case explorer: what it holds, why the unchanged cases are or are not listed,
and how many rows a very large note leaves to the JSON report. The figures come from render/explorer.py."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from releasegate.model.cases import UNCHANGED_LISTED_UP_TO


class ListedRows(Protocol):
    """What one (metric, candidate) of the explorer holds (render/explorer.py ``Listed``)."""

    metric: str
    candidate: str
    kept: int
    cut: int
    unchanged_total: int
    unchanged_listed: bool


def _cases(k: int) -> str:
    return f"{k:,} case" if k == 1 else f"{k:,} cases"


def lead(listed: Sequence[ListedRows], rows: int, baseline: str) -> str:
    """The explorer's first paragraph."""
    several = len({x.metric for x in listed}) > 1
    everything = bool(listed) and all(x.unchanged_listed for x in listed)
    out = [f"The cases behind the verdicts, with both releases' answers: every case that changed from {baseline} "
           f"on a candidate{', and every unchanged one' if everything else ''}; {rows:,} "
           f"row{'s' if rows != 1 else ''}, one per case of a candidate{' and metric' if several else ''}."]
    if everything:
        out.append(f"The unchanged cases are listed because the suite has at most {UNCHANGED_LISTED_UP_TO:,} cases.")
    elif any(x.unchanged_total for x in listed):
        counted = [x for x in listed if not x.unchanged_listed and x.unchanged_total]
        where = "; ".join(f"{_cases(x.unchanged_total)} on {x.candidate}" + (f" ({x.metric})" if several else "")
                          for x in counted[:5])
        more = f" and {len(counted) - 5} more candidates" if len(counted) > 5 else ""
        out.append(f"Unchanged cases are counted, not listed, above {UNCHANGED_LISTED_UP_TO:,} cases: "
                   f"{where}{more}.")
    cut = [x for x in listed if x.cut]
    if cut:
        total = sum(x.cut for x in cut)
        out.append(f"To keep the page light it holds the first {cut[0].kept:,} rows of each candidate, broken "
                   f"cases first; {_cases(total)} more are in the JSON report.")
    return " ".join(out)
