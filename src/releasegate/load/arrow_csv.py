"""CSV and TSV read by pyarrow's multithreaded reader, to the frame pandas' parser gives (load/tidy.py).

pandas' parser runs on one core and makes a Python-visible string for every identity value; pyarrow's reads
blocks of the file on both cores and dictionary-encodes ``release``, ``category`` and ``cluster`` as it reads
(a few distinct values: 32-bit codes, never a string per row), so validation starts from codes. The frame is the
one pandas' reading gives (tests/load/test_arrow_csv.py compares them): identity columns are text with only the
empty cell missing, other text columns have pandas' missing-value words made missing, pandas' true and false
words, no dates or times parsed.

When pyarrow refuses the file (a malformed line, bytes that are not UTF-8, a number it will not read) or the
file is one pyarrow would read otherwise than pandas (a column name given twice), :func:`read_delimited` returns
None and the caller reads it with pandas, whose refusals carry the messages users see (docs/input-errors.md).
"""

from __future__ import annotations

import io
import mmap
from pathlib import Path
from typing import Any, BinaryIO

import pandas as pd

# pandas' words for true and false; pyarrow's own lists also take 1 and 0, which pandas reads as numbers.
_TRUE = ["True", "TRUE", "true"]
_FALSE = ["False", "FALSE", "false"]
# Identity columns with few distinct values: dictionary-encoded at read. case_id is nearly one value a case,
# so a dictionary would be as large as the column: it is read as plain text.
DICTIONARY_COLUMNS = ("release", "category", "cluster")


def read_delimited(path: Path, sep: str, header: list[str], identity: list[str],
                   na_words: list[str]) -> pd.DataFrame | None:
    """The file as pandas' ``read_csv`` with the options of load/tidy.py gives it, or None when pyarrow cannot
    give the same frame or refuses the file. ``header`` is the header row as written; ``identity`` the header's
    names of the identity columns (read as text, only the empty cell missing)."""
    import pyarrow as pa
    import pyarrow.csv as csv

    if len({name.strip() for name in header}) != len(header) or any(not name for name in header):
        return None  # pandas renames such headers ("passed.1", "Unnamed: 2"); tidy.py refuses or keeps them
    text = pa.string()
    types = {name: (pa.dictionary(pa.int32(), text) if name.strip() in _dictionary_names(identity) else text)
             for name in identity}
    options = csv.ConvertOptions(column_types=types, null_values=na_words, strings_can_be_null=False,
                                 true_values=_TRUE, false_values=_FALSE)
    quoted = _has_quotes(path)
    parse = csv.ParseOptions(delimiter=sep, newlines_in_values=quoted)
    try:
        table = _read_table(path, parse, options, header, split=not quoted)
        table = _retyped(path, table, parse, options)
    except (pa.ArrowException, OSError, UnicodeDecodeError):
        return None
    if table.column_names != header:
        return None
    return _frame(table, set(identity), na_words)


# Blocks of the streaming reader: large enough that a block's types say the column's, small enough that two in
# flight per core cost little beside the table.
BLOCK = 16 << 20
# Below this a file is read in one stream: a second thread would cost more than it saves.
SPLIT_FROM = 64 << 20


def _read_table(path: Path, parse: Any, options: Any, header: list[str], split: bool) -> Any:
    """The file as one Arrow table, read by streaming readers (one block in flight each, so the peak is the table
    and not the file read ahead as well: pyarrow's whole-file reader held three times the table at 10^7 rows). A
    file with no quote (no value can hold a line break) is cut at the line end nearest its middle and the halves
    read on two threads. A stream infers each column's type from its first block; when a later block or the other
    half disagrees (a column empty for a while, then filled), pyarrow's whole-file reader, which settles every
    column's type over all blocks, reads it instead."""
    import pyarrow as pa
    import pyarrow.csv as csv

    size = path.stat().st_size
    cut = _middle_line_end(path, size) if split and size >= SPLIT_FROM else None
    try:
        if cut is None:
            return _stream(path, 0, size, parse, options, None)
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=1) as pool:
            second = pool.submit(_stream, path, cut, size, parse, options, header)
            first = _stream(path, 0, cut, parse, options, None)
            rest = second.result()
        if rest.num_rows and rest.schema != first.schema:
            raise pa.ArrowInvalid("the halves were read with different types")
        return pa.concat_tables([first, rest]) if rest.num_rows else first
    except pa.ArrowInvalid as exc:
        if "conversion error" not in str(exc) and "different types" not in str(exc):
            raise
        return csv.read_csv(path, parse_options=parse, convert_options=options)


def _stream(path: Path, start: int, stop: int, parse: Any, options: Any, header: list[str] | None) -> Any:
    """Bytes ``start`` to ``stop`` of the file as a table (``header``: the column names, for a part without the
    header row)."""
    import pyarrow as pa
    import pyarrow.csv as csv

    read = csv.ReadOptions(block_size=BLOCK, use_threads=False, column_names=header or None)
    with open(path, "rb") as handle:
        handle.seek(start)
        stream = pa.PythonFile(_Range(handle, stop - start), mode="r")
        reader = csv.open_csv(stream, read_options=read, parse_options=parse, convert_options=options)
        return reader.read_all()


class _Range(io.RawIOBase):
    """The next ``length`` bytes of an open file, as a file of its own."""

    def __init__(self, handle: BinaryIO, length: int) -> None:
        super().__init__()
        self._handle, self._left = handle, length

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        want = min(len(buffer), self._left)
        if want <= 0:
            return 0
        got = self._handle.readinto(memoryview(buffer)[:want])
        self._left -= got
        return got


def _middle_line_end(path: Path, size: int) -> int | None:
    """The offset just after the first line break at or past the middle of the file (None: none there)."""
    with open(path, "rb") as handle:
        handle.seek(size // 2)
        block = handle.read(1 << 20)
    at = block.find(b"\n")
    return None if at < 0 or size // 2 + at + 1 >= size else size // 2 + at + 1


def _dictionary_names(identity: list[str]) -> set[str]:
    return {name.strip() for name in identity if name.strip() in DICTIONARY_COLUMNS}


def _has_quotes(path: Path) -> bool:
    """Whether any value may hold a line break (a quote anywhere in the file): only then must pyarrow cut the file
    into blocks by parsing, not at line ends (its slower path)."""
    with open(path, "rb") as handle:
        try:
            with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as view:
                return view.find(b'"') >= 0
        except ValueError:  # an empty file cannot be mapped
            return False


def _retyped(path: Path, table: Any, parse: Any, options: Any) -> Any:
    """Columns pyarrow read as dates, times or timestamps read again as text (pandas parses no dates), and
    columns with no value at all as float (pandas' type for them)."""
    import pyarrow as pa
    import pyarrow.csv as csv

    temporal = [f.name for f in table.schema if pa.types.is_temporal(f.type) or pa.types.is_decimal(f.type)]
    if temporal:
        again = csv.read_csv(path, parse_options=parse, convert_options=csv.ConvertOptions(
            include_columns=temporal, column_types={n: pa.string() for n in temporal}, null_values=options.null_values,
            strings_can_be_null=True))
        for name in temporal:
            table = table.set_column(table.schema.get_field_index(name), name, again.column(name))
    for i, field in enumerate(table.schema):
        if pa.types.is_null(field.type):
            table = table.set_column(i, field.name, table.column(i).cast(pa.float64()))
    return table


def _frame(table: Any, identity: set[str], na_words: list[str]) -> pd.DataFrame:
    """The Arrow table as pandas' frame: the empty identity value missing, the missing-value words missing in
    other text columns (pyarrow leaves text as written when told to keep strings)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    words = pa.array(na_words, pa.string())
    for i, field in enumerate(table.schema):
        column = table.column(i)
        if field.name in identity:
            if pa.types.is_dictionary(field.type):
                continue  # handled on the categories below: one comparison per distinct value
            missing = pc.equal(column, "")
        elif pa.types.is_string(field.type) or pa.types.is_large_string(field.type):
            missing = pc.is_in(column, value_set=words)
        else:
            continue
        if pc.any(missing).as_py():
            table = table.set_column(i, field.name, pc.if_else(missing, pa.scalar(None, field.type), column))
    frame = table.to_pandas(split_blocks=True, self_destruct=True)
    for name in identity:
        if name in frame.columns and isinstance(frame[name].dtype, pd.CategoricalDtype):
            if (frame[name].cat.categories == "").any():
                frame[name] = frame[name].cat.remove_categories([""])
    return frame
