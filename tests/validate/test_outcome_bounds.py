"""Scores and costs are checked by their least and largest value before any mask is made
(validate/outcomes.py): refused exactly when a value is infinite or beyond the bound, whatever the bound (a
latency's, or none for token counts and costs), and otherwise returned as the floats given."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from releasegate.errors import BadValueError
from releasegate.validate import parse_passed, parse_score

values = st.lists(st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.sampled_from([1e101, -1e101, 6.0])),
                  max_size=12)


@settings(max_examples=300, deadline=None)
@given(values, st.sampled_from([1e100, math.inf, 5.0]))
def test_refused_exactly_when_a_value_is_infinite_or_beyond_the_bound(numbers, bound):
    series = pd.Series(numbers, dtype="float64", name="cost")
    bad = [v for v in numbers if math.isinf(v) or abs(v) > bound]
    if bad:
        with pytest.raises(BadValueError, match="'cost' must be finite|'cost' values must lie within"):
            parse_score(series, bound)
    else:
        pd.testing.assert_series_equal(parse_score(series, bound), series)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(-2, 3), max_size=12), st.sampled_from(["int64", "int8", "uint8", "float64"]))
def test_numbers_as_passed_are_refused_exactly_when_one_is_not_0_or_1(numbers, dtype):
    if dtype.startswith("u"):
        numbers = [abs(v) for v in numbers]
    series = pd.Series(numbers, dtype=dtype, name="passed")
    if any(v not in (0, 1) for v in numbers):
        with pytest.raises(BadValueError, match="'passed' must be boolean-like"):
            parse_passed(series)
    else:
        assert parse_passed(series).tolist() == [float(v) for v in numbers]
        assert parse_passed(series).dtype == np.float64
