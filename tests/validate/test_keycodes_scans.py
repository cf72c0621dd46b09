"""The answers keycodes gives without a mask or a copy of every row (codes read in place, slices of rows, the
layout of releases written one after the other) are pandas' own answers on the same rows; slices of 1-4 rows
here, so that every answer crosses the edges validate.scan cuts a column at."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st
from scan_support import sliced

from releasegate.validate import keycodes

names = st.sampled_from(["a", "b", "", "c d", "007"])
rows_per_slice = st.integers(1, 4)



def _coded(values: list, dtype: str = "str") -> pd.Series:
    table = pd.DataFrame({"c": pd.Series(values, dtype=dtype)})
    keycodes.as_categories(table, ("c",))
    return table["c"]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.none(), names), max_size=20), rows_per_slice, st.lists(names, max_size=2))
def test_any_blank_and_any_given_are_pandas_answers(values, rows, unused):
    text = pd.Series(values, dtype="str")
    coded = _coded(values)
    # A caller's categorical may list categories (the empty text too) no row holds.
    own = pd.Series(pd.Categorical(values, categories=sorted({*(v for v in values if v is not None), *unused})))
    with sliced(rows):
        for column in (text, coded, own):
            assert keycodes.any_blank(column) == bool((column.isna() | (column == "")).any())
            assert keycodes.any_given(column) == bool(column.notna().any())


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.none(), st.floats(allow_nan=True), st.integers(-3, 3)), max_size=12), rows_per_slice)
def test_any_given_of_numbers_is_pandas_answer(values, rows):
    numbers = [v for v in values if v is not None]
    columns = [pd.Series(values, dtype="float64"), pd.Series([int(v) for v in numbers if v == v and abs(v) < 9],
                                                                dtype="int64"),
               pd.Series([v == v for v in numbers], dtype=bool), pd.Series(values, dtype="Float64"),
               pd.Series(values, dtype=object)]
    with sliced(rows):
        for column in columns:
            assert keycodes.any_given(column) == bool(column.notna().any())


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.none(), st.sampled_from(["r1", "r2", "r3"])), max_size=25), rows_per_slice)
def test_values_in_order_of_appearance_are_pandas_unique(values, rows):
    for column in (_coded(values), pd.Series(pd.Categorical(values, categories=["r3", "r2", "r1"])),
                   pd.Series(values, dtype="str")):
        with sliced(rows):
            got = keycodes.in_order_of_appearance(column)
        expected = tuple(pd.unique(column))
        assert len(got) == len(expected)
        assert all(a == b or (pd.isna(a) and pd.isna(b)) for a, b in zip(got, expected))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(-1, 3), max_size=20), rows_per_slice)
def test_code_runs_are_each_codes_rows_when_each_is_one_run(values, rows):
    codes = np.array(values, dtype=np.int8)
    with sliced(rows):
        runs = keycodes.code_runs(codes, 4)
    held = sorted(set(values))
    one_run_each = all(np.ptp(np.flatnonzero(codes == c)) + 1 == np.count_nonzero(codes == c) for c in held)
    assert (runs is not None) == one_run_each
    if runs is not None:
        assert sorted(runs) == held
        for code, rows_of_code in runs.items():
            assert np.array_equal(np.arange(len(values))[rows_of_code], np.flatnonzero(codes == code))


@settings(max_examples=200, deadline=None)
@given(st.lists(names, min_size=1, max_size=6, unique=True), st.integers(1, 3), st.data(), rows_per_slice)
def test_release_blocks_checks_agree_with_pandas(cases, releases, data, rows):
    """Releases one after the other, each listing the cases alike (the shortcuts' layout), or not quite: a case
    swapped, renamed or given twice in some release, a category changed. Duplicate keys, a case whose category
    varies and each release's cases are pandas' answers either way."""
    frames = []
    for r in range(releases):
        ids = list(cases)
        change = data.draw(st.sampled_from(["none", "swap", "rename", "twice"]))
        if change == "swap" and len(ids) > 1:
            ids[0], ids[-1] = ids[-1], ids[0]
        elif change == "rename":
            ids[-1] = "other"
        elif change == "twice":
            ids[-1] = ids[0]
        category = [data.draw(st.sampled_from(["x", "y"])) if change != "none" else "x" for _ in ids]
        frames.append(pd.DataFrame({"release": f"r{r}", "case_id": ids, "category": category}))
    table = pd.concat(frames, ignore_index=True).astype("str")
    keycodes.as_categories(table, ("release",))
    with sliced(rows):
        keycodes.as_categories(table, ("case_id", "category"),
                               keycodes.release_blocks(keycodes.codes_of(table["release"])))
        release, case, category = (keycodes.encode(table[c]) for c in ("release", "case_id", "category"))
        blocks = keycodes.release_blocks(release.codes)
        assert keycodes.has_duplicate_keys(release, case) == bool(table.duplicated(["release", "case_id"]).any())
        expected = bool((table.groupby("case_id", observed=True)["category"].nunique() > 1).any())
        assert keycodes.varies_within_blocks(case, category, blocks) == expected
        assert keycodes.varies_within(case, category) == expected
        for code, name in enumerate(table["release"].cat.categories):
            rows_of = release.codes == code
            held = {table["case_id"].cat.categories[k] for k in np.flatnonzero(keycodes.present(case, rows_of))}
            assert held == set(table.loc[rows_of, "case_id"].astype(str))


def test_codes_are_read_in_place_and_a_set_column_is_not_copied():
    """The codes of a categorical are the column's own array (pandas' .cat.codes copies them), and the codes
    as_categories makes are the column's, not a copy of them."""
    column = _coded(["b", "a", "b"])
    assert np.shares_memory(keycodes.encode(column).codes, column.array.codes)
    assert np.shares_memory(keycodes.codes_of(column), column.array.codes)
    # Enough cases for 32-bit codes, the width the shortcut makes (fewer are narrowed, a copy of a smaller array).
    ids = [f"c{k:05d}" for k in range(40_000)]
    table = pd.DataFrame({"case_id": pd.Series(ids * 2, dtype="str")})
    made = []
    factorize = keycodes.sorted_factorize

    def spy(series, blocks=None):
        made.append(factorize(series, blocks))
        return made[-1]

    keycodes.sorted_factorize = spy
    try:
        keycodes.as_categories(table, ("case_id",), [(0, 40_000), (40_000, 80_000)])
    finally:
        keycodes.sorted_factorize = factorize
    assert np.shares_memory(table["case_id"].array.codes, made[0][0])
    assert table["case_id"].cat.codes.tolist() == list(range(40_000)) * 2


def test_contiguous_reads_a_read_only_mask_and_takes_a_slice_as_it_is():
    mask = pd.Series([False, True, True, False]).to_numpy(bool)
    mask.flags.writeable = False
    assert keycodes.contiguous(mask) == slice(1, 3)
    assert keycodes.contiguous(slice(2, 5)) == slice(2, 5)
    cases = keycodes.Codes(np.array([2, 0, 1, 2, 0, 1]), 3)
    assert keycodes.present(cases, slice(0, 3)).tolist() == [True, True, True]
    assert keycodes.present(cases, slice(1, 2)).tolist() == [True, False, False]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.one_of(st.none(), names), min_size=1, max_size=12))
def test_fill_missing_is_fillna(values):
    for column in (_coded(values), pd.Series(values, dtype="str")):
        filled = keycodes.fill_missing(column, "(none)")
        assert filled.astype(str).tolist() == column.astype(object).fillna("(none)").astype(str).tolist()
        assert filled.notna().all()
