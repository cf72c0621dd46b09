"""One case as the report lists it: a case whose outcome changed, or one of the case view's lists; and what
the case explorer lists beside them (the unchanged cases of a small suite, each case's latency and cost change)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, overload


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

    unchanged: Sequence[CaseChange]
    unchanged_total: int
    latency_change: Mapping[str, float]
    cost_change: Mapping[str, float]


class ChangeByCase(Mapping[str, float]):
    """A figure per case id held as two columns (the ids, the values), looked up by id.

    A 10,000,000-case comparison lists 570,000 changed cases; as a dict of their latency and cost changes that is
    two hash tables and 1.1 million float objects (about 0.1 GiB) kept to the end of the command, while only the
    HTML note's case explorer looks a case up. The table from id to position is built at the first lookup.
    """

    __slots__ = ("case_ids", "changes", "_at")

    def __init__(self, case_ids: Sequence[str], changes: Sequence[float]) -> None:
        self.case_ids = case_ids  # each id once
        self.changes = changes  # in the ids' order
        self._at: dict[str, int] | None = None

    def __getitem__(self, case_id: str) -> float:
        if self._at is None:
            self._at = {name: i for i, name in enumerate(self.case_ids)}
        return float(self.changes[self._at[case_id]])

    def __len__(self) -> int:
        return len(self.case_ids)

    def __iter__(self) -> Iterator[str]:
        return iter(self.case_ids)

    def __repr__(self) -> str:
        return f"ChangeByCase({len(self)} cases)"


class CaseListing(Sequence[CaseChange]):
    """Cases in their listed order, held as columns: a :class:`CaseChange` is made only for a case that is read.

    A 10,000,000-case comparison lists 570,000 changed cases; made as objects they cost 5 CPU seconds, while the
    reports read the first few, the JSON note its first hundred and the case file (render/json_cases.py) the
    columns. Reading it whole (iterating) makes every case as before. Equal to any sequence of the same cases.
    """

    __slots__ = ("case_ids", "categories", "clusters", "baseline_outcomes", "candidate_outcomes", "critical",
                 "metadata", "baseline_texts")

    def __init__(self, case_ids: list[str], categories: list[str] | None, clusters: list[str] | None,
                 baseline_outcomes: list[float], candidate_outcomes: list[float], critical: list[bool],
                 metadata: tuple[tuple[str, list[str]], ...] = (),
                 baseline_texts: tuple[tuple[str, list[str]], ...] = ()) -> None:
        self.case_ids = case_ids
        self.categories = categories
        self.clusters = clusters
        self.baseline_outcomes = baseline_outcomes
        self.candidate_outcomes = candidate_outcomes
        self.critical = critical
        self.metadata = metadata  # (column, its value per case), in the columns' order
        self.baseline_texts = baseline_texts  # (per-release column, the baseline's text per case)

    def __len__(self) -> int:
        return len(self.case_ids)

    @overload
    def __getitem__(self, index: int) -> CaseChange: ...

    @overload
    def __getitem__(self, index: slice) -> CaseListing: ...

    def __getitem__(self, index: int | slice) -> CaseChange | CaseListing:
        if isinstance(index, slice):
            def cut(values: list[Any] | None) -> list[Any] | None:
                return None if values is None else values[index]

            return CaseListing(self.case_ids[index], cut(self.categories), cut(self.clusters),
                               self.baseline_outcomes[index], self.candidate_outcomes[index], self.critical[index],
                               tuple((n, v[index]) for n, v in self.metadata),
                               tuple((n, v[index]) for n, v in self.baseline_texts))
        i = range(len(self))[index]  # IndexError past the end; negative indexes as a tuple's
        return CaseChange(self.case_ids[i], None if self.categories is None else self.categories[i],
                          None if self.clusters is None else self.clusters[i], self.baseline_outcomes[i],
                          self.candidate_outcomes[i], self.critical[i],
                          tuple((n, v[i]) for n, v in self.metadata),
                          tuple((n, v[i]) for n, v in self.baseline_texts))

    def __iter__(self) -> Iterator[CaseChange]:
        n = len(self)
        names = [name for name, _ in self.metadata]
        texts = [name for name, _ in self.baseline_texts]
        rows = zip(*[v for _, v in self.metadata]) if names else itertools.repeat((), n)
        said = zip(*[v for _, v in self.baseline_texts]) if texts else itertools.repeat((), n)
        for i, values, baseline in zip(range(n), rows, said):
            yield CaseChange(self.case_ids[i], None if self.categories is None else self.categories[i],
                             None if self.clusters is None else self.clusters[i], self.baseline_outcomes[i],
                             self.candidate_outcomes[i], self.critical[i], tuple(zip(names, values)),
                             tuple(zip(texts, baseline)))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other))

    __hash__ = None  # type: ignore[assignment]  # equal to tuples, so not hashable

    def __repr__(self) -> str:
        return f"CaseListing({len(self)} cases)"


def case_ids(cases: Sequence[CaseChange], *, critical_only: bool = False, category: str | None = None) -> list[str]:
    """The ids of a listing's cases in its order (only the critical ones, only one category's), read from the
    columns of a :class:`CaseListing` without making its cases."""
    if not isinstance(cases, CaseListing):
        return [c.case_id for c in cases
                if (not critical_only or c.critical) and (category is None or c.category == category)]
    if not critical_only and category is None:
        return list(cases.case_ids)
    categories = cases.categories if cases.categories is not None else itertools.repeat(None)
    return [i for i, crit, cat in zip(cases.case_ids, cases.critical, categories)
            if (not critical_only or crit) and (category is None or cat == category)]
