"""What was read from each file, for the provenance: the InputFile record with the adapter's choices.

Also the check that every harness file of one task was read the same way (one scorer, reducer, metric, filter,
few-shot count): otherwise a release scored by one grader would be compared with another scored by another. And
the check that a release comes from one file: two harness files of one release and task (two Inspect logs
of one model, the same promptfoo provider in two runs) would otherwise be concatenated into duplicate rows,
refused later without saying which files to name; and, for any files, the same row in two of them.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pandas as pd

from releasegate.errors import BadValueError, InputError
from releasegate.model import InputFile

HARNESS_FORMATS = ("inspect", "lm-eval", "promptfoo", "openai-evals", "inspect-samples")


def input_record(path: Path, sha256: str, frame: pd.DataFrame, fmt: str, release: str | None) -> InputFile:
    """The provenance of one file; a harness file also records its tool, release key, scorer, metric, filter."""
    attrs = frame.attrs if fmt in HARNESS_FORMATS else {}
    choices = {key: (str(attrs[key]) if attrs.get(key) else None)
               for key in ("harness", "release_key", "scorer", "metric", "filter", "direction", "reducer",
                           "judge")}
    return InputFile(str(path), sha256, int(frame.shape[0]), fmt, release, **choices)


def check_one_file_per_release(read: list[tuple[Path, pd.DataFrame, str, str | None]]) -> None:
    """Refuse a (release, task) read from two harness files none of which is named: suggest NAME=path."""
    owner: dict[tuple[str, str, str], Path] = {}
    for path, frame, fmt, named in read:
        if fmt not in HARNESS_FORMATS or named is not None or "release" not in frame.columns:
            continue
        task = str(frame.attrs.get("task") or "")
        for release in dict.fromkeys(frame["release"]):
            key = (fmt, str(release), task)
            if key in owner and owner[key] != path:
                first = owner[key]
                raise InputError(f"{first} and {path} both hold release {release!r}"
                                 + (f" (task {task})" if task else "") + ": name each file's release, e.g. "
                                 f"base={first} cand={path}")
            owner[key] = path


# The choices that make an outcome what it is, as the adapters record them in a frame's attrs, and what to do when
# two files of one task differ in one. The direction and the few-shot count are compared when both files state them
# (a results file written before lm-eval recorded them says nothing).
_READING = {
    "scorer": "score every log with the same scorer (inspect score), or choose one they all hold with --scorer",
    "reducer": "reduce every log's epochs the same way: --reducer NAME (mean keeps each epoch as a run)",
    "metric": "choose one metric they all hold with --metric",
    "filter": "choose one filter they all hold with --filter",
    "n_shot": "run every release with the same --num_fewshot",
    "direction": "read them with results files that agree on higher_is_better",
}
_STATED_ONLY = ("direction", "n_shot")


def refuse_export_beside_log(read: list[tuple[Path, pd.DataFrame, str, str | None]]) -> None:
    """Refuse an Inspect ``samples_df`` export read beside an Inspect log it shares samples with (the log its
    ``log`` column names, or one holding a release it holds): each sample would be read twice. And one beside a
    log whose epochs are reduced (one outcome per sample), where the export keeps every epoch as a run: the
    releases would be measured two ways. Each names the export for what it is and what to give instead."""
    logs = [(path, frame) for path, frame, fmt, _ in read if fmt == "inspect"]
    for export_path, export, fmt, _ in read:
        if fmt != "inspect-samples":
            continue
        held = set(map(str, export["release"].dropna().unique()))
        for log_path, log in logs:
            shared = sorted(held & set(map(str, log["release"].dropna().unique())))
            if log_path.name in export.attrs.get("logs", ()) or shared:
                why = (f"exported from {log_path}" if log_path.name in export.attrs.get("logs", ())
                       else f"holding release {shared[0]!r} as {log_path} does")
                raise InputError(f"{export_path} is an Inspect samples_df export (one row per sample and epoch), "
                                 f"{why}: each sample would be read twice; give the logs instead of the export (each "
                                 "read with the epochs reducer it was run with), or the export alone (each epoch a "
                                 "run)")
            if log.attrs.get("reducer"):
                raise InputError(f"{log_path} reduces each sample's epochs by {log.attrs['reducer']} (one outcome "
                                 f"per sample) and {export_path} is an Inspect samples_df export, which keeps every "
                                 "epoch as a run: the releases would be measured two ways; give the logs of every "
                                 "release (Inspect's reducers applied alike), or the samples_df export of every log")


def refuse_rows_in_two_files(read: list[tuple[Path, pd.DataFrame, str, str | None]]) -> None:
    """Refuse the same (release, case_id[, run][, metric]) in two files, naming both files and the first such row:
    concatenated, the rows would be refused as duplicates under a count that names neither file. Only files that
    share a release are compared (files of one release each cost one look at their release names); files that
    hold one release between them are left to validation's refusal, which says to name each file's release."""
    if len(read) < 2:
        return  # one file: its own rows twice are validation's duplicates
    releases = [set(map(str, frame["release"].dropna().unique())) if {"release", "case_id"} <= set(frame.columns)
                else set() for _, frame, _, _ in read]
    if len(set().union(*releases)) < 2:
        return  # one release in every file: two files of one model, which validation asks to name (NAME=path)
    for a, b in itertools.combinations(range(len(read)), 2):
        shared = sorted(releases[a] & releases[b])
        if not shared:
            continue
        (first, one, _, _), (second, other, _, _) = read[a], read[b]
        # run and metric are part of a row's key when both files have them (one without is refused later)
        keys = ["release", "case_id"] + [k for k in ("run", "metric") if k in one.columns and k in other.columns]
        both = _keys(one, keys, shared).merge(_keys(other, keys, shared).drop_duplicates(), on=keys, how="inner")
        if len(both):
            row = both.iloc[0]
            named = ", ".join(f"{k} {row[k]!r}" if k != "run" else f"run {row[k]:g}" for k in keys)
            raise BadValueError(f"{first} and {second} both hold the row of {named}"
                                + (f" ({len(both):,} such rows)" if len(both) > 1 else "")
                                + ": each row is one outcome, given once; drop one file's copy, or, if one file is "
                                f"another release (a rerun), name its release (NAME={second})")


def _keys(frame: pd.DataFrame, keys: list[str], releases: list[str]) -> pd.DataFrame:
    """The key columns of ``frame``'s rows of ``releases``, as text (a run as a number), in the file's order."""
    rows = frame.loc[frame["release"].astype(str).isin(releases), keys]
    out = pd.DataFrame({k: rows[k].astype(str) for k in keys if k != "run"})
    if "run" in keys:
        out["run"] = pd.to_numeric(rows["run"], errors="coerce")
    return out[keys].dropna().reset_index(drop=True)  # a missing run is refused later, as in one file


def check_one_reading(read: list[tuple[Path, pd.DataFrame, str, str | None]]) -> None:
    """Refuse two harness files of one format and task read with other choices (scorer, epochs reducer, metric,
    filter, few-shot count): their outcomes are other measurements of the cases, so no difference between them is
    the releases'. Names both files, their releases and the two values."""
    first: dict[tuple[str, str], tuple[Path, pd.DataFrame]] = {}
    for path, frame, fmt, _ in read:
        if fmt not in HARNESS_FORMATS:
            continue
        task = str(frame.attrs.get("task") or "")
        earlier = first.setdefault((fmt, task), (path, frame))
        if earlier[1] is frame:
            continue
        for key, hint in _READING.items():
            old, new = (_choice(f, key) for f in (earlier[1], frame))
            if old != new and not (key in _STATED_ONLY and (old is None or new is None)):
                raise InputError(f"{_named(earlier[0], earlier[1])} and {_named(path, frame)} read "
                                 + (f"task {task} " if task else "the same cases ")
                                 + f"with other {key.replace('_', '-')}s ({old or 'none'} and {new or 'none'}): "
                                 "their outcomes are other measurements, and no difference between them is the "
                                 f"releases'; {hint}")


def _choice(frame: pd.DataFrame, key: str) -> str | None:
    value = frame.attrs.get(key)
    if key == "reducer" and value in (None, ""):
        return "mean"  # no reducer applied: each epoch a run, Inspect's mean
    return str(value) if value not in (None, "") else None


def _named(path: Path, frame: pd.DataFrame) -> str:
    releases = list(dict.fromkeys(map(str, frame["release"]))) if "release" in frame.columns else []
    return f"{path}" + (f" ({', '.join(releases[:3])})" if releases else "")
