"""The integer-code checks of releasegate.keycodes agree with pandas' own (slow) answers on the same rows."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from releasegate.validate import keycodes

names = st.sampled_from(["a", "b", "NA", "", "007", "c d"])
rows = st.lists(st.tuples(names, names, st.one_of(st.none(), names)), min_size=0, max_size=40)


def _frame(data) -> pd.DataFrame:
    return pd.DataFrame(data, columns=["release", "case_id", "category"], dtype="str")


@settings(max_examples=200, deadline=None)
@given(rows)
def test_duplicates_agree_with_pandas(data):
    frame = _frame(data)
    key = keycodes.combined(keycodes.encode(frame["release"]), keycodes.encode(frame["case_id"]))
    assert keycodes.has_duplicates(key) == bool(frame.duplicated(subset=["release", "case_id"]).any())


@settings(max_examples=200, deadline=None)
@given(rows)
def test_varies_within_agrees_with_pandas(data):
    frame = _frame(data)
    expected = bool((frame.groupby("case_id")["category"].nunique(dropna=False) > 1).any()) if len(frame) else False
    got = keycodes.varies_within(keycodes.encode(frame["case_id"]), keycodes.encode(frame["category"]))
    assert got == expected


@settings(max_examples=100, deadline=None)
@given(rows, names)
def test_present_is_the_set_of_cases_of_a_release(data, release):
    frame = _frame(data)
    cases = keycodes.encode(frame["case_id"])
    mask = (frame["release"] == release).to_numpy(bool)
    uniques = pd.unique(frame["case_id"])
    got = {uniques[k] for k in np.flatnonzero(keycodes.present(cases, mask))}
    assert got == set(frame.loc[mask, "case_id"])


def test_missing_values_are_never_a_duplicate_key():
    frame = pd.DataFrame({"release": ["r1", "r1"], "case_id": [None, None]}, dtype="str")
    key = keycodes.combined(keycodes.encode(frame["release"]), keycodes.encode(frame["case_id"]))
    assert key.codes.tolist() == [-1, -1]
    assert not keycodes.has_duplicates(key)


def test_keys_wider_than_64_bits_are_refactorized():
    """Three columns of 2**25 possible codes each would overflow a 64-bit mixed-radix key."""
    n = 6
    wide = keycodes.Codes(np.array([0, 1, 2, 0, 1, 2]) * (2 ** 24), 2 ** 25)
    other = keycodes.Codes(np.array([0, 0, 0, 0, 0, 1]), 2 ** 25)
    key = keycodes.combined(wide, other, wide)
    assert key.codes.shape == (n,)
    assert keycodes.has_duplicates(key)  # rows 0 and 3 are the same key
    rows = list(zip(wide.codes.tolist(), other.codes.tolist(), wide.codes.tolist()))
    # The same rows get the same key, different rows different keys.
    assert [rows.index(r) for r in rows] == [key.codes.tolist().index(k) for k in key.codes.tolist()]
    # The table bincount allocates stays about as large as the rows.
    assert key.n <= 4 * n + 1024


def test_the_fast_dtype_is_the_public_one():
    categories = pd.Index(["a", "b", "c"], dtype="str")
    fast = keycodes.unique_categories_dtype(categories)
    assert fast == pd.CategoricalDtype(categories) and not fast.ordered
    assert fast.categories.equals(categories)


def test_categories_from_as_categories_match_pandas_own():
    frame = pd.DataFrame({"case_id": pd.Series(["b", "a", None, "b", "c"], dtype="str")})
    expected = pd.Categorical(frame["case_id"])
    keycodes.as_categories(frame, ("case_id",))
    assert frame["case_id"].cat.categories.equals(expected.categories)
    assert frame["case_id"].cat.codes.tolist() == list(expected.codes) == [1, 0, -1, 1, 2]


@settings(max_examples=100, deadline=None, derandomize=True)
@given(st.lists(st.none() | st.sampled_from(["", "a", " ", "b", "NA"]), min_size=1, max_size=20))
def test_blank_rows_are_the_same_on_a_categorical_and_on_text(values):
    text = pd.Series(values, dtype="str")
    frame = pd.DataFrame({"case_id": text})
    keycodes.as_categories(frame, ("case_id",))
    expected = [v is None or v == "" for v in values]
    assert keycodes.is_blank(text).tolist() == expected == keycodes.is_blank(frame["case_id"]).tolist()


texts = st.one_of(st.none(), st.text(alphabet=st.sampled_from(["a", "B", "0", "1", " ", "é", "Z", "ä", "\U0001f600"]),
                                     max_size=4))


@settings(max_examples=300, deadline=None)
@given(st.lists(texts, min_size=0, max_size=40), st.sampled_from(["str", "string[pyarrow]", "object"]),
       st.integers(0, 3))
def test_sorted_factorize_is_pandas_sorted_factorize(values, dtype, chunks):
    """The Arrow path (encode once, sort the uniques) gives pandas' own codes and uniques, dtype included,
    whatever the values (missing, empty, non-ASCII, outside the BMP) and however the column is chunked."""
    series = pd.Series(values, dtype=dtype)
    if chunks and dtype != "object" and len(values) > 1:  # several Arrow chunks, as the CSV reader makes
        parts = [series.iloc[i::1][k * len(values) // (chunks + 1):(k + 1) * len(values) // (chunks + 1)]
                 for i, k in ((0, k) for k in range(chunks + 1))]
        series = pd.concat(parts, ignore_index=True)
    expected_codes, expected_uniques = pd.factorize(series, sort=True, use_na_sentinel=True)
    codes, uniques = keycodes.sorted_factorize(series)
    assert codes.tolist() == expected_codes.tolist()
    expected = pd.Index(expected_uniques)
    assert pd.Index(uniques).equals(expected) and pd.Index(uniques).dtype == expected.dtype


@settings(max_examples=300, deadline=None)
@given(st.lists(texts, min_size=1, max_size=12), st.integers(1, 4), st.booleans(), st.data())
def test_sorted_factorize_of_repeated_blocks_is_pandas_sorted_factorize(values, releases, alike, data):
    """Releases one after the other: when each repeats the first one's cases in the same order the first
    block's ranks are repeated (nothing hashed); any other layout (a block changed, a case twice, a missing
    one) goes the general way. Either way the answer is pandas' own."""
    rows = values * releases
    if not alike and len(rows) > 1:  # one row of a later block changed, or blocks of different lengths
        rows[data.draw(st.integers(0, len(rows) - 1))] = data.draw(texts)
    series = pd.Series(rows, dtype="str")
    codes_of_release = np.repeat(np.arange(releases), len(values))
    blocks = keycodes.release_blocks(codes_of_release)
    assert blocks == ([(i * len(values), (i + 1) * len(values)) for i in range(releases)] if releases > 1 else None)
    expected_codes, expected_uniques = pd.factorize(series, sort=True, use_na_sentinel=True)
    codes, uniques = keycodes.sorted_factorize(series, blocks)
    assert codes.tolist() == expected_codes.tolist()
    assert pd.Index(uniques).equals(pd.Index(expected_uniques))
    assert pd.Index(uniques).dtype == pd.Index(expected_uniques).dtype


def test_release_blocks_only_for_contiguous_releases_of_one_length():
    assert keycodes.release_blocks(np.array([0, 0, 1, 1])) == [(0, 2), (2, 4)]
    assert keycodes.release_blocks(np.array([0, 1, 0, 1])) is None  # interleaved
    assert keycodes.release_blocks(np.array([0, 0, 1])) is None  # lengths differ
    assert keycodes.release_blocks(np.array([0, 0, 1, 1, 0, 0])) is None  # a release in two places
    assert keycodes.release_blocks(np.array([0, 0])) is None  # one release: nothing repeats


def test_repeated_blocks_take_the_shortcut_only_when_it_is_the_same_answer():
    def shortcut(rows, blocks):
        series = pd.Series(rows, dtype="str")
        return keycodes._repeated_block_codes(series, blocks)

    codes, uniques = shortcut(["c10", "c2", "c1", "c10", "c2", "c1"], [(0, 3), (3, 6)])
    assert codes.tolist() == [1, 2, 0, 1, 2, 0] and list(uniques) == ["c1", "c10", "c2"]
    assert shortcut(["a", "a", "a", "a"], [(0, 2), (2, 4)]) is None  # a case twice in a release
    assert shortcut(["a", "b", "b", "a"], [(0, 2), (2, 4)]) is None  # another order
    assert shortcut(["a", None, "a", None], [(0, 2), (2, 4)]) is None  # a missing case id


@settings(max_examples=200, deadline=None)
@given(st.sets(st.text(alphabet=st.sampled_from(["a", "B", "0", "1", " ", "é", "Z", "ä", "\U0001f600"]), max_size=4),
               min_size=1, max_size=12), st.integers(2, 3), st.booleans())
def test_blocks_already_in_order_are_ranked_without_a_sort(values, releases, swap):
    """Cases written in their sorted order (code-point order, as UTF-8 bytes compare) are ranked by position;
    one pair out of order takes the sort. Either way the answer is pandas' own."""
    ordered = sorted(values)
    if swap and len(ordered) > 1:
        ordered[0], ordered[-1] = ordered[-1], ordered[0]
    series = pd.Series(ordered * releases, dtype="str")
    blocks = [(i * len(ordered), (i + 1) * len(ordered)) for i in range(releases)]
    assert keycodes._strictly_increasing(pa.array(ordered, pa.string())) == (not swap or len(ordered) == 1)
    expected_codes, expected_uniques = pd.factorize(series, sort=True, use_na_sentinel=True)
    codes, uniques = keycodes._repeated_block_codes(series, blocks)
    assert codes.tolist() == expected_codes.tolist()
    assert pd.Index(uniques).equals(pd.Index(expected_uniques))
    assert pd.Index(uniques).dtype == pd.Index(expected_uniques).dtype


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.none(), names), min_size=1, max_size=30), st.booleans(), st.randoms())
def test_a_categorical_in_its_own_order_is_recoded_as_pandas_reorders_it(values, ordered, rnd):
    present = sorted({v for v in values if v is not None}) or ["a"]
    own = list(present)
    rnd.shuffle(own)  # the categories in an order of their own, as a dictionary read in order of appearance
    column = pd.Series(pd.Categorical(values, categories=own, ordered=ordered), name="category")
    expected = column.cat.reorder_categories(sorted(own))
    table = pd.DataFrame({"category": column})
    keycodes.as_categories(table, ("category",))
    pd.testing.assert_series_equal(table["category"], expected)
    assert table["category"].cat.categories.is_monotonic_increasing


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.none(), names), min_size=0, max_size=30), st.lists(names, max_size=3))
def test_used_categories_are_the_values_rows_hold(values, unused):
    column = pd.Series(pd.Categorical(values, categories=sorted({*(v for v in values if v is not None), *unused})))
    used = keycodes.used_categories(column)
    assert list(used) == sorted(set(pd.unique(column.dropna())))
    assert len(used) == column.nunique()


@settings(max_examples=300, deadline=None)
@given(st.lists(st.booleans(), max_size=30))
def test_contiguous_selects_the_rows_of_the_mask(flags):
    mask = np.array(flags, dtype=bool)
    rows = np.arange(mask.size) * 7
    chosen = keycodes.contiguous(mask)
    np.testing.assert_array_equal(rows[chosen], rows[mask])
    runs = np.flatnonzero(np.diff(np.concatenate([[False], mask, [False]]).astype(np.int8)))
    assert isinstance(chosen, slice) == (len(runs) == 2)  # one run of rows (none: the mask)
