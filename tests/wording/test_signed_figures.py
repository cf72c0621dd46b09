"""The sign rule of every signed figure (fmt.signed, fmt.points): "+" at or above zero, "-" below it, also when
the figure rounds to zero. A negative difference of -0.0004 printed as "+0.000" said the candidate gained."""

from __future__ import annotations

import math

import pytest

from releasegate import fmt


@pytest.mark.parametrize("x,score,points", [
    (0.057, "+0.057", "+5.7"), (-0.026, "-0.026", "-2.6"), (-0.0004, "-0.000", "-0.0"),
    (0.0004, "+0.000", "+0.0"), (0.0, "+0.000", "+0.0"), (-0.0, "+0.000", "+0.0"), (-0.00049, "-0.000", "-0.0"),
    (-1e-300, "-0.000", "-0.0"), (math.nan, "n/a", "n/a"),
])
def test_a_figure_keeps_the_sign_of_its_value(x, score, points):
    assert fmt.signed(x) == score
    assert fmt.points(x) == points
    assert fmt.interval_signed(x, 0.1) == f"[{score}, +0.100]"


def test_the_rounding_is_the_unsigned_figure_s():
    for x in (0.0005, 0.0015, 0.1234567, 2.5e-4, 12.3456):
        assert fmt.signed(x) == f"+{x:.3f}" and fmt.signed(-x) == f"-{x:.3f}"
