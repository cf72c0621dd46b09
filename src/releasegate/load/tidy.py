"""Read tidy result files (.csv, .tsv, .jsonl, .json records, .parquet) into a DataFrame, unchanged."""

from __future__ import annotations

import codecs
import json
import re
from pathlib import Path
from typing import Any

import pandas as pd
from pandas._libs.parsers import STR_NA_VALUES

from releasegate.errors import FileError, InputError
from releasegate.load.adapters.fields import SURROGATE_ESCAPE, refuse_lone_surrogates
from releasegate.load.identity import TEXT_COLUMNS, as_text, identity_as_text

TIDY_SUFFIXES = (".csv", ".tsv", ".jsonl", ".ndjson", ".json", ".parquet")

# pandas' own list of words read as missing, kept for the columns that are not identity columns.
DEFAULT_NA_WORDS = sorted(STR_NA_VALUES)


def read_tidy(path: Path, text_columns: tuple[str, ...] = TEXT_COLUMNS, case_column: str = "case_id",
              texts: tuple[str, ...] = ()) -> pd.DataFrame:
    """Read one tidy file by its suffix. Errors are InputError with one line that names the file. The
    ``text_columns`` are read as text (:func:`identity_as_text`, naming ``case_column``'s case when refused);
    ``texts`` among them may hold a JSON object or list, kept as its text."""
    suffix = path.suffix.lower()
    if suffix not in TIDY_SUFFIXES:
        raise FileError(
            f"{path}: unknown format {suffix or '(no suffix)'!r}; expected one of {', '.join(TIDY_SUFFIXES)} "
            "or a harness log (--format inspect|lm-eval|promptfoo|openai-evals)"
        )
    try:
        if suffix in (".csv", ".tsv"):
            frame = _read_delimited(path, "\t" if suffix == ".tsv" else ",", text_columns)
        elif suffix in (".jsonl", ".ndjson"):
            frame = _read_json_lines(path, text_columns)
        elif suffix == ".json":
            frame = _read_json_records(path)
        else:
            frame = _read_parquet(path)
    except InputError:
        raise
    except pd.errors.EmptyDataError:
        raise FileError(f"{path}: the file is empty") from None
    except pd.errors.ParserError as exc:
        raise FileError(f"{path}: malformed {suffix[1:].upper()}: {_parser_message(exc)}") from None
    except UnicodeDecodeError:
        raise FileError(f"{path}: {describe_bad_encoding(path)}") from None
    except ValueError as exc:
        raise FileError(f"{path}: cannot read as {suffix[1:]}: {_first_line(exc)}") from None
    except OSError as exc:
        raise FileError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if frame.shape[0] == 0:
        raise FileError(f"{path}: the file has a header but no rows")
    from releasegate.load.headers import (
        check_name_lengths,
        check_unique_columns,
        delimited_header,
        refuse_harness_export,
    )

    check_name_lengths(path, frame.columns)
    refuse_harness_export(path, frame)
    check_unique_columns(path, delimited_header(path, "\t" if suffix == ".tsv" else ",")
                         if suffix in (".csv", ".tsv") else frame.columns)
    frame.columns = [str(c).strip() for c in frame.columns]
    identity_as_text(frame, tuple(c for c in text_columns if c not in texts), path, case_column)
    for column in (c for c in texts if c in frame.columns):
        frame[column] = as_text(frame[column])
    return consolidated(frame)


# pandas' parsers give each column a block of its own; past 100 blocks every later column added (the outcome, a
# metric's column) warns on stderr (PerformanceWarning: "DataFrame is highly fragmented") and copies them all.
_MANY_COLUMNS = 100


def consolidated(frame: pd.DataFrame) -> pd.DataFrame:
    """A frame of many columns as one block per type (a copy); a narrow one as it is (nothing copied)."""
    return frame.copy() if frame.shape[1] > _MANY_COLUMNS else frame


def _read_delimited(path: Path, sep: str, text_columns: tuple[str, ...]) -> pd.DataFrame:
    """Identity columns are text with no NA conversion: a category or case named ``NA``, ``None`` or ``null``
    keeps its name (SPEC 3.2), and only a truly empty cell is missing. Other columns keep pandas' NA words.

    The file is parsed once without forcing types (forcing ``str`` made pandas' parser 3-4x slower on a
    million rows); an identity column that pandas read as numbers ("007" -> 7) is parsed again on its own as text.
    """
    from releasegate.load.arrow_csv import read_delimited
    from releasegate.load.headers import delimited_header

    # utf-8-sig drops a byte-order mark that Excel writes, which would otherwise corrupt the first column name.
    header = pd.read_csv(path, sep=sep, nrows=0, encoding="utf-8-sig").columns
    identity = [c for c in header if str(c).strip() in text_columns]
    # pyarrow's reader on both cores first; what it refuses or would read otherwise, pandas reads (its messages).
    frame = read_delimited(path, sep, delimited_header(path, sep), identity, DEFAULT_NA_WORDS)
    if frame is not None:
        return frame
    na_values = {c: ([""] if c in identity else DEFAULT_NA_WORDS) for c in header}
    options = {"sep": sep, "encoding": "utf-8-sig", "keep_default_na": False, "na_values": na_values}
    frame = pd.read_csv(path, **options)
    numeric = [c for c in identity if c in frame.columns and not pd.api.types.is_string_dtype(frame[c].dtype)]
    if numeric:
        again = pd.read_csv(path, **options, usecols=numeric, dtype={c: str for c in numeric})
        for column in numeric:
            frame[column] = again[column]
    return frame


def _read_json_lines(path: Path, text_columns: tuple[str, ...] = TEXT_COLUMNS) -> pd.DataFrame:
    """One record per line, parsed by the standard module with a check for keys given twice (pandas' parser keeps
    the last of ``{"passed": 1, "passed": 0}`` silently, issue 28 item 6); the same cost as pandas' own reader
    (2.2 + 0.6 s against 2.5 s for 200,000 records here). A file every line of which is one flat record is read
    by pyarrow's reader on every core instead, to the same frame (load/arrow_json.py)."""
    from releasegate.load.arrow_json import read_json_lines

    frame = read_json_lines(path, text_columns)
    if frame is not None:
        return frame
    from releasegate.load.capacity import check_fits_by_record

    check_fits_by_record(path)  # the estimate before reading was pyarrow's reading
    decoder = json.JSONDecoder(object_pairs_hook=_unique_keys, parse_int=_bounded_int)
    records = []
    # Through a text handle so that a byte-order mark is dropped, as for CSV.
    with open(path, encoding="utf-8-sig") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                record = decoder.decode(line)
            except _DuplicateKey as exc:
                raise FileError(f"{path}: line {number}: key {exc.key!r} appears twice in one record; which value "
                                 "is meant cannot be told: write each key once") from None
            except _HugeNumber as exc:
                raise FileError(f"{path}: line {number}: {exc}") from None
            except json.JSONDecodeError as exc:
                raise FileError(f"{path}: line {number} is not valid JSON ({exc.msg}, column {exc.colno})") from None
            except RecursionError:
                raise FileError(f"{path}: line {number} is nested too deeply to be a record") from None
            if not isinstance(record, dict):
                raise FileError(f"{path}: line {number} is {_json_kind(record)}, not a record (a JSON object)")
            if SURROGATE_ESCAPE.search(line):
                refuse_lone_surrogates(path, f"line {number}", record)
            records.append(record)
    if not records:
        raise pd.errors.EmptyDataError("no records")
    return pd.DataFrame.from_records(records)


class _DuplicateKey(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


class _HugeNumber(ValueError):
    pass


def _bounded_int(text: str) -> int:
    """JSON integers as Python's, but none beyond a float (10**400 raised OverflowError deep in the analysis)."""
    if len(text.lstrip("-")) > 300:
        raise _HugeNumber(f"a number of {len(text.lstrip('-'))} digits ({text[:12]}...) is beyond any float; "
                          "no count, latency or score is that large")
    return int(text)


def _unique_keys(pairs: list[tuple[str, object]]) -> dict[str, Any]:
    record = dict(pairs)
    if len(record) != len(pairs):
        seen: set[str] = set()
        raise _DuplicateKey(next(k for k, _ in pairs if k in seen or seen.add(k)))
    return record


def _json_kind(value: object) -> str:
    """A few words for what a JSON value is, for messages."""
    if isinstance(value, dict):
        keys = ", ".join(list(map(str, value))[:5])
        return f"an object with keys {keys}" if keys else "an empty object"
    if isinstance(value, list):
        kinds = sorted({_JSON_PLURALS.get(type(v), "values") for v in value[:100]})
        return f"a list of {' and '.join(kinds)}" if kinds else "an empty list"
    return {str: "a string", bool: "a boolean", int: "a number", float: "a number"}.get(type(value), "null")


_JSON_PLURALS = {str: "strings", bool: "booleans", int: "numbers", float: "numbers", list: "lists",
                 dict: "objects", type(None): "nulls"}


def _read_json_records(path: Path) -> pd.DataFrame:
    with open(path, encoding="utf-8-sig") as handle:
        text = handle.read()
        try:
            data = json.loads(text, object_pairs_hook=_unique_keys, parse_int=_bounded_int)
        except _HugeNumber as exc:
            raise FileError(f"{path}: {exc}") from None
        except _DuplicateKey as exc:
            raise FileError(f"{path}: key {exc.key!r} appears twice in one record; which value is meant cannot be "
                             "told: write each key once") from None
        except json.JSONDecodeError as exc:
            raise FileError(f"{path}: not valid JSON (line {exc.lineno}: {exc.msg})") from None
        except RecursionError:
            raise FileError(f"{path}: JSON nested too deeply to be a list of records") from None
    if isinstance(data, dict):
        # Accept {"results": [...]} / {"records": [...]}, the two wrappers people write by hand.
        lists = [v for v in data.values() if isinstance(v, list)]
        if len(lists) == 1 and all(isinstance(r, dict) for r in lists[0]):
            data = lists[0]
    if SURROGATE_ESCAPE.search(text):
        for number, record in enumerate(data if isinstance(data, list) else [data], start=1):
            refuse_lone_surrogates(path, f"record {number}", record)
    if isinstance(data, list) and not data:
        raise FileError(f"{path}: the JSON list has no records")
    if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
        raise FileError(f"{path}: JSON must be a list of records (objects), one per result row; "
                         f"found {_json_kind(data)}")
    return pd.DataFrame.from_records(data)


def _read_parquet(path: Path) -> pd.DataFrame:
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        raise FileError(f"{path}: reading Parquet needs pyarrow: pip install 'releasegate[parquet]'") from None
    import pyarrow as pa
    import pyarrow.parquet as pq

    from releasegate.load.arrow_csv import DICTIONARY_COLUMNS, pandas_frame

    # release, category and cluster dictionary-encoded as they are read (as CSV's are, load/arrow_csv.py): a
    # categorical for validation, never a string per row.
    try:
        schema = pq.read_schema(path)
    except pa.ArrowException:
        return pd.read_parquet(path)  # a file that is not Parquet: pandas' reading, whose message users see
    text = [f.name for f in schema if f.name.strip() in DICTIONARY_COLUMNS
            and (pa.types.is_string(f.type) or pa.types.is_large_string(f.type))]
    frame = pandas_frame([pq.read_table(path, read_dictionary=text)])
    # A list column comes back as numpy arrays, which nothing downstream can hash or name; as Python lists, it is
    # the nested value JSON gives, refused by name where a value is due and kept as JSON text elsewhere.
    for name in [f.name for f in schema if pa.types.is_nested(f.type) and f.name in frame.columns]:
        frame[name] = frame[name].map(lambda v: v.tolist() if hasattr(v, "tolist") else v, na_action="ignore")
    return frame


def release_arrow_memory() -> None:
    """Hand the memory Arrow's pool keeps after frees back to the system, when pyarrow is in use (never imported
    for this alone): its allocator keeps freed pages for its next allocations, which a run that has read its
    table makes no more."""
    import sys

    arrow = sys.modules.get("pyarrow")
    if arrow is not None:
        arrow.default_memory_pool().release_unused()


def describe_bad_encoding(path: Path) -> str:
    """Where a file stops being UTF-8: the byte offset and line of the first bad byte, and what to do.

    pandas decodes in chunks, so the offset in its exception is not the offset in the file; this scans
    the file again (only on this error path). Files are refused rather than guessed as Latin-1: a case_id
    decoded two ways would silently stop pairing across files.
    """
    with open(path, "rb") as handle:
        head = handle.read(4)
        if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
            return "the file is UTF-16 (it starts with a UTF-16 byte-order mark); re-save it as UTF-8"
        handle.seek(0)
        decoder = codecs.getincrementaldecoder("utf-8")()
        offset, lines = 0, 0
        for block in iter(lambda: handle.read(1 << 20), b""):
            pending = len(decoder.getstate()[0])
            try:
                decoder.decode(block)
            except UnicodeDecodeError as exc:
                data = exc.object
                where = offset - pending + exc.start
                line = lines + data.count(b"\n", 0, exc.start) + 1
                byte = data[exc.start]
                guess = bytes([byte]).decode("cp1252", errors="replace")
                hint = f" (in Windows-1252/Latin-1 that byte is {guess!r})" if byte >= 0x80 and guess != "\ufffd" else ""
                return (f"not UTF-8 text: byte 0x{byte:02X} at offset {where} (line {line}){hint}; "
                        "re-save the file as UTF-8")
            offset += len(block)
            lines += block.count(b"\n")
    return f"not UTF-8 text: the file ends inside a multi-byte character (offset {offset}); re-save it as UTF-8"


_FIELDS = re.compile(r"Expected (\d+) fields in line (\d+), saw (\d+)")
_OPEN_QUOTE = re.compile(r"EOF inside string starting at row (\d+)")


def _parser_message(exc: Exception) -> str:
    """pandas' tokenizer messages in the user's terms (lines counted from 1, the header being line 1)."""
    found = _FIELDS.search(str(exc))
    if found:
        expected, line, saw = found.groups()
        return (f"line {line} has {saw} fields but the header has {expected} "
                "(a delimiter inside an unquoted value?)")
    found = _OPEN_QUOTE.search(str(exc))
    if found:
        # pandas counts rows from 0 here.
        return f"the quoted value that starts on line {int(found.group(1)) + 1} is never closed"
    return _first_line(exc)


def _first_line(exc: Exception) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__
