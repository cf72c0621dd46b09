"""A numeric ``passed`` column: 0 and 1 (and missing) read as outcomes, any other number refused, naming it."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from releasegate.errors import BadValueError
from releasegate.validate.outcomes import parse_passed

values = st.sampled_from([0.0, 1.0, -0.0, np.nan, 2.0, 0.5, -1.0, np.inf])


@settings(max_examples=300, deadline=None)
@given(st.lists(values, min_size=1, max_size=20), st.sampled_from(["float64", "Float64", "int64", "Int64"]))
def test_a_number_other_than_0_or_1_is_refused_and_named(given_values, dtype):
    if dtype in ("int64", "Int64"):
        given_values = [v for v in given_values if np.isnan(v) or float(v).is_integer() and np.isfinite(v)]
        if dtype == "int64":
            given_values = [v for v in given_values if not np.isnan(v)]
        if not given_values:
            return
    series = pd.Series([pd.NA if np.isnan(v) and dtype[0] in "IF" else v for v in given_values],
                       dtype=dtype, name="passed")
    others = sorted({float(v) for v in given_values if not np.isnan(v) and v not in (0.0, 1.0)})
    if others:
        with pytest.raises(BadValueError, match="'passed' must be boolean-like") as refused:
            parse_passed(series)
        assert f"{len(others)} other value(s)" in str(refused.value)
    else:
        out = parse_passed(series)
        assert out.dtype == np.float64
        expected = [np.nan if np.isnan(v) else float(v) for v in given_values]
        np.testing.assert_array_equal(out.to_numpy(), np.array(expected))
