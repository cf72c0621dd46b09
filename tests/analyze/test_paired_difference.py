"""paired_difference: cand - base, with differences at the level of floating-point rounding (relative to the
largest score of the comparison) set to exactly 0."""

from __future__ import annotations

import numpy as np
from hypothesis import example, given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from releasegate.analyze.pairing import paired_difference

_scores = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False)


def _reference(base: np.ndarray, cand: np.ndarray) -> np.ndarray:
    """The definition, written out: the tolerance is 1e-12 of the largest absolute score on either side."""
    d = cand - base
    scale = max(np.abs(base).max(initial=0.0), np.abs(cand).max(initial=0.0))
    return np.where(np.abs(d) <= 1e-12 * scale, 0.0, d)


@given(arrays(np.float64, st.integers(0, 40), elements=_scores), st.data())
@example(np.array([0.8, 0.6]), None)  # 0.8 - 0.4 and 0.6 - 0.2 differ in the last bit
def test_it_is_the_difference_with_rounding_set_to_zero(base, data):
    if data is None:
        cand = np.array([0.8 - 0.4 + 0.4, 0.6 - 0.2 + 0.2])
    else:
        nudge = data.draw(arrays(np.float64, base.size, elements=st.sampled_from([0.0, 1e-15, -1e-13, 0.5, -3.0])))
        cand = base * (1 + nudge) + data.draw(arrays(np.float64, base.size, elements=st.sampled_from([0.0, 1.0])))
    got = paired_difference(base, cand)
    np.testing.assert_array_equal(got, _reference(base, cand))
    assert not np.shares_memory(got, base) and not np.shares_memory(got, cand)


def test_the_tolerance_follows_the_scale_not_a_fixed_unit():
    base = np.array([1.0, 2.0, 3.0]) * 1e-12
    cand = base + np.array([1e-14, 0.0, -1e-14])  # 1% moves of scores in tiny units: kept
    np.testing.assert_allclose(paired_difference(base, cand), [1e-14, 0.0, -1e-14])
    big = np.array([1e6, 2.0, 3.0])  # beside a score of 10^6, a move of 10^-7 is rounding
    assert paired_difference(big, big + np.array([0.0, 1e-7, 0.5])).tolist() == [0.0, 0.0, 0.5]
