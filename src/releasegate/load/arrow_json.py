"""JSON Lines read by pyarrow's multithreaded reader, to the frame the standard module's reading gives (the one of
load/tidy.py), or None when pyarrow would read the file otherwise.

tidy.py reads a JSON Lines file a record a line with Python's json module: one core, a Python dict per record,
about 14 s for 1,000,000 cases x 2 releases (bench/RESULTS.md). pyarrow's reader parses blocks of the file on
every core straight to columns. It is more lenient than the reading it stands in for (a record over two lines,
two records on one line, a key given twice in some forms), and it copies bytes that are not UTF-8 into its strings
unchecked. So it is trusted only with a file whose bytes show that tidy.py's reading would take every line as one
record (:func:`plain_lines`), and only with the values both readings give alike:

- no line holds the end of one object and the start of another, and pyarrow reads as many records as the file
  has lines. Then every line is one whole record: no line holds two records' starts, so as many records as lines
  means one start on every line (no blank line either); and a record reaching over a line break would put its end
  and the next record's start on one line, or leave the last line without a start;
- the bytes are UTF-8 and no string escapes a UTF-16 surrogate (tidy.py checks those for lone halves);
- every column is a number, true or false words, or text (an object or a list inside a record is kept by tidy.py
  as Python's value); a date is read again as text, as json leaves it;
- no whole number beyond 2^53 (pyarrow reads a larger one, or one beyond 64 bits, as a double; json keeps it exact
  or refuses it), no missing value among true and false words and no key that is only ever missing or null
  (pandas keeps a missing key apart from a null there, pyarrow does not).

Everything else is read by tidy.py's own reading, which refuses it with its message or reads it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pandas as pd

# The end of one object and the start of another on the same line. The pattern begins with one byte, which the
# search finds as fast as memchr (an alternation there made the search 20 times slower).
_TWO_ON_A_LINE = re.compile(rb"\}[ \t\r]*\{")
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
# The file is scanned this many bytes at a time (whole lines: a block ends at its last line break).
SCAN_BLOCK = 64 << 20
_EXACT_WHOLE = 2.0 ** 53


def read_json_lines(path: Path) -> pd.DataFrame | None:
    """The file as tidy.py's reading gives it, or None when it is not a file pyarrow reads alike. pyarrow reads in
    its own threads while this one scans the bytes (:func:`plain_lines`)."""
    from releasegate.threads import beside

    reading = beside(_read_table, path)
    lines = plain_lines(path)
    table = reading.result()
    if table is None or not lines or table.num_rows != lines or table.num_columns == 0:
        return None
    if not all(_alike(column) for column in table.columns):
        return None
    from releasegate.load.arrow_csv import pandas_frame

    held = [table]  # handed over: pandas_frame frees each column as it is converted
    del table
    return pandas_frame(held)


def _read_table(path: Path) -> Any:
    """The file as pyarrow's reader gives it, dates read as text (json reads none); None when it refuses it."""
    import pyarrow as pa
    import pyarrow.json as pj

    try:
        table = pj.read_json(path)
        dates = [field.name for field in table.schema if pa.types.is_temporal(field.type)]
        if dates:
            schema = pa.schema([pa.field(f.name, pa.string() if f.name in dates else f.type) for f in table.schema])
            table = pj.read_json(path, parse_options=pj.ParseOptions(explicit_schema=schema))
    except (pa.ArrowException, OSError):
        return None
    return table


def plain_lines(path: Path) -> int | None:
    """The number of lines of a file in UTF-8 with no surrogate escape and no line holding the end of one object
    and the start of another (a last line without a line break counted when it holds more than spaces), or None
    for any other file."""
    count = 0
    tail = b""
    with open(path, "rb") as handle:
        while block := handle.read(SCAN_BLOCK):
            block = tail + block
            end = block.rfind(b"\n") + 1
            whole, tail = block[:end], block[end:]
            if whole and not _plain(whole):
                return None
            count += whole.count(b"\n")
    if tail.strip():  # a last line without a line break
        if not _plain(tail):
            return None
        count += 1
    return count


def _plain(lines: bytes) -> bool:
    if _TWO_ON_A_LINE.search(lines) or _SURROGATE_ESCAPE.search(lines):
        return False
    if lines.isascii():
        return True
    try:
        lines.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _alike(column: Any) -> bool:
    """Whether pandas' frame holds the column's values as tidy.py's reading would."""
    import pyarrow as pa
    import pyarrow.compute as pc

    kind = column.type
    if pa.types.is_boolean(kind):
        return column.null_count == 0
    if pa.types.is_floating(kind):
        largest = pc.max(pc.abs(pc.if_else(pc.is_finite(column), column, 0.0))).as_py()
        return largest is None or largest < _EXACT_WHOLE
    return pa.types.is_integer(kind) or pa.types.is_string(kind) or pa.types.is_large_string(kind)
