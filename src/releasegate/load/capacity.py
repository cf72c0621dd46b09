"""Inputs the machine cannot hold are refused before they are read, with the figures, instead of the process
being killed by the kernel half-way (or the machine swapping for an hour).

The memory a comparison needs grows with its rows: measured on the default install with bench/generate.py's
files (bench/RESULTS.md, "10^8 on paper"), the peak is about :data:`PER_CSV_BYTE` times a CSV's size and
:data:`PER_ROW` bytes per row of a Parquet file (whose rows its footer says without reading them). JSON and JSON
lines are parsed into Python objects first, several times their size (:data:`PER_JSON_BYTE`). The estimate is
compared with the memory the system says a process can still take (``MemAvailable``, and a control group's
limit when there is one); where neither can be read, nothing is refused.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from releasegate.errors import FileError

PER_CSV_BYTE = 4.5  # peak bytes per byte of CSV or TSV (10^7 cases x 2 releases, 974 MB: about 4.2 GiB)
PER_JSON_BYTE = 12.0  # JSON and JSON lines: every record a Python dict before the table is built
PER_ROW = 200  # peak bytes per row of a Parquet file (10^7 cases x 2: 3.8 GiB)
BASE = 200 << 20  # the interpreter, pandas, numpy and pyarrow loaded
SKIP = "RELEASEGATE_MEMORY_CHECK"  # "0": read whatever the estimate says (the estimate may be wrong)
_KINDS = {".csv": "CSV", ".tsv": "TSV", ".json": "JSON", ".jsonl": "JSON lines", ".ndjson": "JSON lines",
          ".parquet": "Parquet"}


def needed(path: Path) -> int | None:
    """The estimated peak bytes of comparing the tidy file ``path`` (None: a format this does not estimate)."""
    suffix = path.suffix.lower()
    if suffix not in _KINDS:
        return None
    if suffix == ".parquet":
        rows = parquet_rows(path)
        return None if rows is None else rows * PER_ROW
    size = path.stat().st_size
    return int(size * (PER_CSV_BYTE if suffix in (".csv", ".tsv") else PER_JSON_BYTE))


def parquet_rows(path: Path) -> int | None:
    """The rows a Parquet file's footer records (None when it cannot be read: the reader then says why)."""
    try:
        import pyarrow.parquet as pq

        return int(pq.ParquetFile(path).metadata.num_rows)
    except Exception:  # noqa: BLE001  (any unreadable file: its reader refuses it with the message users see)
        return None


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
