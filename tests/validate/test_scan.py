"""validate.scan answers a whole column's questions a slice of rows at a time: the answers are numpy's own on the
whole column, wherever the slices' edges fall (slices of 1 to 4 rows here, so that the answers cross them)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from scan_support import sliced

from releasegate.validate import scan

small = st.lists(st.integers(-2, 3), max_size=25)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 20), st.integers(1, 5))
def test_slices_cover_the_rows_once_in_order(n, size):
    parts = list(scan.slices(n, size))
    assert [i for part in parts for i in range(n)[part]] == list(range(n))
    assert all(0 < part.stop - part.start <= size for part in parts)


@settings(max_examples=200, deadline=None)
@given(small, st.integers(1, 4))
def test_answers_are_numpys_on_the_whole_column(values, rows):
    with sliced(rows):
        _answers_are_numpys(np.array(values, dtype=np.int32))


def _answers_are_numpys(a: np.ndarray) -> None:
    assert scan.any_row(lambda part: part > 1, a) == bool((a > 1).any())
    assert scan.strictly_increasing(a) == bool(np.all(a[1:] > a[:-1]))
    b = np.roll(a, 1)
    assert scan.equal(a, b) == np.array_equal(a, b)
    assert scan.equal(a, a.copy()) and not scan.equal(a, np.append(a, 0))
    mask = a > 0
    assert scan.first_true(mask) == (int(np.argmax(mask)) if mask.any() else -1)


def test_strictly_increasing_is_false_across_a_slice_edge():
    """The one pair out of order straddles two slices: a check of each slice alone would miss it."""
    with sliced(3):
        assert not scan.strictly_increasing(np.array([0, 1, 2, 2, 3, 4]))  # slices [0 1 2] [2 3 4]
        assert scan.strictly_increasing(np.array([0, 1, 2, 3, 4, 5]))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.floats(allow_nan=True), st.just(np.nan)), max_size=20), st.integers(1, 4))
def test_has_nan_is_numpys(values, rows):
    column = np.array(values, dtype=np.float64)
    with sliced(rows):
        assert scan.has_nan(column) == bool(np.isnan(column).any())
        assert not scan.has_nan(np.arange(len(values)))  # whole numbers hold no NaN


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(-1, 2), max_size=25), st.integers(0, 30), st.integers(1, 4))
def test_change_points_are_where_the_value_changes(values, limit, rows):
    column = np.array(values, dtype=np.int8)
    expected = [0, *np.flatnonzero(column[1:] != column[:-1]) + 1] if len(values) else []
    with sliced(rows):
        found = scan.change_points(column, limit)
    if len(expected) > limit:
        assert found is None
    else:
        assert found is not None and found.tolist() == expected
