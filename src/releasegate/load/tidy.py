"""Read tidy result files (.csv, .tsv, .jsonl, .json records, .parquet) into a DataFrame, unchanged."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from releasegate.errors import InputError

TIDY_SUFFIXES = (".csv", ".tsv", ".jsonl", ".ndjson", ".json", ".parquet")

# Identity columns are read as text: "007" must stay "007" and never become 7.
TEXT_COLUMNS = ("release", "case_id", "category", "cluster")


def read_tidy(path: Path, text_columns: tuple[str, ...] = TEXT_COLUMNS) -> pd.DataFrame:
    """Read one tidy file by its suffix. Errors are InputError with one line that names the file."""
    suffix = path.suffix.lower()
    if suffix not in TIDY_SUFFIXES:
        raise InputError(
            f"{path}: unknown format {suffix or '(no suffix)'!r}; expected one of {', '.join(TIDY_SUFFIXES)} "
            "or a harness log (--format inspect|lm-eval|promptfoo)"
        )
    try:
        if suffix in (".csv", ".tsv"):
            frame = _read_delimited(path, "\t" if suffix == ".tsv" else ",", text_columns)
        elif suffix in (".jsonl", ".ndjson"):
            frame = pd.read_json(path, lines=True, dtype=False)
        elif suffix == ".json":
            frame = _read_json_records(path)
        else:
            frame = _read_parquet(path)
    except InputError:
        raise
    except pd.errors.EmptyDataError:
        raise InputError(f"{path}: the file is empty") from None
    except pd.errors.ParserError as exc:
        raise InputError(f"{path}: malformed {suffix[1:].upper()}: {_first_line(exc)}") from None
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text (byte {exc.start}: {exc.reason}); re-save it as UTF-8") from None
    except ValueError as exc:
        raise InputError(f"{path}: cannot read as {suffix[1:]}: {_first_line(exc)}") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if frame.shape[0] == 0:
        raise InputError(f"{path}: the file has a header but no rows")
    frame.columns = [str(c).strip() for c in frame.columns]
    for column in text_columns:
        if column in frame.columns:
            frame[column] = _as_text(frame[column])
    return frame


def _read_delimited(path: Path, sep: str, text_columns: tuple[str, ...]) -> pd.DataFrame:
    header = pd.read_csv(path, sep=sep, nrows=0, encoding="utf-8-sig").columns
    dtypes = {c: str for c in header if str(c).strip() in text_columns}
    # utf-8-sig drops a byte-order mark that Excel writes, which would otherwise corrupt the first column name.
    return pd.read_csv(path, sep=sep, dtype=dtypes, encoding="utf-8-sig", keep_default_na=True, na_values=[""])


def _read_json_records(path: Path) -> pd.DataFrame:
    with open(path, encoding="utf-8-sig") as handle:
        try:
            data = json.load(handle)
        except json.JSONDecodeError as exc:
            raise InputError(f"{path}: not valid JSON (line {exc.lineno}: {exc.msg})") from None
    if isinstance(data, dict):
        # Accept {"results": [...]} / {"records": [...]}, the two wrappers people write by hand.
        lists = [v for v in data.values() if isinstance(v, list)]
        if len(lists) == 1 and all(isinstance(r, dict) for r in lists[0]):
            data = lists[0]
    if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
        raise InputError(f"{path}: JSON must be a list of records (objects), one per result row")
    if not data:
        raise InputError(f"{path}: the JSON list has no records")
    return pd.DataFrame.from_records(data)


def _read_parquet(path: Path) -> pd.DataFrame:
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        raise InputError(f"{path}: reading Parquet needs pyarrow: pip install 'releasegate[parquet]'") from None
    return pd.read_parquet(path)


def _as_text(series: pd.Series) -> pd.Series:
    """Identity values as stripped strings, keeping missing values missing (not the string 'nan')."""
    mask = series.isna()
    if series.dtype.kind == "f":
        # 3.0 read from JSON is case 3, not "3.0".
        whole = series.dropna()
        if (whole == whole.round()).all():
            series = series.astype("Int64")
    # pandas' own string dtype (Arrow-backed in pandas 3), not object: comparing, hashing and copying a million
    # identity values is then several times faster in every later stage.
    out = series.astype(str).str.strip()
    out[mask] = None
    return out


def _first_line(exc: Exception) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__
