"""The case explorer's filters and sorts in Python, the same rule as the page's script (templates/explorer.js),
so that ``note.cases(search=..., candidate=..., category=..., change=..., metric=..., sort=...)`` gives the rows
the page shows for that view (tests/render/test_explorer_browser.py compares the two).

Search: the text is lower-cased and split at white space; a row matches when each word occurs in one of its
texts as shown (render/explorer.py ``shown``), lower-cased: case id, category, metadata, both answers. The
other filters are exact. Sorts are stable (ties keep the note's order) with missing values last: "category"
by the categories' sorted order, "score" the largest drop first, "latency" and "cost" the largest increase
first, "note" the note's order.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from releasegate.render.explorer import Explorer, ExplorerRow, shown

SORTS = ("note", "category", "score", "latency", "cost")
# JavaScript's \s, spelled out: Python's own white space differs by a few control characters.
_WHITE_SPACE = re.compile("[\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]+")


@dataclass(frozen=True)
class Filters:
    """One view of the explorer: each None (or empty search) lets every row through."""

    search: str = ""
    candidate: str | None = None
    category: str | None = None
    change: str | None = None
    metric: str | None = None
    sort: str = "note"


def search_words(search: str) -> list[str]:
    return [w for w in _WHITE_SPACE.split(search.lower()) if w]


def checked(explorer: Explorer, filters: Filters) -> Filters:
    """``filters`` with each value checked against what the explorer holds; an unknown one is refused, naming
    the choices (a typo must not read as "no case matches")."""
    for name, value, choices in (("candidate", filters.candidate, explorer.candidates),
                                 ("category", filters.category, explorer.categories),
                                 ("change", filters.change, explorer.changes),
                                 ("metric", filters.metric, explorer.metrics),
                                 ("sort", filters.sort, SORTS)):
        shown_value = shown(value) if name == "category" and value is not None else value
        if value is not None and shown_value not in choices:
            error = KeyError if name in ("candidate", "metric") else ValueError
            raise error(f"no {name} {value!r}; {name}s: {', '.join(choices)}")
    return filters


def select(explorer: Explorer, filters: Filters) -> list[ExplorerRow]:
    """The rows of ``explorer`` the view shows, in its order."""
    filters = checked(explorer, filters)
    words = search_words(filters.search)
    category = shown(filters.category) if filters.category is not None else None
    rows = []
    for row in explorer.rows:
        if filters.candidate is not None and row.candidate != filters.candidate:
            continue
        if filters.metric is not None and row.metric != filters.metric:
            continue
        if filters.change is not None and row.change != filters.change:
            continue
        if category is not None and shown(row.case.category) != category:
            continue
        if words:
            hay = "\n".join(row.searched()).lower()
            if not all(w in hay for w in words):
                continue
        rows.append(row)
    return sorted(rows, key=_sort_key(explorer, filters.sort)) if filters.sort != "note" else rows


def _rounded(x: float) -> float:
    """The value the page reads (the JSON writer's 12 significant digits), so that ties are the page's ties."""
    return float(format(x, ".12g")) if math.isfinite(x) else math.nan


def _sort_key(explorer: Explorer, sort: str) -> Callable[[ExplorerRow], tuple[Any, ...]]:
    if sort == "category":
        rank = {c: i for i, c in enumerate(explorer.categories)}
        return lambda r: (rank.get(shown(r.case.category), len(rank)) if r.case.category else len(rank),)
    sign = 1.0 if sort == "score" else -1.0
    field = {"score": "score_change", "latency": "latency_change", "cost": "cost_change"}[sort]

    def key(row: ExplorerRow) -> tuple[Any, ...]:
        value = _rounded(getattr(row, field))
        return (1, 0.0) if value != value else (0, sign * value)

    return key
