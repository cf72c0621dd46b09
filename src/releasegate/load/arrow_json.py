"""JSON Lines read by pyarrow's multithreaded reader, to the frame the standard module's reading gives (the one of
load/tidy.py), or None when pyarrow would read the file otherwise.

tidy.py reads a JSON Lines file a record a line with Python's json module: one core, a Python dict per record
(`report` on 1,000,000 cases x 2 releases: 21-24 s and 2.4 GiB, bench/RESULTS.md). pyarrow's reader parses blocks
of the file on every core straight to columns. It is more lenient than the reading it stands in for (a record over two lines,
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
    for any other file. The file is read into one buffer, a block of whole lines at a time (the line a block
    cuts moved to the buffer's start for the next), and searched there without a copy."""
    count = held = 0
    buffer = bytearray(SCAN_BLOCK)
    with open(path, "rb", buffering=0) as handle:
        while True:
            with memoryview(buffer) as view:
                read = handle.readinto(view[held:])
            size = held + read
            if not read:
                break
            end = buffer.rfind(b"\n", 0, size) + 1
            if not end:  # a line longer than the buffer: twice the room
                buffer.extend(bytes(len(buffer)))
                held = size
                continue
            if not _plain(buffer, end):
                return None
            count += buffer.count(b"\n", 0, end)
            buffer[:size - end] = buffer[end:size]
            held = size - end
    if buffer[:held].strip():  # a last line without a line break
        if not _plain(buffer, held):
            return None
        count += 1
    return count


def _plain(buffer: bytearray, end: int) -> bool:
    """Whether the buffer's first ``end`` bytes hold no two records on a line, no surrogate escape, and UTF-8."""
    import codecs

    import numpy as np

    if _TWO_ON_A_LINE.search(buffer, 0, end) or _SURROGATE_ESCAPE.search(buffer, 0, end):
        return False
    if int(np.frombuffer(buffer, np.uint8, end).max(initial=0)) < 0x80:
        return True  # ASCII
    try:
        with memoryview(buffer) as view:
            codecs.utf_8_decode(view[:end], "strict", True)
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
