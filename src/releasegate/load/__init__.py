"""Stage 1: files -> one tidy table with canonical column names, and the provenance of every file."""

from __future__ import annotations

import difflib
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from releasegate.errors import InputError
from releasegate.load import shapes
from releasegate.model import InputFile
from releasegate.policy import CANONICAL_COLUMNS

FORMATS = ("auto", "tidy", "inspect", "lm-eval", "promptfoo")


@dataclass(frozen=True)
class Source:
    """One results file, optionally named for the release it holds (``NAME=path``)."""

    path: Path
    release: str | None = None


@dataclass(frozen=True)
class AdapterOptions:
    """Harness-specific choices (see docs/inputs.md)."""

    format: str = "auto"
    scorer: str | None = None
    metric: str | None = None
    filter_name: str | None = None
    category_field: str | None = None
    release_by: str = "provider"
    # Input shapes (load/shapes.py): a wide file's release columns, and the latency column's unit.
    wide: bool = False
    release_cols: tuple[str, ...] = ()
    latency_unit: str = "ms"


@dataclass(frozen=True)
class LoadedResults:
    """The tidy table (canonical names; other columns are case metadata) and the files it came from."""

    table: pd.DataFrame
    inputs: tuple[InputFile, ...]
    metadata_columns: tuple[str, ...]
    notes: tuple[str, ...] = field(default_factory=tuple)


def parse_source(text: str) -> Source:
    """``NAME=path`` names the release of a file; a plain path does not (an existing path always wins)."""
    if "=" in text and not Path(text).exists():
        name, _, path = text.partition("=")
        if name.strip() and path.strip():
            return Source(Path(path.strip()), name.strip())
    return Source(Path(text))


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _check_file(path: Path) -> None:
    if not path.exists():
        raise InputError(f"file not found: {path}")
    if path.is_dir():
        raise InputError(f"{path} is a directory; give the results file(s) inside it")
    if path.stat().st_size == 0:
        raise InputError(f"{path}: the file is empty")


def _read_one(source: Source, options: AdapterOptions) -> tuple[pd.DataFrame, str]:
    """Read one file with the adapter its content calls for (or the one forced by --format)."""
    fmt = options.format
    if fmt == "auto":
        from releasegate.load.adapters import detect_format

        fmt = detect_format(source.path)
    if fmt == "inspect":
        from releasegate.load.adapters.inspect_ai import read_inspect

        frame = read_inspect(source.path, release=source.release, scorer=options.scorer,
                             category_field=options.category_field)
    elif fmt == "lm-eval":
        from releasegate.load.adapters.lm_eval import read_lm_eval

        frame = read_lm_eval(source.path, release=source.release, metric=options.metric,
                             filter_name=options.filter_name)
    elif fmt == "promptfoo":
        from releasegate.load.adapters.promptfoo import read_promptfoo

        frame = read_promptfoo(source.path, release=source.release, release_by=options.release_by)
    else:
        from releasegate.load.tidy import read_tidy

        frame = read_tidy(source.path)
    return frame, fmt


FLAGS = {"release": "--release-col", "case_id": "--case-col", "passed": "--passed-col", "score": "--score-col",
         "category": "--category-col", "cluster": "--cluster-col", "run": "--run-col"}


def _rename(frame: pd.DataFrame, columns: Mapping[str, str], path: Path,
            required: tuple[str, ...] = ()) -> pd.DataFrame:
    """Map the user's column names onto the canonical ones (``[columns]`` / ``--case-col`` ...).

    A column named for a role in ``required`` must exist: otherwise a file that happens to hold a column of
    the canonical name would be read from that column instead, silently.
    """
    mapping = {}
    for canonical, given in columns.items():
        if given == canonical:
            continue
        if given in frame.columns:
            mapping[given] = canonical
        elif canonical in required:
            require_column(frame, given, path, FLAGS.get(canonical, "[columns]"))
    if not mapping:
        return frame
    # A column already called by the canonical name gives way to the one the user chose.
    clash = [c for c in mapping.values() if c in frame.columns and c not in mapping]
    return frame.drop(columns=clash).rename(columns=mapping)


def require_column(frame: pd.DataFrame, canonical: str, path: Path | str, flag: str, given: str | None = None) -> None:
    """Fail with the columns present and the closest match when a required column is absent."""
    name = given or canonical
    if canonical in frame.columns:
        return
    present = [str(c) for c in frame.columns]
    close = difflib.get_close_matches(name, present, n=1, cutoff=0.5)
    hint = f"; closest match {close[0]!r} (use {flag} {close[0]})" if close else f" (name it with {flag})"
    raise InputError(f"{path}: missing required column {name!r}; columns present: {', '.join(present)}{hint}")


def load_results(
    sources: list[Source],
    *,
    columns: Mapping[str, str] | None = None,
    cases: Path | None = None,
    options: AdapterOptions | None = None,
) -> LoadedResults:
    """Read every source, name the release of each row, join the case table, and record provenance.

    Several files are concatenated; ``NAME=path`` sets the release of every row of that file.
    """
    options = options or AdapterOptions()
    if not sources:
        raise InputError("no results file given")
    columns = dict(columns or {})
    if options.release_cols and not options.wide:
        raise InputError("--release-cols names the release columns of a wide file: add --wide")
    frames, inputs = [], []
    seen: set[str] = set()  # every column name of every file, before renaming
    for source in sources:
        _check_file(source.path)
        frame, fmt = _read_one(source, options)
        frame = shapes.resolve_dotted(frame, columns.values(), source.path)
        seen.update(map(str, frame.columns))
        # category and cluster may come from the case table instead, so only these must be in every file.
        required = ("case_id", "passed", "score", "run") + (("release",) if source.release is None else ())
        if options.wide:
            if source.release is not None:
                raise InputError(f"{source.release}={source.path}: a wide file holds every release; with --wide "
                                 "name the release columns (--release-cols), not the file")
            required = ("case_id",)
        frame = _rename(frame, columns, source.path, required)
        if options.wide:
            frame = shapes.melt_wide(frame, options.release_cols, source.path)
        else:
            shapes.refuse_unnamed_wide(frame, source.path, source.release is not None)
        frame = shapes.latency_in_ms(frame, options.latency_unit, source.path)
        if source.release is not None:
            frame["release"] = source.release
        else:
            require_column(frame, "release", source.path, "--release-col", columns.get("release"))
        require_column(frame, "case_id", source.path, "--case-col", columns.get("case_id"))
        frames.append(frame)
        release = source.release
        inputs.append(InputFile(str(source.path), sha256_of(source.path), int(frame.shape[0]), fmt, release))
    shapes.refuse_same_file_twice(inputs)
    _check_same_task(frames)
    _qualify_lm_eval_cases(frames)
    table = pd.concat(frames, ignore_index=True, sort=False) if len(frames) > 1 else frames[0]
    if cases is not None:
        table, case_input = _join_cases(table, cases, columns, seen)
        inputs.append(case_input)
    for role in ("category", "cluster"):
        given = columns.get(role)
        if given and given != role and given not in seen:
            raise InputError(f"column {given!r} ({FLAGS[role]}) is in none of the files; columns present: "
                             f"{', '.join(sorted(seen))}")
    if "passed" not in table.columns and "score" not in table.columns:
        present = ", ".join(str(c) for c in table.columns)
        close = difflib.get_close_matches("passed", [str(c) for c in table.columns], n=1, cutoff=0.5)
        hint = f"; closest match {close[0]!r} (use --passed-col {close[0]})" if close else ""
        raise InputError(f"no outcome column: need 'passed' (0/1) or 'score'; columns present: {present}{hint}")
    metadata = tuple(str(c) for c in table.columns if c not in CANONICAL_COLUMNS and c != "doc_hash")
    return LoadedResults(table, tuple(inputs), metadata)


def _check_same_task(frames: list[pd.DataFrame]) -> None:
    """Harness logs of different tasks are not the same cases; comparing them would pair unrelated items."""
    tasks = {f.attrs.get("task") for f in frames if f.attrs.get("task") and f.attrs.get("source_format") == "inspect"}
    if len(tasks) > 1:
        raise InputError(f"the Inspect logs are of different tasks ({', '.join(sorted(tasks))}); compare logs of one task")
    lm_frames = [f for f in frames if "doc_hash" in f.columns]
    if len(lm_frames) > 1:
        from releasegate.load.adapters.lm_eval import check_doc_hashes

        check_doc_hashes(lm_frames)


def _qualify_lm_eval_cases(frames: list[pd.DataFrame]) -> None:
    """lm-eval numbers documents from 0 in every task: with several tasks, a case is "task/doc_id"."""
    tasks = {f.attrs.get("task") for f in frames if f.attrs.get("source_format") == "lm-eval"}
    if len(tasks) > 1:
        for frame in frames:
            if frame.attrs.get("source_format") == "lm-eval":
                frame["case_id"] = frame.attrs["task"] + "/" + frame["case_id"].astype(str)


def _join_cases(table: pd.DataFrame, path: Path, columns: Mapping[str, str],
                seen: set[str]) -> tuple[pd.DataFrame, InputFile]:
    """Join a case table (case_id plus attributes such as category, cluster, input) onto the results."""
    from releasegate.load.tidy import read_tidy

    _check_file(path)
    cases = read_tidy(path)
    seen.update(map(str, cases.columns))
    cases = _rename(cases, {k: v for k, v in columns.items() if k not in ("release",)}, path, ("case_id",))
    require_column(cases, "case_id", path, "--case-col", columns.get("case_id"))
    if cases["case_id"].isna().any() or (cases["case_id"] == "").any():
        raise InputError(f"{path}: blank case_id in the case table")
    dup = cases["case_id"][cases["case_id"].duplicated()]
    if len(dup):
        raise InputError(f"{path}: case table lists {len(dup)} case_id(s) twice, e.g. {', '.join(map(str, dup[:3]))}")
    shared = [c for c in cases.columns if c != "case_id" and c in table.columns]
    if shared:
        merged = table[["case_id", *shared]].merge(cases[["case_id", *shared]], on="case_id", how="inner",
                                                     suffixes=("", "__case"))
        for column in shared:
            left, right = merged[column].astype(str), merged[f"{column}__case"].astype(str)
            differ = merged.loc[left != right, "case_id"]
            if len(differ):
                raise InputError(f"{path}: column {column!r} disagrees with the results for {differ.nunique()} case(s), "
                                 f"e.g. {', '.join(map(str, differ.unique()[:3]))}")
        cases = cases.drop(columns=shared)
    unknown = ~table["case_id"].isin(cases["case_id"])
    if unknown.any():
        ids = table.loc[unknown, "case_id"].unique()
        raise InputError(f"{len(ids)} result case_id(s) are not in the case table {path}, "
                         f"e.g. {', '.join(map(str, ids[:3]))}")
    joined = table.merge(cases, on="case_id", how="left", sort=False)
    return joined, InputFile(str(path), sha256_of(path), int(cases.shape[0]), "cases")
