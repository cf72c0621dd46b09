"""Input shapes other than the tidy one, brought to it before the columns are renamed (docs/inputs.md):

- the wide layout: one row per case, one outcome column per release (``--wide --release-cols r1,r2``); a wide
  file read as tidy is recognised and refused with the flags to use, never read as one release;
- the same file named twice (``r1=wide.csv r2=wide.csv``, ``base=log.eval cand=log.eval``): it would compare a
  release with itself and show no change at all, a SHIP for anything; refused;
- dotted paths into nested JSON records (``--passed-col scores.correct``, ``--latency-col timing.latency``);
- ``NAME=path`` on a file whose own release column names another release (renamed, said in a note) or several
  (refused: they would be pooled into one);
- a latency in seconds (``--latency-unit s``, or a column called ``latency_s``), kept as milliseconds.

Each hook is a function of one frame; load_results calls them in that order.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path

import pandas as pd

from releasegate.errors import InputError
from releasegate.model import InputFile
from releasegate.policy import CANONICAL_COLUMNS

LATENCY_UNITS = {"ms": 1.0, "s": 1000.0}
_BOOLEAN_WORDS = {"0", "1", "0.0", "1.0", "true", "false", "pass", "fail", "passed", "failed", "yes", "no"}


def resolve_dotted(frame: pd.DataFrame, names: Iterable[str], path: Path) -> pd.DataFrame:
    """Add a column for each dotted name (``scores.correct``) that is not a column already, by walking the
    nested records of its first part. A path no record has is an error naming the keys that are there."""
    used: set[str] = set()
    wanted = [n for n in names if n]
    for name in dict.fromkeys(n for n in wanted if "." in n):
        head, *rest = name.split(".")
        if head not in frame.columns:
            continue  # not a nested path after all: the missing column is reported where it is required
        values = frame[head].tolist()
        for key in rest:
            values = [v.get(key) if isinstance(v, dict) else None for v in values]
        if name in frame.columns:
            if any(v is not None for v in values):  # issue 28, item 5: two values under one name
                raise InputError(f"{path}: {name!r} is both a key of its own and the field {rest[-1]!r} inside "
                                 f"{head!r}: which one is meant cannot be told; rename one of them")
            continue
        if all(v is None for v in values):
            raise InputError(f"{path}: no record has {name!r}; the fields under {head!r} are: "
                             f"{', '.join(_keys(frame[head], rest[:-1])) or 'none (not nested records)'}")
        inner = next((v for v in values if isinstance(v, (dict, list))), None)
        if inner is not None:  # issue 28, item 12: a category, outcome or latency is one value, not a record
            fields = ", ".join(map(str, inner)) if isinstance(inner, dict) else "a list"
            raise InputError(f"{path}: {name!r} holds JSON {'objects' if isinstance(inner, dict) else 'lists'} "
                             f"(fields: {fields[:80]}), not single values: name a field inside it")
        frame = frame.assign(**{name: values})
        used.add(head)
    # The records a path went into are read through it; other nested values are kept as their JSON text, so
    # that every metadata value is text (a dict can be neither compared nor shown).
    frame = frame.drop(columns=sorted(used))
    # Roles (canonical or named by the user) keep their values: validation refuses a record there by name.
    roles = set(CANONICAL_COLUMNS) | set(wanted)
    # Every value of a column of Python objects is looked at: a record first seen past the first thousand rows
    # stayed a dict, which later steps could not compare. Text and number columns hold none and are not scanned.
    return nested_as_text(frame, [c for c in frame.columns if c not in roles])


def nested_as_text(frame: pd.DataFrame, columns: Iterable[str]) -> pd.DataFrame:
    """Each of ``columns`` holding a JSON object or list with those values as their JSON text: a dict can be
    neither compared, grouped nor shown. Only columns of Python objects can hold one, and only they are scanned."""
    for column in columns:
        if frame[column].dtype == object and any(isinstance(v, (dict, list)) for v in frame[column]):
            frame[column] = frame[column].map(lambda v: json.dumps(v, ensure_ascii=False)
                                              if isinstance(v, (dict, list)) else v)
    return frame


def _keys(series: pd.Series, inner: Sequence[str]) -> list[str]:
    keys: dict[str, None] = {}
    for value in series.head(1000):
        for key in inner:
            value = value.get(key) if isinstance(value, dict) else None
        if isinstance(value, dict):
            keys.update(dict.fromkeys(map(str, value)))
    return list(keys)[:20]


# An error column's values that say "no error" (a JSON false, 0, or the words); issue 28 item 18.
_NO_ERROR = {"", "false", "0", "0.0", "no", "none", "null", "nan", "n/a"}
_ERROR_FLAG = {"true", "1", "1.0", "yes"}


_FAIL_WORDS = {"0", "0.0", "false", "fail", "failed", "no", "n", "f"}


def read_errors(frame: pd.DataFrame) -> tuple[pd.DataFrame, str | None]:
    """A tidy file's ``error`` column as errors only where its value is one (docs/inputs.md, errors):

    - false, 0, no, none, null (JSON or text) is no error; true or 1 is an error without a message;
    - a text is an error (the cell errored: SPEC 3.1), except when the column has the shape of a grader's reasons:
      a text on every failing row (``passed`` 0) and on no other row. promptfoo writes a failed assertion's reason
      into ``error``, and read as errors those reasons took every failure out of the comparison (issue 34, item
      4); then the texts are kept as ``reason`` and the rows stay graded fails, said in a note.
    Returns the frame and that note when the texts were read as reasons."""
    if "error" not in frame.columns:
        return frame, None
    raw = frame["error"]
    text = raw.astype(object).where(raw.notna(), "").map(lambda v: str(v).strip())
    lowered = text.str.lower()
    flag = raw.map(lambda v: isinstance(v, bool) and v) | lowered.isin(_ERROR_FLAG)
    none = lowered.isin(_NO_ERROR) | raw.map(lambda v: v is False)
    error = text.where(~none, None).where(~flag, "error (flagged true, no message)")
    frame = frame.assign(error=error)
    if "passed" not in frame.columns or flag.any():
        return frame, None
    passed = frame["passed"]
    failing = passed.notna() & passed.astype(str).str.strip().str.lower().isin(_FAIL_WORDS)
    texts = error.notna()
    if not failing.any() or not (texts == failing).all():
        return frame, None
    reasons = text.where(texts, None)
    if "reason" in frame.columns:
        reasons = frame["reason"].where(frame["reason"].notna(), reasons)
    return frame.assign(error=None, reason=reasons), (
        f"The error column holds a text on every failing row ({int(failing.sum())}) and on no other: read as the "
        "grader's reasons for those failures (kept as reason), not as errors.")


def looks_boolean(series: pd.Series) -> bool:
    """Every present value is a pass/fail word or 0/1 (and at least one is present)."""
    present = series.dropna()
    if present.empty:
        return False
    return bool(present.astype(str).str.strip().str.lower().isin(_BOOLEAN_WORDS).all())


def melt_wide(frame: pd.DataFrame, release_columns: Sequence[str], path: Path) -> pd.DataFrame:
    """One row per case with an outcome column per release -> one row per (release, case).

    The released columns' values become ``passed`` when they are pass/fail, else ``score``; every other
    column (case_id, category, input, ...) is an attribute of the case, repeated for each release.
    """
    if len(release_columns) < 2:
        raise InputError(f"{path}: --wide needs at least two release columns (--release-cols r1,r2); "
                         f"got {len(release_columns)}")
    missing = [c for c in release_columns if c not in frame.columns]
    if missing:
        raise InputError(f"{path}: release column {missing[0]!r} (--release-cols) is not in the file; columns "
                         f"present: {', '.join(map(str, frame.columns))}")
    if "release" in frame.columns:
        raise InputError(f"{path}: a wide file has one column per release, but this one also has a 'release' "
                         "column; drop --wide to read it as tidy")
    outcome = "passed" if all(looks_boolean(frame[c]) for c in release_columns) else "score"
    attributes = [c for c in frame.columns if c not in release_columns]
    tidy = frame.melt(id_vars=attributes, value_vars=list(release_columns), var_name="release", value_name=outcome)
    tidy["release"] = tidy["release"].astype(str)
    return tidy


def refuse_samples_export_as_tidy(frame: pd.DataFrame, path: Path, case_column: str) -> None:
    """A file read as a tidy table whose columns are an Inspect samples_df export's (id, epoch, score_*) but lack
    the sample_id and eval_id that mark one (columns dropped before saving): say what it is and how to read it,
    rather than refuse it for its missing release and case_id columns or read its counters as releases."""
    names = [str(c) for c in frame.columns]
    scores = [c for c in names if c.startswith("score_")]
    if case_column in names or not ({"id", "epoch"} <= set(names) and scores):
        return
    missing = " and ".join(c for c in ("sample_id", "eval_id") if c not in names)
    raise InputError(f"{path} looks like an Inspect samples_df export (columns id, epoch, {', '.join(scores[:3])}) "
                     f"without the {missing} column{'s' if ' and ' in missing else ''} that mark one: read it with --format "
                     "inspect-samples (the release from its model or model_usage column, or NAME=path), or give the "
                     "Inspect logs it came from")


def refuse_unnamed_wide(frame: pd.DataFrame, path: Path, release_given: bool) -> None:
    """A file with no release column but several pass/fail columns is a wide file: say how to read it."""
    if release_given or "release" in frame.columns:
        return
    outcome_like = [str(c) for c in frame.columns
                    if c not in ("case_id", "passed", "score", "run") and looks_boolean(frame[c])]
    if len(outcome_like) >= 2:
        shown = ",".join(outcome_like[:6])
        raise InputError(f"{path}: no release column, and {len(outcome_like)} columns ({shown}) look like one "
                         f"pass/fail column per release: a wide file; read it with --wide --release-cols {shown}")


def refuse_same_file_twice(inputs: Sequence[InputFile]) -> None:
    """A file read twice compares a release with itself: no change, whatever it is. Refused when two inputs
    are one file (the same path, however written), and when two tidy files or two harness logs that name
    their own run (Inspect, promptfoo, OpenAI evals) have the same bytes. Two lm-eval samples files of the same
    bytes in two folders are left alone: their release comes from the results file beside them, and two
    models can write byte-identical samples."""
    seen: dict[object, InputFile] = {}
    for item in inputs:
        if item.format not in ("tidy", *_RUN_NAMING, "lm-eval"):
            continue
        path = Path(item.path)
        keys = [("path", path.resolve())] if path.exists() else []
        keys += [("bytes", item.sha256)] if item.format != "lm-eval" else []
        for key in keys:
            first = seen.setdefault(key, item)
            if first is not item:
                _refuse_twice(first, item)


# Harness files whose bytes carry their own run (an eval id, a timestamp): equal bytes are one run.
_RUN_NAMING = ("inspect", "promptfoo", "openai-evals", "inspect-samples")


def _refuse_twice(first: InputFile, item: InputFile) -> None:
    names = " and ".join(repr(n) for n in (first.release, item.release) if n)
    as_what = f" as {names}" if names else ""
    hint = ("a file with one outcome column per release is read once, with --wide --release-cols NAME1,NAME2"
            if item.format == "tidy" else "name each release's own file")
    raise InputError(f"{first.path} and {item.path} are the same file{as_what} (sha256 {item.sha256[:12]}): "
                     f"a release compared with itself shows no change; {hint}")


def named_over_column(frame: pd.DataFrame, name: str, label: str) -> str | None:
    """``NAME=path`` (or a mapping of NAME to a DataFrame) on a table with a release column of its own: one
    release there is renamed, and the note returned says so; several are refused, since naming them all NAME would
    pool two releases' rows into one."""
    if "release" not in frame.columns:
        return None
    from releasegate.load.identity import as_text

    named = [str(r) for r in dict.fromkeys(as_text(frame["release"]).dropna()) if str(r)]
    if len(named) > 1:
        shown = ", ".join(repr(r) for r in named[:5])
        raise InputError(f"{name}={label}: the file's release column holds {len(named)} releases ({shown}); "
                         f"{name}= would read them all as one: drop {name}= to keep the file's names, or give each "
                         "release its own file")
    if named and named[0] != name:
        return f"{label}: release {named[0]!r} of its release column read as {name!r} (NAME=path)."
    return None


def latency_in_ms(frame: pd.DataFrame, unit: str, path: Path) -> pd.DataFrame:
    """The latency column in milliseconds: ``latency_s`` is seconds by its name; ``--latency-unit s`` says the
    latency column (``latency_ms`` or the one named with --latency-col) holds seconds."""
    if unit not in LATENCY_UNITS:
        raise InputError(f"unknown latency unit {unit!r}; use s or ms")
    if "latency_ms" not in frame.columns and "latency_s" in frame.columns:
        seconds = _numbers(frame["latency_s"], "latency_s", path)
        return frame.drop(columns="latency_s").assign(latency_ms=seconds * 1000.0)
    if unit != "ms" and "latency_ms" in frame.columns:
        values = _numbers(frame["latency_ms"], "latency", path)
        return frame.assign(latency_ms=values * LATENCY_UNITS[unit])
    return frame


def _numbers(series: pd.Series, name: str, path: Path) -> pd.Series:
    """A latency column as numbers before it is scaled (validation checks the scaled column again)."""
    numbers = pd.to_numeric(series, errors="coerce").astype(float)
    bad = series[numbers.isna() & series.notna()]
    if len(bad):
        raise InputError(f"{path}: {name!r} must be numeric; found {bad.nunique()} other value(s), e.g. "
                         f"{', '.join(map(repr, bad.astype(str).unique()[:3]))}")
    return numbers
