"""Read an Inspect ``samples_df`` export (``samples_df(logs).to_csv(...)`` / ``.to_parquet(...)``) into the tidy table.

Inspect's dataframe of samples has one row per (sample, epoch) with ``sample_id`` (Inspect's uuid), ``eval_id``,
``id`` (the sample's own id), ``epoch``, a ``score_<scorer>`` column per scorer and ``metadata_<field>`` columns.
Read as a tidy table its scores ``C``/``I`` were refused and the ``--wide`` hint named non-release columns (issue
31, item 9). Here, as for a log: ``case_id`` is ``id``, ``run`` is ``epoch``, the score letters map as Inspect's
``value_to_float`` does (C 1, P 0.5, I and N 0; ``passed`` is 1 for C only), ``--scorer NAME`` picks
``score_NAME``, ``--category-field F`` the ``metadata_F`` column. The release is the ``model`` column when the
export has one (``columns=SampleSummary + EvalModel``), else the one model each row's ``model_usage`` names, else
``NAME=path``. The export holds no epochs reducer: epochs are runs (Inspect's default, mean).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd

from releasegate.errors import InputError
from releasegate.load.adapters import inspect_notes as notes
from releasegate.load.adapters.inspect_ai import _RESERVED, _convert
from releasegate.load.fingerprint import CONTENT_COLUMN, KIND_COLUMN, POSITION_COLUMN, text_fingerprint
from releasegate.text import clip as _clip


def read_samples_frame(path: Path, *, release: str | None = None, scorer: str | None = None,
                       category_field: str | None = None) -> pd.DataFrame:
    from releasegate.load.identity import as_text
    from releasegate.load.tidy import read_tidy

    path = Path(path)
    source = read_tidy(path, text_columns=("id", "eval_id", "sample_id", "input", "target"), case_column="id",
                       texts=("input", "target"))
    scores = [c.removeprefix("score_") for c in source.columns if c.startswith("score_")]
    if scorer is None and len(scores) > 1:
        raise InputError(f"{path}: the export carries {len(scores)} scorers ({', '.join(scores)}); choose one with "
                         "--scorer")
    chosen = scorer or scores[0]
    if chosen not in scores:
        raise InputError(f"{path}: no scorer {chosen!r} (no column score_{chosen}); available scorers: "
                         f"{', '.join(scores)}")
    converted = [_value(path, row, v) for row, v in enumerate(source["score_" + chosen].tolist(), start=2)]
    errored = source["error"].notna() & (source["error"].astype(str).str.strip() != "") \
        if "error" in source.columns else pd.Series(False, index=source.index)
    frame = pd.DataFrame({"release": _releases(path, source, release), "case_id": source["id"].astype(str),
                          "run": _epochs(path, source["epoch"])})
    numeric = any(n for _, _, n in converted)
    if not numeric:
        frame["passed"] = [p for p, _, _ in converted]
    frame["score"] = [s for _, s, _ in converted]
    frame.loc[errored, [c for c in ("passed", "score") if c in frame.columns]] = float("nan")
    if category_field:
        column = "metadata_" + category_field
        if column not in source.columns:
            fields = sorted(c.removeprefix("metadata_") for c in source.columns if c.startswith("metadata_"))
            raise InputError(f"{path}: no metadata field {category_field!r} (column {column}); metadata fields: "
                             f"{', '.join(fields) or 'none'}")
        frame["category"] = as_text(source[column])  # as a tidy file's category: "true", and missing kept
    for column in [c for c in source.columns if c.startswith("metadata_")]:
        name = column.removeprefix("metadata_")  # case metadata, as a log's metadata fields are
        if name not in frame.columns and name not in _RESERVED:
            frame[name] = source[column].map(lambda v: None if isinstance(v, float) and pd.isna(v) else v)
    if "total_time" in source.columns:
        frame["latency_ms"] = pd.to_numeric(source["total_time"], errors="coerce") * 1000.0
    frame[CONTENT_COLUMN] = _content(source)
    # The export's input is Inspect's rendering of the messages ("user:\nSay the word w1.\n"), not the sample's
    # input text: compared with other exports only, never with a log's or a tidy file's input.
    frame[KIND_COLUMN] = "inspect-samples"
    # Inspect numbers the samples of a dataset without ids 1..N; the export writes them as integers.
    frame[POSITION_COLUMN] = source["id"].astype(str).str.fullmatch(r"[0-9]+").to_numpy(bool)
    for column in ("input", "target", "error"):
        if column in source.columns and source[column].notna().any():
            frame[column] = source[column].map(_clip, na_action="ignore")
    frame.attrs.update(task="", source_format="inspect-samples", scorer=chosen,
                       harness="inspect-ai samples_df export",
                       release_key="NAME=" if release else ("model" if "model" in source.columns else "model_usage"))
    fields = sorted(c.removeprefix("metadata_") for c in source.columns if c.startswith("metadata_"))
    frame.attrs.update({"metadata_fields": fields} if fields else {})
    if "log" in source.columns:  # the logs it was exported from, by file name (the folder is the exporter's)
        frame.attrs["logs"] = tuple(sorted({Path(str(v)).name for v in source["log"].dropna().tolist()}))
    if not category_field and "category" in frame.columns:
        frame.attrs["category_note"] = notes.category_from_metadata(
            "Inspect samples_df export " + path.name, frame[["category"]].to_dict("records"))
    if "passed" in frame.columns:
        values = [{"_value": v, "error": e} for v, e in zip(source["score_" + chosen].tolist(), errored.tolist())]
        partial = notes.partial_credit(f"Inspect samples_df export {path.name}", chosen, values)
        frame.attrs.update({"passed_notes": (partial,)} if partial else {})
    if frame.groupby(["release", "case_id"]).size().max() > 1:
        frame.attrs["notes"] = (f"{path.name}: Inspect's samples_df export holds no epochs reducer: each epoch is a run "
                                "and a case is its mean over them (Inspect's default reducer); a log read directly "
                                "applies the reducer it was run with.",)
    return frame


def _content(source: pd.DataFrame) -> list[str | None]:
    """Each row's content fingerprint from the export's input and target texts (None where it has neither)."""
    texts = [source[c].tolist() if c in source.columns else [None] * len(source) for c in ("input", "target")]
    return [None if all(v is None or (isinstance(v, float) and pd.isna(v)) for v in pair)
            else text_fingerprint(*pair)
            for pair in zip(*texts)]


def _epochs(path: Path, epochs: pd.Series) -> pd.Series:
    """The ``epoch`` column as whole numbers from 1; any other value is refused, naming its row. A column, where
    a log's check (inspect_ai._epoch) is of one JSON value: text read as its number, as a CSV holds it; a boolean
    refused there and here (True is an int to Python, never an epoch)."""
    numbers = pd.to_numeric(epochs.map(lambda v: v if isinstance(v, (int, float, str)) and not isinstance(v, bool)
                                       else None), errors="coerce")
    bad = numbers.isna() | (numbers < 1) | (numbers != numbers.round()) | (numbers > 2**31)
    if bad.any():
        row = int(bad.to_numpy().argmax())
        raise InputError(f"{path}: row {row + 2}: epoch {_clip(str(epochs.iloc[row]), 40)!r} is not a whole number "
                         "from 1; the samples_df export numbers each sample's epochs 1, 2, ...")
    return numbers.astype("int64")


def _value(path: Path, row: int, value: Any) -> tuple[float, float, bool]:
    if isinstance(value, float) and pd.isna(value):
        return float("nan"), float("nan"), False
    try:
        return _convert(value.item() if hasattr(value, "item") else value)
    except InputError as exc:
        raise InputError(f"{path}: row {row}: {exc}") from None


def _releases(path: Path, source: pd.DataFrame, release: str | None) -> list[str]:
    if release:
        return [release] * len(source)
    if "model" in source.columns:
        return source["model"].astype(str).tolist()
    if "model_usage" in source.columns:
        names = []
        for text in source["model_usage"].tolist():
            try:
                usage = json.loads(text) if isinstance(text, str) else {}
            except (ValueError, RecursionError):
                usage = {}
            names.append(list(usage) if isinstance(usage, dict) else [])
        if all(len(n) == 1 for n in names):
            return [n[0] for n in names]
    evals = source["eval_id"].nunique()
    raise InputError(f"{path}: the samples_df export names no model (no model column, and model_usage does not name "
                     f"one model per row) for its {evals} eval(s); export with columns=SampleSummary + EvalModel so "
                     "that each row names its model" + (", or name the release (NAME=path)" if evals == 1 else ""))


read = read_samples_frame
