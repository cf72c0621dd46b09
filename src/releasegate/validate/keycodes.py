"""Identity columns as integer codes, so that the checks on a million rows are counts over small integers.

A string column is factorized once (pandas' hash table over the Arrow strings); duplicate keys, a case
whose category differs between rows, and case sets that differ between releases then cost a
``numpy.bincount`` each instead of a hash of every string per check. These functions only answer yes or no;
the caller builds its message (with examples) the slow way, and only when the answer is a problem.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from releasegate.validate import scan


@dataclass(frozen=True)
class Codes:
    """One column as codes 0..n-1 in order of first appearance (-1 for a missing value)."""

    codes: np.ndarray
    n: int

    def take(self, mask: np.ndarray) -> Codes:
        return Codes(self.codes[mask], self.n)


def encode(series: pd.Series) -> Codes:
    if isinstance(series.dtype, pd.CategoricalDtype):  # already codes: nothing to hash, nothing copied
        return Codes(codes_of(series), len(series.cat.categories))
    codes, uniques = pd.factorize(series, sort=False, use_na_sentinel=True)
    return Codes(codes.astype(np.int64, copy=False), len(uniques))


def codes_of(column: pd.Series) -> np.ndarray:
    """A categorical column's codes, read-only and not copied: ``column.cat.codes`` is a new Series, and under
    pandas' copy-on-write a new Series copies its array (80 MB for 2 x 10^7 case ids)."""
    return column.array.codes


def combined(*columns: Codes) -> Codes:
    """The codes of a tuple of columns (a row's key), as one integer per row; -1 where any part is missing.

    Mixed-radix: key = ((c0 * n1) + c1) * n2 + c2 ...; refactorized when the product would not fit in 62 bits.
    """
    key = np.zeros(columns[0].codes.shape[0], dtype=np.int64)
    missing = None
    size = 1
    for column in columns:
        if size * max(column.n, 1) >= 2 ** 62:
            key, uniques = pd.factorize(key)
            size = len(uniques)
        # In place: each step's temporaries were new arrays of 8 bytes a row.
        key *= max(column.n, 1)
        key += column.codes
        if column.codes.size and column.codes.min() < 0:
            missing = column.codes < 0 if missing is None else missing | (column.codes < 0)
        size *= max(column.n, 1)
    if missing is not None:
        key[missing] = -1
    if size > 4 * key.shape[0] + 1024:  # keep bincount's table about as large as the rows
        compact, uniques = pd.factorize(key)
        return Codes(compact.astype(np.int64, copy=False), len(uniques))
    return Codes(key, size)


def counts(column: Codes) -> np.ndarray:
    """How many rows hold each code (missing values not counted)."""
    codes = column.codes
    present = codes[codes >= 0] if codes.size and codes.min() < 0 else codes  # copied only when some are missing
    return np.bincount(present, minlength=column.n)


def has_duplicates(key: Codes) -> bool:
    """Whether a code occurs twice (missing values aside): fewer codes marked than rows hold one. A mark a code
    (1 byte) instead of a count (8 bytes, and the codes widened to 64 bits first): half the time at 10^7 rows."""
    codes = key.codes
    if scan.strictly_increasing(codes):  # each code once (cases in code order): nothing to mark
        return False
    present = codes[codes >= 0] if codes.size and codes.min() < 0 else codes
    marks = np.zeros(key.n, dtype=bool)
    marks[present] = True
    return int(np.count_nonzero(marks)) < present.size


def has_duplicate_keys(*columns: Codes) -> bool:
    """Whether two rows hold the same key (the tuple of the columns' codes; a key with a part missing is no
    key). The first column is a release: its rows are looked at one release at a time, so that the count table
    is as long as the rest's codes, not releases x the rest's (at 10^7 cases x 2 releases the combined key and
    its counts were 0.3 GiB at once)."""
    first, rest = columns[0], columns[1:]
    if not rest or first.n > 64 or (first.codes.size and first.codes.min() < 0):
        return has_duplicates(combined(*columns))
    runs = code_runs(first.codes, first.n)
    for code in range(first.n):
        # A release written as one block is a slice of the other columns' codes, not a copy of them.
        rows = runs.get(code, slice(0, 0)) if runs is not None else contiguous(first.codes == code)
        parts = [Codes(column.codes[rows], column.n) for column in rest]
        if has_duplicates(parts[0] if len(parts) == 1 else combined(*parts)):
            return True
    return False


def code_runs(codes: np.ndarray, n: int) -> dict[int, slice] | None:
    """Each code's rows as one slice, when every code the rows hold is one run of rows (releases written one after
    the other), else None: found from the rows where the code changes, with no mask of each code's rows."""
    starts = scan.change_points(codes, n + 1)
    if starts is None:
        return None
    heads = codes[starts]
    if np.unique(heads).size != heads.size:
        return None
    stops = np.append(starts[1:], codes.size)
    return {int(code): slice(int(a), int(b)) for code, a, b in zip(heads, starts, stops)}


def column_max(values: np.ndarray) -> int:
    return int(values.max()) if values.size else 0


def varies_within(groups: Codes, values: Codes) -> bool:
    """Whether any group holds two different values (a missing value counts as a value of its own)."""
    if groups.codes.size and groups.codes.min() < 0:  # copied only when some are missing
        known = groups.codes >= 0
        groups, values = groups.take(known), values.take(known)
    if groups.codes.size == 0 or scan.strictly_increasing(groups.codes):  # each group in one row: one value
        return False
    # One of each group's values (whichever row numpy writes last), then one comparison per row: a group
    # with two values differs from it in some row, whichever it kept. ufunc.at (a minimum and a maximum per
    # group) took 0.1 s on 2,000,000 rows.
    one = np.empty(groups.n, dtype=values.codes.dtype)
    one[groups.codes] = values.codes
    # Compared a slice at a time: the looked-up values and the comparison of every row were 40 MB at 2 x 10^7.
    return scan.any_row(lambda group, value: one[group] != value, groups.codes, values.codes)


def varies_within_blocks(groups: Codes, values: Codes, blocks: list[tuple[int, int]] | None) -> bool:
    """:func:`varies_within`, quicker when every block (:func:`release_blocks`) holds the first block's groups in
    the same rows (each release listing the same cases in the same order). A group then holds another value in a
    later block exactly where that block's value differs from the first block's in the same row, and the rest is
    the first block's own answer: rows compared in order and one block counted (at 10^7 cases x 2 releases
    0.02 s instead of 0.15). Any other layout, or a missing group, is varies_within over every row."""
    codes = groups.codes
    if not blocks or blocks[0][0] != 0 or blocks[-1][1] != codes.size:
        return varies_within(groups, values)
    n = blocks[0][1]
    first = codes[:n]
    if (n and int(first.min()) < 0) or not all(scan.equal(codes[a:b], first) for a, b in blocks[1:]):
        return varies_within(groups, values)
    if not all(scan.equal(values.codes[a:b], values.codes[:n]) for a, b in blocks[1:]):
        return True
    return varies_within(Codes(first, groups.n), Codes(values.codes[:n], values.n))


def used_categories(column: pd.Series) -> pd.Index:
    """The categories of a categorical some row holds, in the categories' order (its own list may keep ones no row
    holds any more): marks on the codes, not pandas' hash of every row (``nunique``, ``unique``)."""
    codes = codes_of(column)
    marks = np.zeros(len(column.cat.categories), dtype=bool)
    marks[codes[codes >= 0] if codes.size and codes.min() < 0 else codes] = True
    return column.cat.categories[marks]


def present(groups: Codes, mask: np.ndarray | slice) -> np.ndarray:
    """Which codes occur among the rows selected by ``mask`` (or a slice of rows; marked, not counted: a count
    table is 8 bytes a code, the marks 1)."""
    chosen = groups.codes[contiguous(mask)]
    if chosen.size and chosen.min() < 0:
        chosen = chosen[chosen >= 0]
    if chosen.size == groups.n and scan.strictly_increasing(chosen):  # every code once, in order: all of them
        return np.ones(groups.n, dtype=bool)
    out = np.zeros(groups.n, dtype=bool)
    out[chosen] = True
    return out


def contiguous(mask: np.ndarray | slice) -> slice | np.ndarray:
    """``mask`` as the slice of its rows when they are one run (a release written as one block: its codes are then
    a view, not a copy of every selected row), else the mask itself; a slice is its own answer."""
    if isinstance(mask, slice):
        return mask
    count = int(np.count_nonzero(mask))
    first = scan.first_true(mask) if count else 0
    return slice(first, first + count) if count and bool(mask[first:first + count].all()) else mask


def as_categories(table: pd.DataFrame, columns: tuple[str, ...],
                  blocks: list[tuple[int, int]] | None = None) -> None:
    """Identity columns as pandas categoricals (in place): every later group-by, join and sort works on codes.

    The categories are sorted, so that ordering by a category's code is ordering by its text, as sorting the
    strings themselves would. ``blocks`` (:func:`release_blocks`) are row ranges that may hold the same values
    in the same order (each release listing the suite's cases alike): then nothing is hashed.
    """
    for column in columns:
        if column in table.columns and isinstance(table[column].dtype, pd.CategoricalDtype):
            categories = table[column].cat.categories
            if not categories.is_monotonic_increasing:  # a caller's own categorical, in an order of its own
                try:
                    ordered = categories.sort_values()
                except TypeError:  # values that do not compare (numbers and text): their order is kept
                    continue
                table[column] = recoded(table[column], ordered)
        elif column in table.columns:
            codes, uniques = sorted_factorize(table[column], blocks)
            # The categories keep the column's own string type. Python strings (an object Index) cost 0.1 s per
            # million to make, and no step uses the categories' engine or hash any more: the joins are made on
            # the codes (analyze/pairing.join_cases).
            dtype = unique_categories_dtype(pd.Index(uniques))
            # Set as a Series of the table's index: a bare array set as a column is copied (80 MB of case codes).
            table[column] = pd.Series(pd.Categorical.from_codes(codes, dtype=dtype, validate=False),
                                      index=table.index, copy=False)


def recoded(column: pd.Series, categories: pd.Index) -> pd.Series:
    """``column.cat.reorder_categories(categories)``: each row's code looked up in a table of the new codes, the
    missing value's -1 at the table's end (pandas' own recoding took 0.25-0.47 s on 2 x 10^7 rows here, the
    lookup 0.04)."""
    codes = codes_of(column)
    table = np.append(categories.get_indexer(column.cat.categories), -1).astype(codes.dtype)
    dtype = unique_categories_dtype(categories, column.cat.ordered)
    return pd.Series(pd.Categorical.from_codes(table[codes], dtype=dtype, validate=False),
                     index=column.index, name=column.name, copy=False)


def release_blocks(codes: np.ndarray) -> list[tuple[int, int]] | None:
    """The row ranges of each release when every release is one contiguous block of the same length (a file
    written release after release), else None: the blocks :func:`sorted_factorize` may find alike."""
    if codes.size == 0:
        return None
    # More blocks than codes (-1 included) would repeat a code: not one block each, and not worth listing.
    starts = scan.change_points(codes, int(codes.max()) + 2)
    if starts is None:
        return None
    stops = np.append(starts[1:], codes.size)
    lengths = stops - starts
    if starts.size < 2 or (lengths != lengths[0]).any() or np.unique(codes[starts]).size != starts.size:
        return None
    return [(int(a), int(b)) for a, b in zip(starts, stops)]


def sorted_factorize(series: pd.Series, blocks: list[tuple[int, int]] | None = None
                     ) -> tuple[np.ndarray, pd.Index | pd.api.extensions.ExtensionArray]:
    """``pd.factorize(series, sort=True, use_na_sentinel=True)``: codes in the order of the sorted uniques.

    When ``blocks`` cover the rows and each holds the first block's values in the same order, with no value
    missing or given twice (every release lists the same cases alike: the common layout), the first block is
    sorted and its ranks repeated: no value is hashed (1,000,000 case ids x 2 releases: 0.08 CPU s instead of
    0.45). That shortcut is taken only when it is the same answer, and checked to be (the block's sorted values
    strictly increase, compared as UTF-8 bytes: code-point order, the order of Python's and pandas' string
    sort); anything else (another layout, a column that is not Arrow-backed text) is pandas' factorize.
    """
    repeated = _repeated_block_codes(series, blocks)
    return repeated if repeated is not None else pd.factorize(series, sort=True, use_na_sentinel=True)


def _repeated_block_codes(series: pd.Series, blocks: list[tuple[int, int]] | None):
    """:func:`sorted_factorize`'s answer when every block repeats the first one's distinct values, else None."""
    dtype = series.dtype
    if not blocks or not (isinstance(dtype, pd.StringDtype) and dtype.storage == "pyarrow") or \
            blocks[0][0] != 0 or blocks[-1][1] != len(series) or any(b[1] != c[0] for b, c in zip(blocks, blocks[1:])):
        return None
    import pyarrow as pa
    import pyarrow.compute as pc

    # The chunks as read, when the column has several (combining them copied every string: 0.3 GB at 10^7
    # rows); slices, comparisons and sorts work across chunks.
    values = pa.array(series.array)
    if not (pa.types.is_string(values.type) or pa.types.is_large_string(values.type)):
        return None
    start, stop = blocks[0]
    first = values.slice(start, stop - start)
    if first.null_count or not all(values.slice(a, b - a).equals(first) for a, b in blocks[1:]):
        return None
    # 32-bit codes while they fit (a categorical's own width for up to 2^31 categories): half the memory.
    width = np.int32 if len(first) < 2 ** 31 else np.int64
    n = len(first)
    # The first block's ranks are written into the codes of every row, a slice of positions at a time, and then
    # copied to the other blocks: a whole range of positions and its tiling were 120 MB at 10^7 x 2.
    codes = np.empty(blocks[-1][1], dtype=width)
    if _strictly_increasing(first):
        # Written in case order (a harness's own order, or a sorted export): the ranks are the positions. Sorting
        # ten million ids and taking them in order was 1.3 s of the 10^7-row validation.
        ordered = first
        for part in scan.slices(n):
            codes[part] = np.arange(part.start, part.stop, dtype=width)
    else:
        sorting = pc.array_sort_indices(first)
        ordered = first.take(sorting)
        if not _strictly_increasing(ordered):
            return None  # a value given twice in a block: the general way (validate then names the duplicate)
        order = sorting.to_numpy(zero_copy_only=False)  # unsigned positions, used as they are (no copy)
        for part in scan.slices(n):
            codes[order[part]] = np.arange(part.start, part.stop, dtype=width)
    for start, stop in blocks[1:]:
        codes[start:stop] = codes[:n]
    return codes, pd.Index(pd.array(ordered, dtype=dtype))


def _strictly_increasing(values) -> bool:
    """Whether each text value is above the one before it, compared as UTF-8 bytes (code-point order)."""
    import pyarrow.compute as pc

    n = len(values)
    return n < 2 or bool(pc.all(pc.less(values.slice(0, n - 1), values.slice(1))).as_py())


def is_blank(column: pd.Series) -> np.ndarray:
    """Which rows are missing or the empty text. On a categorical, the categories are compared, not the rows:
    comparing a million-category column with "" makes pandas build a hash of every category first."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        codes = codes_of(column)
        empty = np.flatnonzero(np.asarray(column.cat.categories == "", dtype=bool))
        return (codes < 0) | np.isin(codes, empty) if empty.size else codes < 0
    return (column.isna() | (column == "")).to_numpy(dtype=bool)


def any_blank(column: pd.Series) -> bool:
    """Whether :func:`is_blank` holds in some row; on a categorical without a mask of every row."""
    if not isinstance(column.dtype, pd.CategoricalDtype):
        return bool(is_blank(column).any())
    codes = codes_of(column)
    if codes.size and codes.min() < 0:
        return True
    empty = _empty_categories(column.cat.categories)
    return bool(empty.size) and scan.any_row(lambda part: np.isin(part, empty), codes)


def _empty_categories(categories: pd.Index) -> np.ndarray:
    """The positions of the empty text among ``categories``: on Arrow text, Arrow's own comparison and the answer
    whether any is empty (0.012 s for ten million case ids, where pandas' comparison and its mask took 0.03)."""
    values = categories.array
    if isinstance(values.dtype, pd.StringDtype) and values.dtype.storage == "pyarrow":
        import pyarrow as pa
        import pyarrow.compute as pc

        empty = pc.equal(pa.array(values), "")
        if not pc.any(empty).as_py():
            return np.zeros(0, dtype=np.intp)
        return np.flatnonzero(np.asarray(empty.to_numpy(zero_copy_only=False), dtype=bool))
    return np.flatnonzero(np.asarray(categories == "", dtype=bool))


def any_given(column: pd.Series) -> bool:
    """``column.notna().any()``, without a mask of every row where the column is codes or numbers."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        codes = codes_of(column)
        return bool(codes.size) and int(codes.max()) >= 0
    dtype = column.dtype
    if isinstance(dtype, np.dtype) and dtype.kind in "iub":
        return len(column) > 0  # whole numbers and truth values have no missing value
    if isinstance(dtype, np.dtype) and dtype.kind == "f":
        return scan.any_row(lambda part: ~np.isnan(part), column.to_numpy())
    return bool(column.notna().any())


def in_order_of_appearance(column: pd.Series) -> tuple[Any, ...]:
    """``tuple(pd.unique(column))`` of a categorical column: its values in the order the rows first hold them
    (a missing value among them), read from the rows where the codes change (once for each release written as
    one block), a slice at a time: pandas' unique hashed every row (0.13 s at 2 x 10^7)."""
    if not isinstance(column.dtype, pd.CategoricalDtype):
        return tuple(pd.unique(column))
    codes = codes_of(column)
    seen: dict[int, None] = {}
    for part in scan.slices(len(codes)):
        values = codes[part]
        heads = values[np.append(0, np.flatnonzero(values[1:] != values[:-1]) + 1)]
        seen.update(dict.fromkeys(pd.unique(heads).tolist()))
    return tuple(pd.Categorical.from_codes(list(seen), dtype=column.dtype))


def unique_categories_dtype(categories: pd.Index, ordered: bool = False) -> pd.CategoricalDtype:
    """The categorical dtype of ``categories`` that are unique by construction (factorize's uniques).

    The public constructor checks uniqueness again, which builds an index engine over the categories: 0.1 s for a
    million case ids, 1 s for ten million. pandas' own fast path (``_from_fastpath``, used by pandas for the same
    case) skips it; if a pandas version lacks it, the public constructor is used.
    """
    fast = getattr(pd.CategoricalDtype, "_from_fastpath", None)
    if fast is not None:
        try:
            return fast(categories, ordered)
        except TypeError:
            pass
    return pd.CategoricalDtype(categories, ordered)


def fill_missing(column: pd.Series, value: str) -> pd.Series:
    """``column.fillna(value)``; on a categorical (read dictionary-encoded) ``value`` is added as a category first."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        codes = codes_of(column)
        if not (codes.size and codes.min() < 0):
            return column  # nothing to fill: fillna copied every row's code
        if value not in column.cat.categories:
            column = column.cat.add_categories([value])
    return column.fillna(value)


def drop_unused_categories(table: pd.DataFrame, columns: tuple[str, ...]) -> None:
    """Leave out the categories no row holds any more (in place), as if the rows kept had been factorized."""
    for column in columns:
        if column in table.columns and isinstance(table[column].dtype, pd.CategoricalDtype):
            table[column] = table[column].cat.remove_unused_categories()
