"""Inputs the machine cannot hold are refused before they are read, with the figures, instead of the process
being killed by the kernel half-way (or the machine swapping for an hour).

The memory a comparison needs depends on what a file holds, not only on its size: a byte of a case's answer
text costs several times a byte of pass/fail numbers (it is kept beside the case and copied into the listings
of changed cases). So a CSV's header and :data:`SAMPLE` bytes of it (its start and its end) are read to tell its
:class:`Shape`: its rows (the file's size over the sample's bytes per row), its numeric columns, its
dictionary-encoded ones, the bytes of its case ids and of its other (metadata) columns. A Parquet file's footer
gives its rows and columns and its first rows the bytes of its text. Each kind has its factor, measured per
shape on the default install (bench/capacity_shapes.py, bench/RESULTS.md "10^8 on paper"): the largest each
needed to bound every measured shape from above (a linear program over 15 files, bench/capacity_fit.py:
pass/fail, runs with clusters, answer text, long ids, many numeric or text metadata columns, CSV and Parquet,
10^6 to 10^8 cases), plus 15%. The estimate is then 1.07-1.30 times the measured peak of every shape (1.09 at
10^6 cases x 2 of bench/generate.py's shape, 1.25 at 10^7, 1.30 at 10^8), 1.54 for text columns of few
distinct values, and up to 1.70 for answer text when few cases change (the listings hold only the changed
ones; that is not known before reading). JSON Lines whose sampled lines are flat records are read by pyarrow
to the same table, so their shape is told from the sampled records, plus the parse's pieces in flight
(1.18-2.30 times the measured peak of nine shapes, 1.43 at 10^7 cases x 2); should a line further on not be
one, the file is read a record at a time and checked again before that (:func:`check_fits_by_record`). Other
JSON is parsed into Python objects first, several times its size (:data:`PER_JSON_BYTE`, 1.4-1.7 times the
measured peak). The estimate is compared with the
memory the system says a process can still take (``MemAvailable``, and a control group's limit when there is
one); where neither can be read, nothing is refused.
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from releasegate.errors import FileError

# Peak bytes of comparing a table, by what it holds (bench/capacity_shapes.py, measured per shape on the default
# install, bench/capacity_fit.py): the least factors that bound every measured peak (32.5, 5.9, 4, 3.0, 0 and
# 6.2 below, in order), plus 15% rounded up.
PER_ROW = 38  # every row: validation's codes and masks, the analysis's per-case arrays
PER_NUMBER = 6.9  # each outcome, run, latency, token or cost column, per row: float64 values and their copies
PER_CODE = 4.6  # each of release, category and cluster, per row: dictionary-encoded at read, 32-bit codes
PER_ID_BYTE = 3.5  # each byte of the case ids: Arrow strings, hashed and sorted once
PER_META_VALUE = 0  # each value of any other column, per row: the fit found none beyond its bytes (below)
PER_META_BYTE = 7.2  # each byte of the answers, labels, notes (the case's metadata) as written: kept beside the
# cases, copied into their listings
PER_JSON_BYTE = 12.0  # JSON and JSON lines: every record a Python dict before the table is built
# JSON Lines of flat records, read by pyarrow in pieces two at a time (load/arrow_json.py): beside what the
# table's shape needs, each piece's bytes and its parse's working memory, per byte of the pieces in flight (at
# most two pieces' worth of the file). At most 1.83 was needed (the largest of 15 runs of 10^6 cases x 2, 572 MiB;
# the runs differ as the two pieces overlap in time), plus 15%.
PER_JSON_PIECE_BYTE = 2.1
JSON_PIECES_IN_FLIGHT = 2 * (48 << 20)  # two of load/arrow_json.py's pieces
BASE = 200 << 20  # the interpreter, pandas, numpy and pyarrow loaded
SKIP = "RELEASEGATE_MEMORY_CHECK"  # "0": read whatever the estimate says (the estimate may be wrong)
SAMPLE = 1 << 18  # the bytes of a CSV read to tell its shape: half from its start, half from its end
_KINDS = {".csv": "CSV", ".tsv": "TSV", ".json": "JSON", ".jsonl": "JSON lines", ".ndjson": "JSON lines",
          ".parquet": "Parquet"}
# Read as 32-bit dictionary codes (load/arrow_csv.py), and the columns compared as numbers; every other column
# but case_id is the case's metadata.
_CODED = ("release", "category", "cluster")
_NUMBERS = ("passed", "score", "run", "latency_ms", "input_tokens", "output_tokens", "cost")


@dataclass(frozen=True)
class Shape:
    """What a table holds, as far as memory goes: its rows, how many columns of each kind, and its text's bytes."""

    rows: float
    numbers: int
    codes: int
    id_bytes: float
    metas: int
    meta_bytes: float

    def peak(self) -> int:
        """The estimated peak bytes of comparing it (without the start-up, :data:`BASE`)."""
        per_row = PER_ROW + PER_NUMBER * self.numbers + PER_CODE * self.codes + PER_META_VALUE * self.metas
        return int(self.rows * per_row + PER_ID_BYTE * self.id_bytes + PER_META_BYTE * self.meta_bytes)


def needed(path: Path) -> int | None:
    """The estimated peak bytes of comparing the tidy file ``path`` (None: a format this does not estimate)."""
    suffix = path.suffix.lower()
    if suffix not in _KINDS:
        return None
    if suffix == ".parquet":
        shape = parquet_shape(path)
        return None if shape is None else shape.peak()
    try:
        if suffix in (".csv", ".tsv"):
            return delimited_shape(path, "\t" if suffix == ".tsv" else ",").peak()
        if suffix in (".jsonl", ".ndjson"):
            shape = json_lines_shape(path)
            if shape is not None:  # read by pyarrow's reader in pieces (load/arrow_json.py)
                return shape.peak() + int(PER_JSON_PIECE_BYTE * min(path.stat().st_size, JSON_PIECES_IN_FLIGHT))
        return by_record(path)
    except OSError:  # a file that cannot be read: its reader refuses it with the message users see
        return None


def delimited_shape(path: Path, sep: str) -> Shape:
    """The shape of a CSV or TSV told from :data:`SAMPLE` bytes of it (its start and its end: a file sorted by
    release has the candidate's rows at the end), its rows and text bytes scaled to the file's size. A value
    longer than the sample counts every byte of the file as text."""
    size = path.stat().st_size
    head, tail = _sample(path, size)
    lines = head.split(b"\n", 1)
    header = _fields(lines[0], sep)
    width = len(header)
    body = [lines[1] if len(lines) > 1 else b""]
    if tail:  # both parts cut at line ends: the first and last lines of a part may be partial
        body = [body[0][:body[0].rfind(b"\n") + 1], tail[tail.find(b"\n") + 1:] if b"\n" in tail else b""]
    rows = [row for part in body for row in _rows(part, sep) if len(row) == width]
    if not rows:
        return Shape(rows=1 + size / SAMPLE, numbers=0, codes=0, id_bytes=0, metas=max(width, 1), meta_bytes=size)
    row_bytes = sum(len(",".join(row).encode()) + 1 for row in rows) / len(rows)
    count = len(rows) if not tail else max(size - len(lines[0]) - 1, 0) / row_bytes
    names = [name.strip() for name in header]
    kinds = [_kind(name) for name in names]
    return Shape(rows=count, numbers=kinds.count("number"), codes=kinds.count("code"),
                 id_bytes=count * _bytes_per_row(rows, kinds, "id"), metas=kinds.count("meta"),
                 meta_bytes=count * _bytes_per_row(rows, kinds, "meta"))


def _sample(path: Path, size: int) -> tuple[bytes, bytes]:
    """The file's first and last ``SAMPLE // 2`` bytes (the whole file, and no tail, when it is no longer than
    :data:`SAMPLE`)."""
    with open(path, "rb") as handle:
        head = handle.read(SAMPLE if size <= SAMPLE else SAMPLE // 2)
        if size <= SAMPLE:
            return head, b""
        handle.seek(size - SAMPLE // 2)
        return head, handle.read()


def by_record(path: Path) -> int:
    """The estimated peak bytes of reading JSON with the standard module, a Python dict per record."""
    return int(path.stat().st_size * PER_JSON_BYTE)


def json_lines_shape(path: Path) -> Shape | None:
    """The shape of a JSON Lines file told from :data:`SAMPLE` bytes of it (its start and its end), when every
    whole line there is one flat record (no object or list inside): such a file is read by pyarrow's reader
    (load/arrow_json.py), to the table a CSV of the same records gives. None otherwise: the file is then likely
    read a record at a time (:func:`by_record`). Its rows are the file's size over the sample's bytes per line."""
    import json

    size = path.stat().st_size
    head, tail = _sample(path, size)
    parts = [head] if not tail else [head[:head.rfind(b"\n") + 1], tail[tail.find(b"\n") + 1:]]
    lines = [line for part in parts for line in part.splitlines() if line.strip()]
    records = []
    for line in lines:
        try:
            record = json.loads(line)
        except ValueError:
            return None
        if not isinstance(record, dict) or any(isinstance(v, (dict, list)) for v in record.values()):
            return None
        records.append(record)
    if not records:
        return None
    count = len(records) if not tail else size / (sum(len(line) + 1 for line in lines) / len(lines))
    names = list(dict.fromkeys(name for record in records for name in record))
    kinds = {name: _kind(name.strip()) for name in names}

    def per_row(kind: str) -> float:
        return sum(len(_as_text(value)) for record in records for name, value in record.items()
                   if kinds[name] == kind) / len(records)

    named = list(kinds.values())
    return Shape(rows=count, numbers=named.count("number"), codes=named.count("code"),
                 id_bytes=count * per_row("id"), metas=named.count("meta"), meta_bytes=count * per_row("meta"))


def check_fits_by_record(path: Path) -> None:
    """Refuse, in one line with the figures, a JSON Lines file that pyarrow's reader did not take (a line that is
    not one flat record past the sample the estimate read) when reading it a record at a time would not fit the
    memory available now: the estimate before reading was pyarrow's."""
    if os.environ.get(SKIP) == "0":
        return
    need, free = by_record(path), available()
    if free is None or need <= free:
        return
    raise FileError(f"{path} ({_size(path.stat().st_size)} of JSON lines) holds lines that are not one flat record "
                    f"each, so it is read a record at a time, which would need about {_gib(need)} of memory, and "
                    f"this machine has {_gib(free)} available: write one flat record a line, free memory or run it "
                    f"on a larger machine ({SKIP}=0 reads it anyway)")


def _as_text(value: object) -> bytes:
    """A JSON value's bytes as a CSV would hold it (null: none)."""
    import json

    if value is None:
        return b""
    return value.encode() if isinstance(value, str) else json.dumps(value).encode()


def _bytes_per_row(rows: list[list[str]], kinds: list[str], kind: str) -> float:
    """The mean bytes a row holds in the columns of one kind."""
    columns = [i for i, one in enumerate(kinds) if one == kind]
    return sum(len(row[i].encode()) for row in rows for i in columns) / len(rows)


def _fields(line: bytes, sep: str) -> list[str]:
    rows = _rows(line, sep)
    return rows[0] if rows else []


def _rows(part: bytes, sep: str) -> list[list[str]]:
    """The rows of a part of the file (text that is not UTF-8 replaced: only lengths and kinds are read)."""
    text = part.decode("utf-8", errors="replace").lstrip("\ufeff")
    try:
        return list(csv.reader(io.StringIO(text, newline=""), delimiter=sep))
    except csv.Error:  # a field over the module's limit: the sample tells nothing but its size
        return []


def _kind(name: str) -> str:
    """"code" (dictionary-encoded at read), "id" (the case ids), "number" (a column the comparison reads as
    numbers) or "meta" (any other: the case's metadata, kept as written)."""
    return "code" if name in _CODED else "id" if name == "case_id" else "number" if name in _NUMBERS else "meta"


def parquet_shape(path: Path) -> Shape | None:
    """The shape of a Parquet file from its footer (rows and column types) and the first rows of its text columns
    (their bytes per value, scaled to its rows), read a page at a time. None when it cannot be read: the reader
    then says why."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq

        parquet = pq.ParquetFile(path, buffer_size=SAMPLE)
        rows = parquet.metadata.num_rows
        schema = parquet.schema_arrow
        kinds = {f.name: _kind(f.name.strip()) for f in schema}
        per_row = dict.fromkeys(("id", "meta"), 0.0)
        text = [name for name, kind in kinds.items() if kind in per_row]
        first = next(parquet.iter_batches(batch_size=4096, columns=text), None) if text and rows else None
        if first is not None and first.num_rows:
            for name, column in zip(first.column_names, first.columns):
                per_row[kinds[name]] += _value_bytes(pa, column) / first.num_rows
        named = list(kinds.values())
        return Shape(rows=rows, numbers=named.count("number"), codes=named.count("code"),
                     id_bytes=rows * per_row["id"], metas=named.count("meta"), meta_bytes=rows * per_row["meta"])
    except Exception:  # noqa: BLE001  (any unreadable file: its reader refuses it with the message users see)
        return None


def _value_bytes(pa, column) -> int:  # noqa: ANN001
    """The bytes of a column's values as text would write them (a nested value as its string form)."""
    import pyarrow.compute as pc

    if not (pa.types.is_string(column.type) or pa.types.is_large_string(column.type)):
        column = pc.cast(column, pa.string()) if pa.types.is_primitive(column.type) else pa.array(
            [str(value) for value in column.to_pylist()])
    return int(pc.sum(pc.binary_length(column)).as_py() or 0)


def available() -> int | None:
    """Bytes this process can still take: the system's MemAvailable, or less under a control group's limit."""
    found = None
    try:
        with open("/proc/meminfo", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    found = int(line.split()[1]) * 1024
                    break
    except (OSError, ValueError, IndexError):
        return None
    try:
        limit = Path("/sys/fs/cgroup/memory.max").read_text().strip()
        used = int(Path("/sys/fs/cgroup/memory.current").read_text().strip())
        if limit.isdigit():
            found = min(found, int(limit) - used) if found is not None else int(limit) - used
    except (OSError, ValueError):
        pass
    return found


def check_fits(paths: Iterable[Path]) -> None:
    """Refuse, in one line with the figures, tidy inputs whose estimated peak exceeds the available memory."""
    if os.environ.get(SKIP) == "0":
        return
    sized = [(path, needed(path)) for path in paths]
    sized = [(path, n) for path, n in sized if n is not None]
    if not sized:
        return
    total = BASE + sum(n for _, n in sized)
    free = available()
    if free is None or total <= free:
        return
    largest = max(sized, key=lambda pair: pair[1])[0]
    what = f"{largest} ({_size(largest.stat().st_size)} of {_KINDS[largest.suffix.lower()]})"
    if len(sized) > 1:
        what += f" and {len(sized) - 1} other file(s)"
    raise FileError(f"{what} would need about {_gib(total)} of memory to compare, and this machine has "
                    f"{_gib(free)} available: free memory or run it on a larger machine ({SKIP}=0 reads it anyway)")


def _gib(n: int) -> str:
    return f"{n / 2**30:.1f} GiB"


def _size(n: int) -> str:
    return f"{n / 1e9:.1f} GB" if n >= 1e9 else f"{n / 1e6:.0f} MB"
