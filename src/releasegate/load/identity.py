"""Identity columns (release, case, category, cluster) read as text, whatever reader gave them: the same table as
CSV, TSV, JSON lines, JSON records, Parquet, a DataFrame or a harness log gives the same texts, so that results
from two sources are paired and grouped alike."""

from __future__ import annotations

import json
from collections.abc import Mapping

import numpy as np
import pandas as pd

from releasegate.errors import BadValueError, InputError
from releasegate.load.adapters.fields import scalar_text

# Identity columns are read as text: "007" must stay "007" and never become 7.
TEXT_COLUMNS = ("release", "case_id", "category", "cluster")


def identity_names(columns: Mapping[str, str]) -> tuple[str, ...]:
    """The identity columns under both names: the canonical one and the one the user chose for it."""
    return TEXT_COLUMNS + tuple(given for role, given in columns.items() if role in TEXT_COLUMNS)


def identity_as_text(frame: pd.DataFrame, columns: tuple[str, ...], where: object,
                     case_column: str = "case_id") -> None:
    """Each of ``columns`` in ``frame`` as text (:func:`as_text`). An identity (release, case, category,
    cluster) is one value: a number is read as its text, as CSV gives it, but a JSON object or list would
    become a category such as "[1, 2]"; refused, naming the column and the first row's case."""
    for column in (c for c in columns if c in frame.columns):
        values = frame[column]
        inferred = pd.api.types.infer_dtype(values, skipna=True) if values.dtype == object else None
        # Only a column pandas' scan finds mixed (20 ms a million) can hold a list: look value by value (0.4 s).
        nested = (values.map(lambda v: isinstance(v, (dict, list)))
                  if inferred in ("mixed", "mixed-integer") else None)
        if nested is not None and nested.any():
            row = int(nested.to_numpy().nonzero()[0][0])
            case = frame[case_column].iloc[row] if column != case_column and case_column in frame.columns else None
            who = f"case {str(case)!r}" if isinstance(case, (str, int)) else f"row {row + 1}"
            kind = "object" if isinstance(values.iloc[row], dict) else "list"
            shown = json.dumps(values.iloc[row], default=str)[:40]
            raise InputError(f"{where}: {column!r} of {who} holds a JSON {kind} ({shown}), "
                             f"not one value ({int(nested.sum())} row(s) do): give each row one {column} (text or "
                             "a number)")
        frame[column] = as_text(values, inferred)


def as_text(series: pd.Series, inferred: str | None = None) -> pd.Series:
    """Identity values as stripped strings, keeping missing values missing (not the string 'nan'); a boolean as
    JSON, CSV and Arrow spell it (:func:`json_booleans`). ``inferred``: pandas' ``infer_dtype`` of an object
    column, when the caller has it (one scan of a million values is 20 ms)."""
    if isinstance(series.dtype, pd.CategoricalDtype) and isinstance(series.cat.categories.dtype, pd.StringDtype):
        return _stripped_categories(series)
    series = json_booleans(series, inferred)
    mask = series.isna()
    if series.dtype.kind == "f":
        # 3.0 read from JSON is case 3, not "3.0".
        whole = series.dropna()
        if (whole == whole.round()).all():
            _refuse_inexact_ids(series.name, whole)
            series = series.astype("Int64")
    # pandas' own string dtype (Arrow-backed in pandas 3), not object: comparing, hashing and copying a million
    # identity values is then several times faster in every later stage.
    out = series.astype(str)
    if may_need_strip(out):
        out = out.str.strip()
    if mask.any():
        out[mask] = None
    return out


def json_booleans(series: pd.Series, inferred: str | None = None) -> pd.Series:
    """``series`` with each boolean written ``true`` or ``false``: the text a JSON file holds and a CSV file gives,
    and Arrow's spelling of a Parquet boolean. Python's ``str`` gives ``True``, a category that the same table
    read from CSV would not have, so a candidate exported as JSON lines would not be compared in the baseline's
    categories."""
    if pd.api.types.is_bool_dtype(series.dtype):  # numpy's and pandas' booleans, a categorical of booleans
        return series.map({True: "true", False: "false"}, na_action="ignore")
    if series.dtype != object:
        return series
    inferred = inferred or pd.api.types.infer_dtype(series, skipna=True)
    if inferred not in ("boolean", "mixed", "mixed-integer"):
        return series
    # Value by value: a mixed column may hold 1 beside true, which a mapping keyed on True would spell "true".
    return series.map(lambda v: scalar_text(bool(v)) if isinstance(v, (bool, np.bool_)) else v)


# A float holds every whole number up to 2^53 exactly; beyond it two ids can be read as one number.
_EXACT_WHOLE = 2.0 ** 53


def _refuse_inexact_ids(name: str, whole: pd.Series) -> None:
    """Identity values read as numbers beyond 2^53 (a JSON ``1e300``, a 20-digit id) are refused: the file's
    digits are already gone, and two cases could be paired as one."""
    big = whole[whole.abs() >= _EXACT_WHOLE]
    if len(big):
        raise BadValueError(f"{name!r} holds {len(big)} number(s) too large to be an exact id, e.g. {big.iloc[0]:g}; "
                            f"numbers of {_EXACT_WHOLE:,.0f} and more lose digits: write the ids as text (quoted)")


def _stripped_categories(series: pd.Series) -> pd.Series:
    """A categorical of text (read dictionary-encoded) stripped on its categories, not row by row; categories
    that become one ("a" and " a") are merged."""
    categories = series.cat.categories
    if not may_need_strip(pd.Series(categories)):
        return series
    stripped = categories.str.strip()
    codes, uniques = pd.factorize(stripped)
    merged = np.where(series.cat.codes.to_numpy() >= 0, codes[series.cat.codes.to_numpy()], -1)
    return pd.Series(pd.Categorical.from_codes(merged, categories=uniques), index=series.index, name=series.name)


def may_need_strip(series: pd.Series) -> bool:
    """False only when no value of an Arrow-backed text column starts or ends with a space, a control byte or a
    non-ASCII byte (the only places whitespace to strip can be); then ``str.strip`` would return it unchanged.

    Stripping every value of a million-row column costs 0.03-0.14 s per column; looking at the first and last
    byte of each value in the Arrow buffers costs 0.01 s. Anything else (object columns, other Arrow types) is
    stripped as before.
    """
    dtype = series.dtype
    if not (isinstance(dtype, pd.StringDtype) and dtype.storage == "pyarrow"):
        return True
    import pyarrow as pa

    values = pa.array(series.array)
    for chunk in values.chunks if isinstance(values, pa.ChunkedArray) else [values]:
        if pa.types.is_string(chunk.type):
            offset_type = np.int32
        elif pa.types.is_large_string(chunk.type):
            offset_type = np.int64
        else:
            return True
        chunk = chunk.drop_null()
        if len(chunk) == 0:
            continue
        _, offsets, data = chunk.buffers()
        ends = np.frombuffer(offsets, dtype=offset_type)[chunk.offset:chunk.offset + len(chunk) + 1]
        starts, ends = ends[:-1], ends[1:]
        filled = ends > starts
        if not filled.any():
            continue
        data = np.frombuffer(data, dtype=np.uint8)
        edges = np.concatenate([data[starts[filled]], data[ends[filled] - 1]])
        if ((edges <= 0x20) | (edges >= 0x7F)).any():
            return True
    return False
