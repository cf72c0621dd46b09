"""Pairing (SPEC 4.1): each release's case table, the inner join of a candidate with the baseline, the per-case
differences, and the one listing of the cases that changed.

The listing makes no Python pass over every case: the selection and the ordering are numpy operations, and
only the listed cases become objects.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from releasegate.model import CaseListing, Exclusions
from releasegate.validate import ValidatedResults
from releasegate.validate.keycodes import contiguous

# Shown beside broken cases; longer texts are cut by the renderers, not here.
MAX_METADATA_COLUMNS = 8
# Means of the same scores summed in a different order can differ in the last bit; such a "change" is
# rounding, and in a critical category it would block a release.
_RELATIVE_TOLERANCE = 1e-12


def release_rows(table: pd.DataFrame, release: str) -> slice | np.ndarray:
    """The rows of one release: a slice when they are one contiguous block (a file written release after
    release, the common layout), which takes no copy of a column, else the mask of its rows."""
    return contiguous((table["release"] == release).to_numpy(bool))


def case_table(data: ValidatedResults, release: str) -> pd.DataFrame:
    """One row per case of one release: the outcome (mean over runs), attributes and metadata, by case_id."""
    attributes = [c for c in ("category", "cluster") if c in data.table.columns]
    # Only the columns a case table holds: taking every column of a million rows costs more than the table.
    columns = ["case_id", "outcome", *attributes, *data.metadata_columns]
    chosen = release_rows(data.table, release)
    rows = data.table.iloc[chosen][columns] if isinstance(chosen, slice) else data.table.loc[chosen, columns]
    if data.has_runs:
        grouped = rows.groupby("case_id", sort=False)
        frame = grouped["outcome"].mean().to_frame()
        first = grouped[[*attributes, *data.metadata_columns]].first()
        frame = frame.join(first)
    else:
        frame = rows.set_index("case_id")[["outcome", *attributes, *data.metadata_columns]]
    return frame


def case_tables(data: ValidatedResults) -> dict[str, pd.DataFrame]:
    """Every release's case table: with runs each is a group-by over all rows, and the baseline's is needed by
    every candidate and by the release summary, so the analysis builds them once."""
    return {release: case_table(data, release) for release in data.releases}


def cases_of(data: ValidatedResults, release: str, tables: Mapping[str, pd.DataFrame] | None) -> pd.DataFrame:
    """The release's case table from ``tables`` when the caller built them, else built now."""
    return tables[release] if tables and release in tables else case_table(data, release)


def pair(data: ValidatedResults, candidate: str,
         tables: Mapping[str, pd.DataFrame] | None = None) -> tuple[pd.DataFrame, Exclusions]:
    """Inner join of the baseline and one candidate on case_id (SPEC 4.1), without the cases validation's pairing
    set apart (validate/pairing.py: content changed, errored); its Exclusions say what was and why.
    ``tables`` are the releases' case tables when the caller has them (:func:`case_tables`)."""
    base = cases_of(data, data.baseline, tables)
    cand = cases_of(data, candidate, tables)
    pairing = data.pairing_of(candidate)
    if pairing is None:
        raise ValueError(f"no pairing for {candidate!r}: validation decides what is compared")
    if len(pairing.left_out):
        base, cand = base[~base.index.isin(pairing.left_out)], cand[~cand.index.isin(pairing.left_out)]
    texts = [c for c in data.per_release_columns if c in base.columns]  # the baseline's answers ride along
    # Sorted by case_id: a stable order makes every later listing and every resample reproducible.
    joined = join_cases(base[["outcome", *texts]].rename(columns={"outcome": "base",
                                                                  **{c: baseline_column(c) for c in texts}}),
                        cand.rename(columns={"outcome": "cand"}))
    return joined, pairing.exclusions


def join_cases(left: pd.DataFrame, right: pd.DataFrame) -> pd.DataFrame:
    """``left.join(right, how="inner").sort_index(kind="stable")`` for two case tables (unique case_ids).

    When both are indexed by the same categorical case_id (validate makes it one), the join is made on the
    integer codes (:func:`join_positions`): pandas' own join first hashes every category to compare the two
    dtypes, 0.3 s for a million case ids. Anything else goes through pandas.
    """
    positions = None
    if left.columns.is_unique and not set(left.columns) & set(right.columns):
        positions = join_positions(left.index, right.index)
    if positions is None:
        return left.join(right, how="inner").sort_index(kind="stable")
    left_pos, right_pos = positions
    # Every case on both sides in the same order (the common case): the tables as they are, no copy.
    joined = left if every_row(left_pos, len(left)) else left.iloc[left_pos]
    extra = right if every_row(right_pos, len(right)) else right.iloc[right_pos]
    if extra is right:
        extra = right.copy(deep=False)  # its index is replaced below: never the caller's table
    extra.index = joined.index
    return pd.concat([joined, extra], axis=1)


def every_row(positions: np.ndarray, n: int) -> bool:
    return positions.size == n and (n == 0 or (positions[0] == 0 and positions[-1] == n - 1
                                               and bool(np.all(positions[1:] > positions[:-1]))))


def join_positions(left: pd.Index, right: pd.Index) -> tuple[np.ndarray, np.ndarray] | None:
    """The rows of an inner join of two case tables' indexes, in case order: the positions in ``left`` and in
    ``right`` of each shared case; None unless both are the validated categorical case_id (the same categories,
    each case once), for which it is computed on the codes. A table already in case order is not sorted again."""
    if not (isinstance(left, pd.CategoricalIndex) and isinstance(right, pd.CategoricalIndex)
            and left.categories is right.categories and left.ordered == right.ordered):
        return None
    lcodes, rcodes = np.asarray(left.codes), np.asarray(right.codes)
    n = len(left.categories)
    # Codes that increase hold each case once and need no sort (a release's cases in case order, the common
    # layout); others are counted.
    left_increasing, right_increasing = _increasing(lcodes), _increasing(rcodes)
    if (lcodes < 0).any() or (rcodes < 0).any() or not (left_increasing or _each_once(lcodes, n)) \
            or not (right_increasing or _each_once(rcodes, n)):
        return None
    if left_increasing and right_increasing and np.array_equal(lcodes, rcodes):
        # The same cases in the same order (every case of the suite on both releases): each row pairs with the
        # row at its own position, with no table of n positions scattered and no two selections of 10^7 rows.
        every = np.arange(lcodes.size)
        return every, every
    right_at = np.full(n, -1, dtype=np.int64)
    right_at[rcodes] = np.arange(rcodes.size)
    # By code, which is by case_id (sorted categories).
    left_order = np.arange(lcodes.size) if left_increasing else np.argsort(lcodes, kind="stable")
    right_pos = right_at[lcodes[left_order]]
    shared = right_pos >= 0
    return left_order[shared], right_pos[shared]


def _increasing(codes: np.ndarray) -> bool:
    return codes.size < 2 or bool(np.all(codes[1:] > codes[:-1]))


def _each_once(codes: np.ndarray, n: int) -> bool:
    return bool(np.bincount(codes, minlength=n).max(initial=0) <= 1)


def paired_difference(base: np.ndarray, cand: np.ndarray) -> np.ndarray:
    """d = cand - base per case, with differences at the level of floating-point rounding set to exactly 0.

    The rounding is relative to the largest score of the comparison, never to a fixed unit: the same scores
    in other units (x 1e-12) keep every difference, and give the same verdict."""
    base, cand = np.asarray(base, dtype=np.float64), np.asarray(cand, dtype=np.float64)
    d: np.ndarray = cand - base
    if d.size:
        # The largest magnitude from each side's extremes: no array of absolute values (80 MB at 10^7 cases).
        scale = float(np.max(np.abs([base.max(), base.min(), cand.max(), cand.min()])))
        tolerance = _RELATIVE_TOLERANCE * scale
        np.putmask(d, (d <= tolerance) & (d >= -tolerance), 0.0)
    return d


def _text(series: pd.Series) -> np.ndarray:
    """Each value as text, "" for a missing one. A categorical's categories are made text when they are fewer
    than its values, not each case's value (the listings of 10^7 cases hold 570,000 of 40 categories)."""
    values = series.array
    if isinstance(values, pd.Categorical) and len(values.categories) < len(values):
        labels = _text(pd.Series(values.categories, dtype=object))
        text: np.ndarray = np.append(labels, np.array([""], dtype=object))[values.codes]  # code -1: missing, last
        return text
    return series.astype(object).where(series.notna(), "").astype(str).to_numpy()


def text_order_key(values: pd.Series | pd.Index) -> np.ndarray | None:
    """Integers that sort as the text of ``values`` do: the codes of a categorical of strings, whose categories
    validate sorts (keycodes.as_categories); None for anything else (sort the text itself). Sorting 70,000 case
    ids as strings took 0.03 s; their codes, 1 ms."""
    dtype = values.dtype
    if not (isinstance(dtype, pd.CategoricalDtype) and isinstance(dtype.categories.dtype, pd.StringDtype)):
        return None
    # .to_numpy(), not np.asarray: numpy's probe of a Series' attributes makes pandas look the probed name up
    # in the index, and a case-id index builds a hash of every case id for that (0.1 s at 10^6 cases).
    if isinstance(values, pd.Series):
        return values.cat.codes.to_numpy()
    assert isinstance(values, pd.CategoricalIndex)  # an Index of a categorical dtype is one
    return np.asarray(values.codes)


def case_changes(paired: pd.DataFrame, mask: np.ndarray, metadata_columns: tuple[str, ...],
                 critical: tuple[str, ...], per_release: tuple[str, ...] = ()) -> CaseListing:
    """The cases selected by ``mask`` as a listing (model.CaseListing, columns from which each CaseChange is
    made when read): critical categories first, then the largest change first (the cases a reviewer should
    read), then category and case id for a stable order."""
    idx = np.flatnonzero(mask)
    if idx.size == 0:
        return CaseListing([], None, None, [], [], [])
    rows = paired.iloc[idx]
    id_key = text_order_key(rows.index)
    # The validated case ids are made text only once ordered (_ordered_ids), not every listed id first.
    ids = np.asarray(rows.index.astype(str), dtype=str) if id_key is None or (id_key < 0).any() else None
    base = rows["base"].to_numpy(np.float64)
    cand = rows["cand"].to_numpy(np.float64)
    # Rounded so that equal drops sort as equal (0.8 - 0.4 and 0.6 - 0.2 differ in the last bit).
    size = np.round(np.abs(cand - base), 9)
    has_category = "category" in rows.columns
    categories = _text(rows["category"]) if has_category else np.full(idx.size, "")
    clusters = _text(rows["cluster"]) if "cluster" in rows.columns else None
    is_critical = np.isin(categories, list(critical)) if has_category else np.zeros(idx.size, bool)
    category_key = text_order_key(rows["category"]) if has_category else None
    order = np.lexsort((ids if ids is not None else np.asarray(id_key),
                        categories if category_key is None else category_key,
                        -size, ~is_critical))  # the last key sorts first
    meta = list(metadata_columns[:MAX_METADATA_COLUMNS])
    ordered = rows.iloc[order] if meta else rows
    texts = [c for c in meta if c in per_release and baseline_column(c) in rows.columns]
    # Plain Python lists: a case read from them is made without a numpy scalar per value.
    return CaseListing(
        _ordered_ids(rows.index, ids, order),
        categories[order].tolist() if has_category else None,
        clusters[order].tolist() if clusters is not None else None,
        base[order].tolist(), cand[order].tolist(), is_critical[order].tolist(),
        tuple((c, _text(ordered[c]).tolist()) for c in meta),
        tuple((c, _text(ordered[baseline_column(c)]).tolist()) for c in texts))


def _ordered_ids(index: pd.Index, ids: np.ndarray | None, order: np.ndarray) -> list[str]:
    """The listed case ids in the listing's order: from ``ids``, their text, or else taken from the validated
    categorical's categories by code (0.04 s for the 285,000 broken cases of 10^7, against 0.12 s made text
    first)."""
    if ids is not None:
        return list(ids[order].tolist())
    assert isinstance(index, pd.CategoricalIndex)  # text_order_key gave its codes
    return list(index.categories.take(np.asarray(index.codes)[order]).tolist())


# The paired table holds the candidate's columns under their own names; the baseline's copy of a per-release
# column (validate.per_release_columns: the output, the grader's reason) travels under baseline_column's name,
# which no input column can have (it starts with a NUL character, which the loaders never keep in a header).
_BASELINE_PREFIX = "\x00baseline:"


def baseline_column(name: str) -> str:
    """The paired table's name for the baseline's value of the per-release column ``name``."""
    return _BASELINE_PREFIX + name
