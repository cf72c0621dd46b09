"""validate/scan.py's slices made a few rows long inside a block, so that every answer of the scans crosses a
slice edge (tests/validate/test_scan.py, tests/validate/test_keycodes_scans.py)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from releasegate.validate import scan


@contextmanager
def sliced(rows: int) -> Iterator[None]:
    """scan.ROWS set to ``rows`` inside the block, and back after it (also after a failure)."""
    saved, scan.ROWS = scan.ROWS, rows
    try:
        yield
    finally:
        scan.ROWS = saved
