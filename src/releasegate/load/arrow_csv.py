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

import mmap
from pathlib import Path
from typing import Any

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
    # Plain identity text (case_id) as pandas keeps it, 64-bit offsets: read with 32-bit ones, pandas' conversion
    # cast every value to them (0.4-0.5 s and a second copy of the offsets at 10^7 rows x 2).
    text = pa.string()
    types = {name: (pa.dictionary(pa.int32(), text) if name.strip() in _dictionary_names(identity)
                    else pa.large_string()) for name in identity}
    options = csv.ConvertOptions(column_types=types, null_values=na_words, strings_can_be_null=False,
                                 true_values=_TRUE, false_values=_FALSE)
    quoted = _has_quotes(path)
    parse = csv.ParseOptions(delimiter=sep, newlines_in_values=quoted)
    try:
        table = _read_table(path, parse, options, header, quoted)
        if table is None:
            return None
        table = _retyped(path, table, parse, options)
    except (pa.ArrowException, OSError, UnicodeDecodeError):
        return None
    if table.column_names != header:
        return None
    held = [table]  # handed over: _frame holds the table's only reference (see pandas_frame)
    del table
    return _frame(held, set(identity), na_words)


# A file is read in pieces of about this size cut at line ends, one piece after the other, each by pyarrow's
# multithreaded reader in blocks of BLOCK bytes: both cores parse every piece, and only one piece's working memory
# is held beside the table read so far. Read whole, the multithreaded reader held three times the table at 10^7
# rows; read as two streams of one block each, it took 1.2-1.5x its CPU time (bench/RESULTS.md).
PIECE = 48 << 20
BLOCK = 8 << 20


def _read_table(path: Path, parse: Any, options: Any, header: list[str], quoted: bool) -> Any | None:
    """The file as one Arrow table, read in pieces cut at line ends, each by the multithreaded reader. A piece's
    reader settles each column's type over all of the piece's blocks, and pieces whose types differ are joined at
    the type that holds both where there is one. When no type holds two pieces' values (numbers in one, text in
    another), pyarrow's whole-file reader is tried, and pandas reads the file when it refuses too (read_delimited).

    A file with quotes (``quoted``) may hold a value with a line break, and then only a parse finds where its lines
    end: it is read in pieces as well, and when a piece holds such a value (or does not parse, or the pieces do not
    join), the file is read again by one streaming reader with one block in flight (so the peak is the table, not
    the file read ahead as well), which infers a column's type from its first block; a later block that disagrees
    with its first (a column empty for a while, then filled) sends it to the whole-file reader too. Read so, a
    value holding a carriage return means None (pandas reads the file): where one of pyarrow's blocks ends between
    the two bytes of a ``\r\n`` inside a quoted value, pyarrow drops the ``\n`` (pyarrow 26, a block of 634
    bytes in tests/load/test_arrow_csv.py)."""
    import pyarrow as pa
    import pyarrow.csv as csv

    size = path.stat().st_size
    lines = csv.ParseOptions(delimiter=parse.delimiter) if quoted else parse
    table = None
    try:
        table = _in_pieces(path, size, lines, options, header, whole_lines=quoted)
        if table is not None:
            return table
        if quoted:
            table = _stream(path, 0, size, parse, options, None)
    except pa.ArrowInvalid as exc:
        if "conversion error" not in str(exc):
            raise
    if table is None:
        table = csv.read_csv(path, parse_options=parse, convert_options=options)
    return None if quoted and _holds_text(table, ("\r",)) else table


def _in_pieces(path: Path, size: int, parse: Any, options: Any, header: list[str],
               whole_lines: bool = False) -> Any | None:
    """The file read in pieces cut at line ends and joined, or None when no type holds two pieces' values. With
    ``whole_lines`` (a file with quotes), also None as soon as a piece does not parse or holds a value with a line
    break: a cut, or the reader's own block boundary, may then have fallen inside a quoted value.

    Why a line break always shows: up to the first line break inside a quoted value every cut is at a true line
    end, so the piece (and the block) holding that value's opening quote starts where a record starts and reads
    the quote as the stream would. Its reader then either finds the closing quote, or reaches the end of its block
    first; either way the value it gives holds the line break."""
    import pyarrow as pa

    cuts = line_ends(path, size, PIECE)
    parts = []
    for start, stop in zip(cuts, cuts[1:]):
        try:
            part = _piece(path, start, stop, parse, options, header if start else None)
        except pa.ArrowInvalid:
            if whole_lines:
                return None
            raise
        if whole_lines and _holds_text(part, _LINE_BREAKS):
            return None
        parts.append(part)
    try:
        # Types as pandas settles them over the whole column: a piece of whole numbers beside one with decimals is
        # read as decimals, a piece where a column is empty takes the others' type.
        return pa.concat_tables(parts, promote_options="permissive") if len(parts) > 1 else parts[0]
    except pa.ArrowTypeError:
        return None  # types no promotion joins (text in one piece, numbers in another)


_LINE_BREAKS = ("\n", "\r")


def _holds_text(table: Any, characters: tuple[str, ...]) -> bool:
    """Whether any text value of the table (a dictionary's values for a dictionary-encoded column) holds one of the
    ``characters`` (of one byte each). A value with a line break is text whatever its column's other values:
    pyarrow reads no number, no truth value and no date from it. The bytes of every chunk's values are searched at
    once."""
    import numpy as np
    import pyarrow as pa

    for column in table.columns:
        for chunk in column.chunks:
            if pa.types.is_dictionary(chunk.type):
                chunk = chunk.dictionary
            wide = pa.types.is_large_string(chunk.type)
            if not (wide or pa.types.is_string(chunk.type)) or len(chunk) == 0:
                continue
            _, offsets, data = chunk.buffers()
            if data is None:
                continue
            ends = np.frombuffer(offsets, np.int64 if wide else np.int32)[chunk.offset:chunk.offset + len(chunk) + 1]
            text = np.frombuffer(data, np.uint8)[ends[0]:ends[-1]]
            if any((text == ord(character)).any() for character in characters):
                return True
    return False


def _piece(path: Path, start: int, stop: int, parse: Any, options: Any, header: list[str] | None) -> Any:
    """Bytes ``start`` to ``stop`` of the file as a table, by the multithreaded reader (``header``: the column
    names, for a piece without the header row). The bytes go from the file to Arrow's buffers without passing
    through Python."""
    import pyarrow as pa
    import pyarrow.csv as csv

    read = csv.ReadOptions(block_size=BLOCK, use_threads=True, column_names=header or None)
    with pa.OSFile(str(path)) as handle:
        return csv.read_csv(handle.get_stream(start, stop - start), read_options=read, parse_options=parse,
                            convert_options=options)


def _stream(path: Path, start: int, stop: int, parse: Any, options: Any, header: list[str] | None) -> Any:
    """Bytes ``start`` to ``stop`` of the file as a table, by one streaming reader with one block in flight."""
    import pyarrow as pa
    import pyarrow.csv as csv

    read = csv.ReadOptions(block_size=BLOCK, use_threads=False, column_names=header or None)
    with pa.OSFile(str(path)) as handle:
        stream = handle.get_stream(start, stop - start)
        reader = csv.open_csv(stream, read_options=read, parse_options=parse, convert_options=options)
        return reader.read_all()


def line_ends(path: Path, size: int, piece: int) -> list[int]:
    """Offsets cutting the file into pieces of about ``piece`` bytes, each cut just after a line break (the first
    at or past an even share of the file; a share with no line break in the next MiB is not cut): 0, the cuts, and
    ``size``."""
    count = max(1, -(-size // piece))
    cuts = [0]
    with open(path, "rb") as handle:
        for k in range(1, count):
            handle.seek(size * k // count)
            block = handle.read(1 << 20)
            at = block.find(b"\n")
            cut = size * k // count + at + 1
            if at >= 0 and cuts[-1] < cut < size:
                cuts.append(cut)
    return cuts + [size]


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


def _frame(held: list[Any], identity: set[str], na_words: list[str]) -> pd.DataFrame:
    """The Arrow table (the one item of ``held``, taken from it) as pandas' frame: the empty identity value
    missing, the missing-value words missing in other text columns (pyarrow leaves text as written when told to
    keep strings)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    table = held.pop()
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
    held.append(table)
    table = column = None  # the list holds the only reference now
    frame = pandas_frame(held)
    for name in identity:
        if name in frame.columns and isinstance(frame[name].dtype, pd.CategoricalDtype):
            if (frame[name].cat.categories == "").any():
                frame[name] = frame[name].cat.remove_categories([""])
    return frame


def pandas_frame(held: list[Any]) -> pd.DataFrame:
    """The Arrow table in ``held`` (taken from the list, so that nothing else refers to it and each converted
    column is freed: a caller's variable naming the table would keep every column alive) as pandas' frame, one
    column at a time, each column's Arrow memory handed back to the system as soon as it is converted. Arrow's
    pool (mimalloc) keeps what is freed for its next allocations, and the conversion allocates new arrays for
    every column read in blocks: converted at once, the table and its copy were both resident (1.9 GiB at 10^7
    rows for a 0.93 GiB frame). A table carrying pandas' own metadata (an index, column levels) is converted
    whole, as pandas wrote it."""
    import pyarrow as pa

    pool = pa.default_memory_pool()
    table = held.pop()
    if table.schema.pandas_metadata is not None or table.num_columns < 2:
        frame = table.to_pandas(split_blocks=True, self_destruct=True)
        pool.release_unused()
        return frame
    parts = []
    while table.num_columns:
        # The column taken out of the table first, so that the conversion holds its only reference and frees it.
        one, table = table.select([0]), table.remove_column(0)
        parts.append(one.to_pandas(split_blocks=True, self_destruct=True))
        del one
        pool.release_unused()
    return pd.concat(parts, axis=1)
