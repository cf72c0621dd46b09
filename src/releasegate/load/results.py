"""Stage 1: files -> one tidy table with canonical column names, and the provenance of every file.

Each file is read by its adapter (the registry in :mod:`releasegate.load.adapters`) or as a tidy table, renamed
to the canonical columns, checked together with the other files of its format, concatenated, and joined with
the case table (:mod:`releasegate.load.cases`)."""

from __future__ import annotations

import json
import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from releasegate.errors import InputError, StoreError
from releasegate.load import adapters, shapes
from releasegate.load.capacity import check_fits
from releasegate.load.cases import join_cases
from releasegate.load.columns import COLUMN_FLAGS, check_columns, plausible_match, rename_columns, require_column
from releasegate.load.directories import unread_note, unread_tables
from releasegate.load.sources import Source, check_file, sha256_of
from releasegate.model import InputExclusion, InputFile
from releasegate.load.fingerprint import PAIRING_COLUMNS
from releasegate.policy import CANONICAL_COLUMNS

# A run store's readers (load/store.py, SQLite) are imported when an input is a directory: files never need them.
if TYPE_CHECKING:
    from concurrent.futures import Future

    from releasegate.load.settled import SettledRecord
    from releasegate.load.store import StoreInput


@dataclass(frozen=True)
class AdapterOptions:
    """Harness-specific choices (see docs/inputs.md): the format ("auto" detects it) and the adapters' options
    by name (:data:`releasegate.load.adapters.OPTIONS`); None means not given."""

    format: str = "auto"
    values: Mapping[str, Any] = field(default_factory=dict)
    drop_holes: bool = False  # a run store with missing or errored cells: compare without those cases
    # Input shapes (load/shapes.py): a wide file's release columns, and the latency column's unit.
    wide: bool = False
    release_cols: tuple[str, ...] = ()
    latency_unit: str = "ms"

    def given(self) -> dict[str, Any]:
        return {k: v for k, v in self.values.items() if v is not None}


@dataclass(frozen=True)
class LoadedResults:
    """The tidy table (canonical names; other columns are case metadata) and the files it came from.
    ``metrics`` names the columns gated as metrics (``--metric``, load/per_metric.py); empty, the outcome is the
    passed or score column."""

    table: pd.DataFrame
    inputs: tuple[InputFile, ...]
    metadata_columns: tuple[str, ...]
    notes: tuple[str, ...] = field(default_factory=tuple)
    metrics: tuple[str, ...] = ()
    baseline: str | None = None  # a baseline the inputs record (a sweep's run store), used when none is given
    settled: SettledRecord | None = None  # a settled run store's looks (load/settled.py; pipeline.settled_level)
    # Harness files read once per metric (load/per_metric.py): each metric's own records (its scorer, metric,
    # filter), for that metric's provenance; empty otherwise.
    metric_inputs: Mapping[str, tuple[InputFile, ...]] = field(default_factory=dict)
    # The columns a case table (--cases) joined: the same for every release, so content there pairs nothing.
    case_columns: tuple[str, ...] = ()
    # What loading left out of every comparison (a table not read, a run store's cases dropped), beside its note.
    excluded: tuple[InputExclusion, ...] = ()
    # What the inputs name the thing evaluated (an Inspect task, lm-eval tasks, a promptfoo description, an OpenAI
    # evals eval), in the order read: the default title (load.sources.default_title).
    names: tuple[str, ...] = ()


STORE = "store"  # the format of a `releasegate run` store (load/store.py), beside the adapters' and "tidy"


@dataclass(frozen=True)
class ResolvedInput:
    """One file to read (a directory given on the command line is expanded into its files) and its format."""

    source: Source
    format: str


def resolve_inputs(sources: list[Source], options: AdapterOptions | None = None) -> tuple[ResolvedInput, ...]:
    """Every source as the files it stands for, each with its format: a directory is expanded once and each
    file's format detected once (``--format`` forces it), however many times the files are then read (once
    per metric, load/per_metric.py)."""
    from releasegate.load.directories import expand_sources

    options = options or AdapterOptions()
    if not sources:
        raise InputError("no results file given")
    out = []
    task = options.given().get("task")  # --task: an eval set's directory read for one task's logs
    for source in sources:
        # A `releasegate run` store is one input (load/store.py); any other directory is a harness's output.
        if _is_store(source.path):
            out.append(ResolvedInput(source, STORE))
            continue
        for one in expand_sources([source], task):
            check_file(one.path)
            fmt = options.format if options.format != "auto" else adapters.detect_format(one.path)
            out.append(ResolvedInput(one, fmt))
    return tuple(out)


def _read_one(source: Source, fmt: str, options: AdapterOptions,
              columns: Mapping[str, str] | None = None) -> pd.DataFrame:
    """Read one file with the adapter of its format (or as a tidy table)."""
    if fmt == "tidy":
        from releasegate.load.identity import identity_names
        from releasegate.load.tidy import read_tidy

        return read_tidy(source.path, identity_names(columns or {}), (columns or {}).get("case_id", "case_id"))
    taken = adapters.ADAPTERS[fmt].option_names if fmt in adapters.ADAPTERS else ()
    values = {k: v for k, v in options.given().items() if k in taken}
    return adapters.read_with(fmt, source.path, source.release, values)


def _check_options_apply(options: AdapterOptions, formats: set[str]) -> None:
    """An option no input file's format takes would silently change nothing: refuse it, naming its formats."""
    for name in options.given():
        if not formats & set(adapters.formats_taking(name)):
            option = next(o for o in adapters.OPTIONS if o.name == name)
            read = ", ".join(sorted(formats))
            raise InputError(f"{option.flag} applies to {' and '.join(adapters.formats_taking(name))} files only; "
                             f"the inputs are {read}")


def load_results(
    sources: list[Source],
    *,
    columns: Mapping[str, str] | None = None,
    cases: Path | pd.DataFrame | None = None,
    options: AdapterOptions | None = None,
    metrics: tuple[str, ...] = (),
    resolved: tuple[ResolvedInput, ...] | None = None,
) -> LoadedResults:
    """Read every source, name the release of each row, join the case table, and record provenance.

    Several files are concatenated; ``NAME=path`` sets the release of every row of that file. ``metrics``
    (``--metric``) name the outcome columns, so no passed or score column is needed. ``resolved``: the
    sources as :func:`resolve_inputs` gave them (resolved here when not given). Each file is read
    (:func:`_read_source`) and given the canonical columns (:func:`_canonical_frame`); the files are then checked
    together, concatenated and joined with the case table (:func:`_combined`).
    """
    options = options or AdapterOptions()
    columns = dict(columns or {})
    if options.release_cols and not options.wide:
        raise InputError("--release-cols names the release columns of a wide file: add --wide")
    from releasegate.load.records import (
        check_one_file_per_release,
        check_one_reading,
        input_record,
        refuse_export_beside_log,
        refuse_rows_in_two_files,
    )

    frames, inputs, formats = [], [], []
    seen: set[str] = set()  # every column name of every file, before renaming
    read: list[Any] = []
    notes: list[str] = []
    recorded: set[str] = set()  # baselines recorded by run stores (a sweep's grid)
    settled: list[tuple[Path, SettledRecord]] = []  # settled stores and what run --settle decided
    resolved = resolve_inputs(sources, options) if resolved is None else resolved
    # What loading leaves out of every comparison is recorded beside its note, to be named where verdicts are read.
    excluded: list[InputExclusion] = []
    for source in sources:
        left = unread_tables(source.path, [one.source.path for one in resolved]) if source.path.is_dir() \
            and not _is_store(source.path) else []
        if left:
            notes.append(unread_note(source.path, left))
            excluded.append(InputExclusion("tables_not_read", len(left), str(source.path), tuple(left[:3])))
    # What this machine cannot hold is refused now, with the figures, not killed half-way (load/capacity.py).
    check_fits(one.source.path for one in resolved if one.format == "tidy")
    for one in resolved:
        source, fmt = one.source, one.format
        store_input = None
        digest = None
        if fmt == STORE:
            stored = _read_store(source, options.drop_holes)
            frame, store_input = stored.table, stored.record
            fmt = store_input.format
            notes += stored.notes
            excluded += stored.excluded
            recorded.update([stored.baseline] if stored.baseline else [])
            settled += [(source.path, stored.settled)] if stored.settled is not None else []
        else:
            frame, digest = _read_hashed(source, fmt, options, columns)
            _add_new(notes, frame.attrs.get("notes", ()))  # an adapter's readings
            _add_new(notes, _conditional_notes(frame, columns))
        formats.append(fmt)
        frame = shapes.resolve_dotted(frame, columns.values(), source.path)
        seen.update(map(str, frame.columns))
        frame, error_note = _canonical_frame(frame, source, fmt, options, columns, metrics)
        _add_new(notes, [error_note] if error_note else [])
        frames.append(frame)
        inputs.append(store_input or input_record(source.path, digest.result(), frame, fmt, source.release))
        read.append((source.path, frame, fmt, source.release))
    shapes.refuse_same_file_twice(inputs)
    _check_options_apply(options, set(formats))
    check_one_file_per_release(read)
    refuse_export_beside_log(read)
    check_one_reading(read)
    for fmt in dict.fromkeys(formats):  # each harness's files checked (and their case ids made one) together
        if fmt in adapters.ADAPTERS:
            adapters.combine(fmt, [f for f, g in zip(frames, formats) if g == fmt])
    refuse_rows_in_two_files(read)
    table, case_input, case_columns = _combined(frames, cases, columns, seen, metrics)
    if not metrics and not ("score" in columns and "passed" not in columns):  # --score-col: the scores are read
        _refuse_mixed_outcomes(read)
    inputs += [case_input] if case_input is not None else []
    _check_role_columns(columns, seen, [frame for _, frame, _, _ in read])
    _require_outcome(table, metrics)
    metadata = tuple(str(c) for c in table.columns
                     if c not in CANONICAL_COLUMNS and c != "doc_hash" and c not in PAIRING_COLUMNS)
    baseline = recorded.pop() if len(recorded) == 1 else None
    if settled and (len(inputs) > 1 or cases is not None):
        raise InputError(f"{settled[0][0]}: a store settled by `releasegate run --settle` is decided by its looks, "
                         "on its own cells and cases: give it alone (no other input, no --cases)")
    by_metric = _judge_by_metric(inputs, [frame for _, frame, _, _ in read], metrics)
    if len(metrics) == 1 and by_metric:
        inputs = list(by_metric[metrics[0]])  # one metric read: the records say what that metric is
    names = tuple(dict.fromkeys(str(frame.attrs["task"]) for _, frame, fmt, _ in read
                                if fmt in adapters.ADAPTERS and frame.attrs.get("task")))
    return LoadedResults(table, tuple(inputs), metadata, tuple(notes), baseline=baseline, metric_inputs=by_metric,
                         case_columns=case_columns, settled=settled[0][1] if settled else None, names=names,
                         excluded=tuple(excluded))


def _add_new(notes: list[str], new: Iterable[str]) -> None:
    """Append the notes of ``new`` not said yet (several files of one harness say the same)."""
    notes += [n for n in new if n not in notes]


def _is_store(path: Path) -> bool:
    """Whether ``path`` is a `releasegate run` store (a directory holding the store's database)."""
    if not path.is_dir():
        return False
    from releasegate.load.store_table import is_store

    return is_store(path)


def _read_store(source: Source, drop_holes: bool) -> StoreInput:
    """A `releasegate run` store read as one input; its records are JSON the run wrote, so a broken one was
    edited."""
    from releasegate.load.store import read_store_input

    try:
        return read_store_input(source.path, source.release, drop_holes)
    except json.JSONDecodeError as exc:
        raise StoreError(f"{source.path}: the store's records are not the JSON a run writes ({exc.msg}); was "
                         "the store edited? run `releasegate run CONFIG` again") from None


def _read_hashed(source: Source, fmt: str, options: AdapterOptions,
                 columns: Mapping[str, str]) -> tuple[pd.DataFrame, Future[str]]:
    """One file read by its adapter (or as a tidy table) and its SHA-256, which is computed in a thread while
    the file is parsed: hashlib lets go of the GIL, so on two cores the 0.15 s per 100 MB of hashing hides
    behind the parse."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=1) as pool:
        digest = pool.submit(sha256_of, source.path)
        frame = _read_one(source, fmt, options, columns)
    return frame, digest


def _canonical_frame(frame: pd.DataFrame, source: Source, fmt: str, options: AdapterOptions,
                     columns: Mapping[str, str], metrics: tuple[str, ...]) -> tuple[pd.DataFrame, str | None]:
    """One file's frame with the canonical columns, one row per release and case (a wide file melted), latency in
    milliseconds and a tidy file's errors read; and the note its errors gave, if any."""
    # category and cluster may come from the case table instead, so only these must be in every file.
    required = ("case_id", "passed", "score", "run") + (("release",) if source.release is None else ())
    if options.wide:
        if source.release is not None:
            raise InputError(f"{source.release}={source.path}: a wide file holds every release; with --wide "
                             "name the release columns (--release-cols), not the file")
        required = ("case_id",)
    if fmt == "tidy" and not options.wide:
        shapes.refuse_samples_export_as_tidy(frame, source.path, columns.get("case_id", "case_id"))
    if not options.wide and "release" not in columns:  # a wide file's own message first
        shapes.refuse_unnamed_wide(frame, source.path, source.release is not None)
    # Every problem of the mapping at once, naming the file's own columns (before any renaming).
    check_columns(frame, columns, source.path, release=source.release is None and not options.wide,
                  outcome=fmt == "tidy" and not options.wide and not metrics)
    frame = rename_columns(frame, columns, source.path, required)
    if fmt in adapters.ADAPTERS:  # a harness field named the category or cluster: its text as a tidy file's
        from releasegate.load.identity import identity_as_text

        identity_as_text(frame, ("category", "cluster"), source.path)
    if options.wide:
        frame = shapes.melt_wide(frame, options.release_cols, source.path)
    else:
        shapes.refuse_unnamed_wide(frame, source.path, source.release is not None)
    frame = shapes.latency_in_ms(frame, options.latency_unit, source.path)
    error_note = None
    if fmt == "tidy":  # an adapter reads its harness's errors itself (docs/inputs.md, errors)
        frame, error_note = shapes.read_errors(frame)
    if source.release is not None and fmt == "tidy":  # an adapter names its releases itself
        renamed = shapes.named_over_column(frame, source.release, str(source.path))
        error_note = " ".join(n for n in (error_note, renamed) if n) or None
        frame["release"] = source.release
    else:
        require_column(frame, "release", source.path, "--release-col", columns.get("release"))
    require_column(frame, "case_id", source.path, "--case-col", columns.get("case_id"))
    return frame, error_note


def _combined(frames: list[pd.DataFrame], cases: Path | pd.DataFrame | None,
              columns: Mapping[str, str], seen: set[str],
              metrics: tuple[str, ...] = ()) -> tuple[pd.DataFrame, InputFile | None, tuple[str, ...]]:
    """The files (checked together by their adapters) concatenated, and joined with the case table when there is
    one: the table, the case table's record and the columns it joined."""
    table = pd.concat(frames, ignore_index=True, sort=False) if len(frames) > 1 else frames[0]
    if cases is None:
        return table, None, ()
    before = set(table.columns)
    table, case_input = join_cases(table, cases, columns, seen, metrics)
    return table, case_input, tuple(str(c) for c in table.columns if c not in before)


def _check_role_columns(columns: Mapping[str, str], seen: set[str], frames: list[pd.DataFrame]) -> None:
    """A category or cluster column named (--category-col, --cluster-col) that is in none of the files is
    refused, listing the columns present and the cases' metadata fields the adapters found."""
    fields = sorted({f for frame in frames for f in frame.attrs.get("metadata_fields", ())})
    for role in ("category", "cluster"):
        given = columns.get(role)
        if given and given != role and given not in seen:
            raise InputError(f"column {given!r} ({COLUMN_FLAGS[role]}) is in none of the files; columns present: "
                             f"{', '.join(sorted(seen - set(PAIRING_COLUMNS)))}"
                             + (f"; the cases' metadata fields: {', '.join(fields)}" if fields else ""))


def _refuse_mixed_outcomes(read: list[Any]) -> None:
    """Files of pass/fail outcomes beside files of scores only: concatenated, the scores' rows would have no
    pass/fail value and be refused as missing outcomes (or counted as failures, or dropped) under a count that
    says nothing of why. One gate compares one kind of outcome: refused naming a file of each."""
    passed = [(path, frame) for path, frame, _, _ in read if "passed" in frame.columns]
    scored = [(path, frame) for path, frame, _, _ in read if "passed" not in frame.columns and "score" in frame.columns]
    if passed and scored:
        (first, one), (second, other) = passed[0], scored[0]
        raise InputError(f"{first} holds pass/fail outcomes ({_releases(one)}) and {second} scores only "
                         f"({_releases(other)}): one gate compares one kind of outcome; give every file a passed "
                         "column, or read the scores of every file (--score-col score, --pass-threshold to pass them)")


def _releases(frame: pd.DataFrame) -> str:
    names = list(dict.fromkeys(map(str, frame["release"].dropna()))) if "release" in frame.columns else []
    return ", ".join(repr(n) for n in names[:3]) or "no release named"


def _require_outcome(table: pd.DataFrame, metrics: tuple[str, ...]) -> None:
    """Without --metric the table needs a passed or score column: refused naming the closest column."""
    if "passed" not in table.columns and "score" not in table.columns and not metrics:
        present = ", ".join(str(c) for c in table.columns)
        close = plausible_match("passed", [str(c) for c in table.columns])
        hint = f"; closest match {close!r} (use --passed-col {close})" if close else ""
        raise InputError(f"no outcome column: need 'passed' (0/1) or 'score'; columns present: {present}{hint}")


def _conditional_notes(frame: pd.DataFrame, columns: Mapping[str, str]) -> list[str]:
    """An adapter's notes that hold only for one reading: on the pass/fail column (``passed_notes``), unless the
    user named the score column instead; on the category found in the cases' metadata (``category_note``),
    unless the user named another column as the category."""
    reads_score = "score" in columns and "passed" not in columns
    found = [] if reads_score else list(frame.attrs.get("passed_notes", ()))
    category = frame.attrs.get("category_note")
    return found + ([category] if category and columns.get("category") in (None, "category") else [])


def _judge_by_metric(inputs: list[InputFile], frames: list[pd.DataFrame],
                     metrics: tuple[str, ...]) -> dict[str, tuple[InputFile, ...]]:
    """Each metric's records when an adapter says per named metric which are a judge's (promptfoo's named
    scores): a record's ``judge`` is that metric's own, not the file's; empty when no frame says."""
    judged = [frame.attrs.get("judge_metrics") for frame in frames]
    if not metrics or not any(isinstance(j, dict) for j in judged):
        return {}
    out = {}
    for metric in metrics:
        records = [record if not isinstance(j, dict) or metric == "success" else
                   dataclasses.replace(record, judge=j.get(metric))
                   for record, j in zip(inputs, judged)]
        out[metric] = tuple(records + inputs[len(judged):])  # a case table's record after the files'
    return out
