"""The JSON note's case listings, bounded: past :data:`CASES_IN_NOTE` listed cases, every listing goes whole to a
Parquet file beside the note (docs/json.md, "The case file"), and the note keeps each listing's first
:data:`CASES_KEPT` cases, the counts of every listing, and the file's name and sha256.

Every figure stays in the note; only the per-case lists move. A million-case note listed 150 MB of cases that no
reader opens as JSON, and writing them was a quarter of the command. The file is Parquet rather than JSON lines:
it is written from the listing's columns in one call (no text per case), is a tenth of the size, and pandas,
DuckDB, polars and pyarrow read it as a table. The listings are the analysis's own (analyze/pairing.case_changes),
the ones the HTML and Markdown show.

One row per listed case and listing: ``metric`` (empty for a note of one metric), ``candidate``, ``listing``
(broken_cases, fixed_cases, excluded_cases.only_baseline, excluded_cases.only_candidate), then the keys of a
listed case (``case_id``, ``category``, ``cluster``, ``critical``, ``baseline_outcome``, ``candidate_outcome``),
``metadata.NAME`` per metadata column and ``answers.NAME.baseline`` per per-release column (its candidate side is
``metadata.NAME``); a value a case does not have is null.
"""

from __future__ import annotations

import hashlib
import io
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from releasegate.model import CandidateAnalysis, Report

# A note listing at most this many cases (all listings of all candidates and metrics) carries them all; past it,
# every listing is in the case file. At about 320 bytes a listed case in the JSON, 10,000 is about 3 MB.
CASES_IN_NOTE = 10_000
# With a case file, each listing in the note keeps its first cases (critical first, largest change first).
CASES_KEPT = 100
LISTINGS = ("broken_cases", "fixed_cases", "excluded_cases.only_baseline", "excluded_cases.only_candidate")
CASE_KEYS = ("case_id", "category", "cluster", "critical", "baseline_outcome", "candidate_outcome")


def case_file_path(note: Path) -> Path:
    """Where the case file of the note ``note`` is written: ``note.json`` -> ``note.cases.parquet``."""
    return note.with_name(note.stem + ".cases.parquet")


def _listings(cand: CandidateAnalysis) -> dict[str, tuple[Any, ...]]:
    return {"broken_cases": cand.broken_cases, "fixed_cases": cand.fixed_cases,
            "excluded_cases.only_baseline": cand.exclusions.ids("only_baseline"),
            "excluded_cases.only_candidate": cand.exclusions.ids("only_candidate")}


def listed_count(report: Report) -> int:
    """How many cases the note's listings hold, all candidates and metrics together."""
    return sum(len(listing) for section in report.sections for cand in section.analysis.candidates
               for listing in _listings(cand).values())


def case_file_bytes(report: Report) -> tuple[bytes, int]:
    """The case file's bytes (Parquet, zstd) and its number of rows. The same report gives the same bytes."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    columns: dict[str, list[Any]] = {k: [] for k in ("metric", "candidate", "listing", *CASE_KEYS)}
    extra: dict[str, list[Any]] = {}
    rows = 0
    several = len(report.sections) > 1
    for section in report.sections:
        for cand in section.analysis.candidates:
            for listing, cases in _listings(cand).items():
                if not cases:
                    continue
                n = len(cases)
                columns["metric"] += [section.metric if several else ""] * n
                columns["candidate"] += [cand.name] * n
                columns["listing"] += [listing] * n
                if isinstance(cases[0], str):  # an excluded case: its id alone
                    columns["case_id"] += list(cases)
                    for key in CASE_KEYS[1:]:
                        columns[key] += [None] * n
                else:
                    listing_columns, metadata, texts = _columns_of(cases)
                    for key in CASE_KEYS:
                        columns[key] += listing_columns[key]
                    for prefix, named in (("metadata.{}", metadata), ("answers.{}.baseline", texts)):
                        for name, values in named:
                            _column(extra, prefix.format(name), rows)
                            extra[prefix.format(name)] += values
                rows += n
                for values in extra.values():
                    values += [None] * (rows - len(values))
    types = {"critical": pa.bool_(), "baseline_outcome": pa.float64(), "candidate_outcome": pa.float64()}
    table = pa.table({name: pa.array(values, types.get(name, pa.string()))
                      for name, values in {**columns, **extra}.items()})
    sink = io.BytesIO()
    pq.write_table(table, sink, compression="zstd")
    return sink.getvalue(), rows


def _columns_of(cases: Sequence[Any]) -> tuple[dict[str, list[Any]], tuple[Any, ...], tuple[Any, ...]]:
    """A listing's case keys as columns, its metadata and baseline texts as (name, values) pairs: read from a
    CaseListing's own columns, or gathered from its cases."""
    from releasegate.model import CaseListing

    if isinstance(cases, CaseListing):
        n = len(cases)
        return ({"case_id": cases.case_ids, "category": cases.categories or [None] * n,
                 "cluster": cases.clusters or [None] * n, "critical": cases.critical,
                 "baseline_outcome": cases.baseline_outcomes, "candidate_outcome": cases.candidate_outcomes},
                cases.metadata, cases.baseline_texts)
    first = cases[0]
    return ({key: [getattr(c, key) for c in cases] for key in CASE_KEYS},
            tuple((name, [c.metadata[i][1] for c in cases]) for i, (name, _) in enumerate(first.metadata)),
            tuple((name, [c.baseline_texts[i][1] for c in cases]) for i, (name, _) in enumerate(first.baseline_texts)))


def _column(extra: dict[str, list[Any]], name: str, rows: int) -> None:
    if name not in extra:
        extra[name] = [None] * rows


def json_files(report: Report, path: Path, render_json: Callable[..., str]) -> list[tuple[Path, bytes]]:
    """The note at ``path`` and, past :data:`CASES_IN_NOTE` listed cases, its case file: (path, bytes) each.
    ``render_json(report, case_file)`` writes the note (render/json_out.render_json)."""
    if listed_count(report) <= CASES_IN_NOTE:
        return [(path, render_json(report).encode("utf-8"))]
    data, rows = case_file_bytes(report)
    side = case_file_path(path)
    record = {"path": side.name, "sha256": hashlib.sha256(data).hexdigest(), "rows": rows, "format": "parquet",
              "listed_in_note": CASES_KEPT}
    return [(side, data), (path, render_json(report, record).encode("utf-8"))]
