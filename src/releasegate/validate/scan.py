"""Questions about a whole column answered a slice of rows at a time, for the checks of validation.

At 10^7 cases x 2 releases a mask of every row is 20 MB and a comparison's copy of a code column 40-160 MB.
Arrays above 32 MiB are mapped afresh from the kernel and unmapped when freed (releasegate.process), and fresh
pages cost about 1-2.7 s per GB on the machines measured; smaller ones come from the heap, used again. Asked a
slice of 2^20 rows at a time, a check's temporaries are 1-8 MB, the same heap memory for every slice, and a
question answered in the first slice (the first missing value, the first row out of order) stops there.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np

ROWS = 1 << 20  # rows per slice: temporaries of 1-8 MB, and a few dozen Python steps at 10^7 rows


def slices(n: int, size: int | None = None) -> Iterator[slice]:
    """The rows 0..n-1 as consecutive slices of at most ``size`` rows (:data:`ROWS` unless given)."""
    size = size or ROWS
    for start in range(0, n, size):
        yield slice(start, min(start + size, n))


def any_row(test: Callable[..., np.ndarray], *columns: np.ndarray) -> bool:
    """Whether ``test`` (elementwise, on the same slice of every column) holds in some row."""
    n = len(columns[0])
    return any(bool(test(*(c[part] for c in columns)).any()) for part in slices(n))


def first_true(mask: np.ndarray) -> int:
    """The first row where ``mask`` holds (-1 if none). ``np.argmax`` copies a read-only mask whole first (the
    masks pandas' comparisons give are), 20 MB at 2 x 10^7 rows; a slice's copy is 1 MB."""
    for part in slices(len(mask)):
        if mask[part].any():
            return part.start + int(np.argmax(mask[part]))
    return -1


def has_nan(values: np.ndarray) -> bool:
    """Whether a float column holds a NaN (a column of another kind holds none)."""
    return values.dtype.kind in "fc" and any_row(np.isnan, values)


def strictly_increasing(values: np.ndarray) -> bool:
    """Whether each value is above the one before it: each code then occurs once (a release listing its cases in
    code order, the layout of a file written in case order), which no count is needed to see."""
    n = len(values)
    return n < 2 or not any_row(np.less_equal, values[1:], values[:-1])


def equal(left: np.ndarray, right: np.ndarray) -> bool:
    """Whether two columns of one length hold the same values row by row (``np.array_equal`` without a mask of
    every row)."""
    return len(left) == len(right) and not any_row(np.not_equal, left, right)


def change_points(values: np.ndarray, limit: int) -> np.ndarray | None:
    """The rows whose value differs from the row before (row 0 first), or None once there are more than
    ``limit`` of them: a column of many short runs is not the layout asked about, and listing its every change
    would be 8 bytes a row."""
    found = [np.zeros(1, dtype=np.int64)] if len(values) else []
    count = len(found)
    if count > limit:
        return None
    for part in slices(len(values) - 1):
        # The row after each pair, where the pair differs: part.start + 1 + the position in the slice.
        change = np.flatnonzero(values[part.start + 1:part.stop + 1] != values[part]) + (part.start + 1)
        count += change.size
        if count > limit:
            return None
        found.append(change)
    return np.concatenate(found) if found else np.zeros(0, dtype=np.int64)
