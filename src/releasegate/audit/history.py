"""`releasegate history`: archived notes gathered into series of releases over time.

Notes are read from the files and folders given (folders searched whole for ``.json`` and ``.pdf`` notes; a file
in a folder that is not a note is listed as not read, a file named alone must be a note). A PDF/A-3b note and the
JSON beside it carry the same JSON: read once. The notes are ordered by their time of generation.

A series is the notes that share a baseline and a suite: the same title, metric, outcome kind, number of cases
and categories with their sizes. Figures of different baselines or suites are not comparable, so each series is
drawn apart and the page says what sets them apart. Per note, each release (the baseline and every candidate)
gives a :class:`ReleasePoint`: its pass rate (mean score) with its interval, the candidate's verdict and
difference, the cost per 1,000 cases and the p95 latency; per candidate and category a :class:`CategoryChange`;
and per candidate every critical category it broke cases of, a :class:`CriticalBreak`; and every candidate whose
verdict changed from the last note that judged it, with what of the policy changed between the two notes, a
:class:`VerdictFlip` (a flip the policy made is not a flip the release made).

Only keys every note of schema 1.x holds are read, each through :meth:`Note.sections`, so that a shape the
JSON gains later does not change what is read here; a note in which any of them is missing, of another type or
impossible is refused first (audit/notes.py, READ_BY_HISTORY), so no page shows what it holds as figures.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from releasegate.audit.notes import Note, check_read_keys, read_note
from releasegate.errors import InputError

SUFFIXES = (".json", ".pdf")


@dataclass(frozen=True)
class ReleasePoint:
    """One release in one note."""

    note: int  # the note's position in its series (0 = oldest)
    when: str  # the note's time of generation
    release: str
    role: str  # "baseline" or "candidate"
    verdict: str | None  # the candidate's ("ship", "dont_ship", ...); None for the baseline
    n: int | None
    rate: float | None
    ci_low: float | None
    ci_high: float | None
    diff: float | None  # candidate minus baseline (None for the baseline)
    diff_low: float | None
    diff_high: float | None
    cost_per_1k: float | None
    p95_ms: float | None


@dataclass(frozen=True)
class CategoryChange:
    """A candidate's change in one category, in one note."""

    note: int
    when: str
    release: str
    category: str
    critical: bool
    n: int | None
    diff: float | None
    ci_low: float | None
    ci_high: float | None
    fixed: int | None
    broke: int | None
    p_adjusted: float | None


@dataclass(frozen=True)
class CriticalBreak:
    """A candidate that broke cases of a critical category, and whether that category's own test blocked it."""

    note: int
    when: str
    release: str
    category: str
    broke: int
    fixed: int
    p_value: float | None
    blocks: bool


@dataclass(frozen=True)
class VerdictFlip:
    """A candidate whose verdict changed from one note to the next it appears in, and what of the policy changed
    between the two (each key as "key: before -> after"; empty when the policy is the same)."""

    note: int  # the later note
    when: str
    release: str
    before: str
    after: str
    policy: tuple[str, ...]


@dataclass(frozen=True)
class NoteRef:
    path: str
    when: str
    also: tuple[str, ...]  # the same note found again (the PDF beside the JSON)
    tool_version: str


@dataclass(frozen=True)
class Series:
    """The notes that share a baseline and a suite, oldest first, and what they hold."""

    title: str
    metric: str | None
    baseline: str
    outcome_kind: str
    n_cases: int | None
    categories: tuple[tuple[str, int | None], ...]
    notes: tuple[NoteRef, ...]
    points: tuple[ReleasePoint, ...]
    changes: tuple[CategoryChange, ...]
    breaks: tuple[CriticalBreak, ...]
    flips: tuple[VerdictFlip, ...] = ()

    @property
    def label(self) -> str:
        metric = f", metric {self.metric}" if self.metric else ""
        return f"{self.title}{metric}: baseline {self.baseline}, {self.suite}"

    @property
    def suite(self) -> str:
        size = f"{self.n_cases:,} cases" if isinstance(self.n_cases, int) else "cases not recorded"
        return size + (f" in {len(self.categories)} categories" if self.categories else "")

    @property
    def binary(self) -> bool:
        return self.outcome_kind == "binary"


@dataclass(frozen=True)
class History:
    series: tuple[Series, ...]
    not_read: tuple[tuple[str, str], ...]  # (file, why) for files in the folders given that are not notes

    @property
    def n_notes(self) -> int:
        return sum(len(s.notes) for s in self.series)


def note_files(paths: list[Path]) -> tuple[list[Path], list[Path]]:
    """The files named, and the ``.json`` and ``.pdf`` files inside the folders named (sorted)."""
    named, found = [], []
    for path in map(Path, paths):
        if path.is_dir():
            found += sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in SUFFIXES)
        elif path.exists():
            named.append(path)
        else:
            raise InputError(f"note or folder not found: {path}")
    return named, found


def read_notes(paths: list[Path]) -> tuple[list[tuple[Note, list[str]]], list[tuple[str, str]]]:
    """Every distinct note (with the other files holding the same JSON), and the files found that are not notes."""
    named, found = note_files(paths)
    notes: dict[str, tuple[Note, list[str]]] = {}
    not_read = []
    for path in [*named, *found]:
        try:
            note = read_note(path)
        except InputError as exc:
            if path in named:
                raise
            not_read.append((str(path), str(exc)))
            continue
        check_read_keys(note)  # a note malformed where history reads it is refused, wherever it was found
        if note.digest in notes:
            notes[note.digest][1].append(str(path))
        else:
            notes[note.digest] = (note, [])
    if not notes:
        where = ", ".join(map(str, paths))
        raise InputError(f"no releasegate notes in {where}" + (f" ({len(not_read)} files are not notes)"
                                                               if not_read else ""))
    return sorted(notes.values(), key=lambda item: (item[0].generated_at, str(item[0].path))), not_read


def _number(value: Any) -> float | None:
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _suite_key(section: dict[str, Any]) -> tuple[Any, ...]:
    first = next((c for c in _list(section.get("candidates")) if isinstance(c, dict)), {})
    categories = tuple((str(c.get("category")), _number(c.get("n"))) for c in _list(first.get("categories"))
                       if isinstance(c, dict))
    return (section.get("outcome_kind"), _number(section.get("n_cases")), tuple(sorted(categories)))


def _costs(section: dict[str, Any]) -> dict[str, tuple[float | None, float | None]]:
    out = {}
    for row in _list(_dict(section.get("costs")).get("releases")):
        if isinstance(row, dict):
            latency = _dict(row.get("latency_ms"))
            out[str(row.get("name"))] = (_number(row.get("cost_per_1k")), _number(latency.get("p95")))
    return out


def _points(i: int, when: str, section: dict[str, Any]) -> list[ReleasePoint]:
    costs = _costs(section)
    candidates = {str(c.get("name")): c for c in _list(section.get("candidates")) if isinstance(c, dict)}
    baseline = str(section.get("baseline"))
    points = []
    for release in _list(section.get("releases")):
        if not isinstance(release, dict):
            continue
        name = str(release.get("name"))
        rate = _dict(release.get("rate"))
        cand = candidates.get(name)
        if name != baseline and cand is None:
            continue  # a release in the data that was not compared (a baseline rerun)
        overall = _dict(cand.get("overall")) if cand else {}
        cost, p95 = costs.get(name, (None, None))
        points.append(ReleasePoint(
            i, when, name, "baseline" if name == baseline else "candidate",
            str(cand.get("verdict")) if cand else None, _number(rate.get("n")), _number(rate.get("value")),
            _number(rate.get("ci_low")), _number(rate.get("ci_high")), _number(overall.get("diff")),
            _number(overall.get("ci_low")), _number(overall.get("ci_high")), cost, p95))
    return points


def _changes(i: int, when: str, section: dict[str, Any]) -> tuple[list[CategoryChange], list[CriticalBreak]]:
    changes, breaks = [], []
    for cand in _list(section.get("candidates")):
        if not isinstance(cand, dict):
            continue
        name = str(cand.get("name"))
        tests = {str(t.get("label")): t for t in _list(_dict(cand.get("critical")).get("tests")) if isinstance(t, dict)}
        for c in _list(cand.get("categories")):
            if not isinstance(c, dict):
                continue
            category, critical = str(c.get("category")), c.get("critical") is True
            changes.append(CategoryChange(i, when, name, category, critical, _number(c.get("n")),
                                          _number(c.get("diff")), _number(c.get("ci_low")), _number(c.get("ci_high")),
                                          _number(c.get("fixed")), _number(c.get("broke")),
                                          _number(c.get("p_adjusted"))))
            test = tests.get(category, {})
            broke = _number(test.get("worse", c.get("broke"))) or 0
            if critical and broke > 0:
                breaks.append(CriticalBreak(i, when, name, category, int(broke),
                                            int(_number(test.get("better", c.get("fixed"))) or 0),
                                            _number(test.get("p_regression")), test.get("blocks") is True))
    return changes, breaks


def _shown(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=False) if not isinstance(value, str) else value
    return text if len(text) <= 80 else text[:79] + "…"


def policy_changes(before: dict[str, Any], after: dict[str, Any]) -> tuple[str, ...]:
    """Every policy key whose value differs between two notes, "key: before -> after" (absent: "none")."""
    return tuple(f"{key}: {_shown(before.get(key)) if key in before else 'none'} -> "
                 f"{_shown(after.get(key)) if key in after else 'none'}"
                 for key in sorted(set(before) | set(after)) if before.get(key) != after.get(key))


def _flips(points: list[ReleasePoint], policies: list[dict[str, Any]]) -> list[VerdictFlip]:
    """Each candidate's verdict against the one of the last earlier note it was judged in; a change is a flip."""
    last: dict[str, ReleasePoint] = {}
    flips = []
    for p in points:
        if p.role != "candidate" or p.verdict is None:
            continue
        earlier = last.get(p.release)
        if earlier is not None and earlier.verdict != p.verdict:
            flips.append(VerdictFlip(p.note, p.when, p.release, str(earlier.verdict), p.verdict,
                                     policy_changes(policies[earlier.note], policies[p.note])))
        last[p.release] = p
    return flips


def build_history(paths: list[Path]) -> History:
    """The notes under ``paths`` as series of releases over time (see the module docstring)."""
    notes, not_read = read_notes(paths)
    groups: dict[tuple[Any, ...], list[tuple[Note, list[str], dict[str, Any]]]] = {}
    for note, also in notes:
        for metric, section in note.sections():
            key = (str(section.get("title") or ""), metric, str(section.get("baseline")), *_suite_key(section))
            groups.setdefault(key, []).append((note, also, section))
    series = []
    for key, members in groups.items():
        title, metric, baseline, kind, n_cases, categories = key
        refs, points, changes, breaks = [], [], [], []
        for i, (note, also, section) in enumerate(members):
            refs.append(NoteRef(str(note.path), note.generated_at, tuple(also), note.tool_version))
            points += _points(i, note.generated_at, section)
            found_changes, found_breaks = _changes(i, note.generated_at, section)
            changes += found_changes
            breaks += found_breaks
        policies = [_dict(section.get("policy")) for _, _, section in members]
        series.append(Series(title.removesuffix(f": {metric}") if metric else title, metric, baseline,
                             str(kind), n_cases, categories, tuple(refs), tuple(points), tuple(changes),
                             tuple(breaks), tuple(_flips(points, policies))))
    series.sort(key=lambda s: (s.notes[0].when, s.label))
    return History(tuple(series), tuple(not_read))


def apart(history: History) -> list[str]:
    """Why the series are drawn apart: for each after the first, what it does not share with the first (series
    are numbered as the page numbers them, 1 the first)."""
    if len(history.series) < 2:
        return []
    first = history.series[0]
    lines = []
    for n, s in enumerate(history.series[1:], start=2):
        what = []
        if s.baseline != first.baseline:
            what.append(f"baseline {s.baseline}, not {first.baseline}")
        what += _suite_difference(s, first)
        if s.title != first.title:
            what.append(f"title {s.title}, not {first.title}")
        if s.metric != first.metric:
            what.append(f"metric {s.metric or 'the outcome column'}, not {first.metric or 'the outcome column'}")
        lines.append(f"series {n} against series 1: {'; '.join(what) or 'another suite'}")
    return lines


def _suite_difference(s: Series, first: Series) -> list[str]:
    """What sets a series' suite apart from the first's, in words (cases, categories, their sizes, outcomes)."""
    out = []
    if s.outcome_kind != first.outcome_kind:
        out.append(f"outcomes {s.outcome_kind}, not {first.outcome_kind}")
    if s.n_cases != first.n_cases:
        out.append(f"{s.suite}, not {first.suite}")
    ours, theirs = dict(s.categories), dict(first.categories)
    added, dropped = sorted(set(ours) - set(theirs)), sorted(set(theirs) - set(ours))
    if added:
        out.append(f"categories {', '.join(added)} not in the first series")
    if dropped:
        out.append(f"no categories {', '.join(dropped)}")
    resized = [f"{k} {ours[k]} cases, not {theirs[k]}" for k in sorted(set(ours) & set(theirs)) if ours[k] != theirs[k]]
    if resized and s.n_cases == first.n_cases:
        out.append("; ".join(resized))
    return out
