"""JSON Lines read by pyarrow's multithreaded reader, to the frame the standard module's reading gives (the one of
load/tidy.py), or None when pyarrow would read the file otherwise.

tidy.py reads a JSON Lines file a record a line with Python's json module: one core, a Python dict per record
(`report` on 1,000,000 cases x 2 releases: 16-24 s and 2.4 GiB, bench/RESULTS.md). pyarrow's reader parses blocks
of the file on every core straight to columns. It is more lenient than the reading it stands in for (a record
over two lines, two records or a record and a `null` on one line, a `null` line read as a record of nulls), it
copies bytes that are not UTF-8 into its strings unchecked, and it crashes the process on a record nested some
thousands deep or on a file of `null` alone. So the file is read in pieces of whole lines, and each piece's
bytes are given to pyarrow only after a scan of them shows what tidy.py's reading would take as one record a
line (:func:`_plain_lines_of`); the table is kept only with the values both readings give alike:

- every line starts with `{`; after a `}` only a comma, a `}`, a `]` or the line's end follows on its line; and
  pyarrow reads as many records as the piece has lines. Then every line is one whole record: a second value can
  only start on a line after an object's `}` (excluded), so records start only at lines' starts, and as many
  records as lines leaves none reaching over a line break;
- the bytes are UTF-8, no string escapes a UTF-16 surrogate (tidy.py checks those for lone halves), and a piece
  holds at most 1,000 more `{` and `[` than lines (no record nested deeper);
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

import numpy as np
import pandas as pd

from releasegate.load.arrow_csv import DICTIONARY_COLUMNS, line_ends

# What may follow an object's end on its line: a comma, a closing bracket or the line's end, after spaces.
_AFTER_AN_OBJECT = re.compile(rb"\}[ \t\r]*(?:[,}\]\n]|\Z)")
_CLOSING = np.frombuffer(b",}]\n", np.uint8)
_BYTE_ORDER_MARK = b"\xef\xbb\xbf"
# pyarrow's parser recursed past its stack at 20,000 levels (5,000 were read): far fewer extra brackets a piece.
_EXTRA_BRACKETS = 1_000
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
_EXACT_WHOLE = 2.0 ** 53


def read_json_lines(path: Path, identity: tuple[str, ...] = ()) -> pd.DataFrame | None:
    """The file as tidy.py's reading gives it, or None when it is not a file pyarrow reads alike. Each piece's
    bytes are scanned before pyarrow parses them (:func:`_plain_lines_of`): pyarrow is given no bytes it could
    crash on. Of the ``identity`` columns (the table's text columns), release, category and cluster come back as
    categoricals of their text."""
    table = _read_table(path, identity)
    if table is None or table.num_columns == 0:
        return None
    if not all(_alike(column) for column in table.columns):
        return None
    from releasegate.load.arrow_csv import pandas_frame

    held = [table]  # handed over: pandas_frame frees each column as it is converted
    del table
    return pandas_frame(held)


def _read_table(path: Path, identity: tuple[str, ...]) -> Any:
    """The file as pyarrow's reader gives it, or None when a piece is not plain lines or pyarrow refuses it: read
    in pieces cut at line ends, two pieces at a time, each read into memory, scanned, parsed from those bytes as
    one block, and then joined at the type that holds both pieces' values, as pyarrow's reader joins its blocks.
    The scan runs beside the other piece's parse, on the second core. Once a piece is not plain (or holds an
    object or a list, which the standard reading keeps), the pieces not yet begun are not read.

    One block a piece because pyarrow's reader crashes the process (pyarrow 26) where a block's first record
    changes a column's kind (a number, then true or false; text, then an object), where it refuses the same
    change anywhere else; within one block it refuses every change. A piece at a time, the reader holds one
    piece's working memory beside the table instead of the whole file (4.2 GiB for a 1.4 GiB table at 10^7
    records x 2; bench/RESULTS.md). The ``identity`` columns among release, category and cluster are
    dictionary-encoded piece by piece, as CSV's are (load/arrow_csv.py): codes, not a string a row."""
    import threading

    import pyarrow as pa

    from releasegate.threads import two_at_once

    cuts = line_ends(path, path.stat().st_size, PIECE)
    spans = list(zip(cuts, cuts[1:]))
    if any(stop - start >= _LARGEST_BLOCK for start, stop in spans):
        return None  # one piece (one line) past what a block can hold
    coded = {name for name in identity if name.strip() in DICTIONARY_COLUMNS}
    stopped = threading.Event()
    # One buffer for each of the two threads, as large as the largest piece and reused piece after piece: a new
    # one a piece would be fresh pages from the system each time.
    held, largest = threading.local(), max(stop - start for start, stop in spans)

    def one(span: tuple[int, int]) -> Any:
        if not hasattr(held, "buffer"):
            held.buffer = bytearray(largest)
        part = None if stopped.is_set() else _piece(path, *span, coded, held.buffer)
        if part is None:
            stopped.set()
        return part

    try:
        parts = two_at_once(one, spans)
        if stopped.is_set() or sum(part.num_rows for part in parts) == 0:
            return None
        return pa.concat_tables(parts, promote_options="permissive") if len(parts) > 1 else parts[0]
    except (pa.ArrowException, OSError):
        return None


# The pieces' size, as CSV's (load/arrow_csv.py); pyarrow's block size is a 32-bit count.
PIECE = 48 << 20
_LARGEST_BLOCK = 1 << 31


def _piece(path: Path, start: int, stop: int, coded: set[str], buffer: bytearray) -> Any | None:
    """Bytes ``start`` to ``stop`` of the file (whole lines), read into ``buffer`` (at least as long), as one
    table parsed as one block, or None when they are not plain lines of one flat record each, or pyarrow's table
    has not one record a line or holds an object or a list; dates read as text (json reads none); the ``coded``
    columns that hold text dictionary-encoded. Trailing spaces after the file's last line break are no line."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.json as pj

    size = stop - start
    with open(path, "rb", buffering=0) as handle, memoryview(buffer) as view:
        handle.seek(start)
        read = handle.readinto(view[:size])
    if read != size:
        return None  # the file changed under the reading
    end = buffer.rfind(b"\n", 0, size) + 1
    if buffer[end:size].strip():
        end = size  # a last line without a line break
    if not end:
        return pa.table({})  # only spaces after the file's last line break
    lines = _plain_lines_of(buffer, end, start == 0)
    if lines is None:
        return None
    # The bytes scanned, not read again; pyarrow's table holds copies of them, not the buffer (reused after it).
    bytes_read = pa.py_buffer(buffer).slice(0, end)
    one_block = pj.ReadOptions(block_size=max(end, 1), use_threads=False)

    def parsed(options: Any = None) -> Any:
        return pj.read_json(pa.BufferReader(bytes_read), read_options=one_block, parse_options=options)

    table = parsed()
    dates = [field.name for field in table.schema if pa.types.is_temporal(field.type)]
    if dates:
        schema = pa.schema([pa.field(f.name, pa.string() if f.name in dates else f.type) for f in table.schema])
        table = parsed(pj.ParseOptions(explicit_schema=schema))
    if table.num_rows != lines or any(pa.types.is_nested(field.type) for field in table.schema):
        return None
    for i, field in enumerate(table.schema):
        if field.name in coded and pa.types.is_string(field.type):
            table = table.set_column(i, field.name, pc.dictionary_encode(table.column(i)))
    return table


def _plain_lines_of(buffer: bytearray, end: int, first: bool) -> int | None:
    """The number of lines in the buffer's first ``end`` bytes (whole lines; the file's first with ``first``) when
    each starts with an object and holds nothing after its end, nested less than the bound, in UTF-8 with no
    surrogate escape; else None."""
    import codecs

    if buffer.find(b"\\", 0, end) >= 0 and _SURROGATE_ESCAPE.search(buffer, 0, end):  # no backslash, no escape
        return None
    text = np.frombuffer(buffer, np.uint8, end)
    if not _nothing_after_objects(buffer, text):
        return None
    breaks = _positions(text, "\n")
    lines = breaks.size + int(text[-1] != ord("\n"))
    start = len(_BYTE_ORDER_MARK) if first and buffer.startswith(_BYTE_ORDER_MARK) else 0
    starts = breaks[breaks < end - 1] + 1  # the line starts after the first
    if text[start] != ord("{") or not (text[starts] == ord("{")).all():
        return None
    opened = buffer.count(b"{", 0, end) + buffer.count(b"[", 0, end)
    if opened - lines > _EXTRA_BRACKETS:
        return None
    if int(text.max()) >= 0x80:  # not ASCII: UTF-8 throughout?
        try:
            with memoryview(buffer) as view:
                codecs.utf_8_decode(view[:end], "strict", True)
        except UnicodeDecodeError:
            return None
    return lines


def _nothing_after_objects(buffer: bytearray, text: np.ndarray) -> bool:
    """Whether every ``}`` in the text is followed on its line by a comma, a closing bracket or the line's end
    (spaces between). The byte after each is looked at at once; the few followed by a space are matched one by
    one."""
    closes = _positions(text, "}")
    after = text[np.minimum(closes + 1, text.size - 1)]  # the text's last byte, a "}", is taken as its own
    spaced = closes[~np.isin(after, _CLOSING)]
    end = text.size
    return all(_AFTER_AN_OBJECT.match(buffer, int(at), end) for at in spaced)


# The slice of a piece whose bytes are compared at once: its mask of 8 MiB is memory the allocator reuses, where
# a mask of a whole piece (48 MiB) was fresh pages each time (at 10^6 records x 2, half the command's page faults).
_SLICE = 8 << 20


def _positions(text: np.ndarray, character: str) -> np.ndarray:
    """Where the text holds the character (one byte), in order."""
    byte = ord(character)
    found = [np.flatnonzero(text[at:at + _SLICE] == byte) + at for at in range(0, text.size, _SLICE)]
    return np.concatenate(found) if found else np.empty(0, np.int64)


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
    if pa.types.is_dictionary(kind):  # an identity column's text, dictionary-encoded (_piece)
        kind = kind.value_type
    return pa.types.is_integer(kind) or pa.types.is_string(kind) or pa.types.is_large_string(kind)
