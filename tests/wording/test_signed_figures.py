"""The sign rule of every signed figure (fmt.signed, fmt.points): "+" at or above zero, "-" below it, and a figure
that is not zero never shows as zero. A difference of -0.0004 printed as "+0.000" said the candidate gained; as
"-0.000" it printed a negative zero beside "worsened"; it prints "-0.0004"."""

from __future__ import annotations

import math

import pytest

from releasegate import fmt


@pytest.mark.parametrize("x,score,points", [
    (0.057, "+0.057", "+5.7"), (-0.026, "-0.026", "-2.6"), (-0.0004, "-0.0004", "-0.04"),
    (0.0004, "+0.0004", "+0.04"), (0.0, "+0.000", "+0.0"), (-0.0, "+0.000", "+0.0"), (-0.00049, "-0.0005", "-0.05"),
    (-0.0000049, "-0.000005", "-0.0005"), (-1e-300, "-<0.000001", "-<0.0001"), (5.5e-17, "+<0.000001", "+<0.0001"),
    (math.nan, "n/a", "n/a"),
])
def test_a_figure_keeps_the_sign_of_its_value(x, score, points):
    assert fmt.signed(x) == score
    assert fmt.points(x) == points
    assert fmt.interval_signed(x, 0.1) == f"[{score}, +0.100]"


def test_a_figure_that_shows_at_its_digits_is_rounded_as_before():
    for x in (0.0005, 0.0015, 0.1234567, 12.3456, 0.00051):
        assert fmt.signed(x) == f"+{x:.3f}" and fmt.signed(-x) == f"-{x:.3f}"


@pytest.mark.parametrize("rate,shown", [
    (0.0, "0.0%"), (1.0, "100.0%"), (0.0004, "<0.1%"), (0.9996, ">99.9%"), (0.99949, "99.9%"), (0.00051, "0.1%"),
    (0.5, "50.0%"), (1.5, "150.0%"), (-0.0004, "-0.04%"), (-0.0, "0.0%"),
])
def test_a_rate_is_0_or_100_percent_only_when_it_is(rate, shown):
    assert fmt.pct(rate) == shown


@pytest.mark.parametrize("p,shown", [
    (1.0, "p = 1.000"), (0.9996, "p > 0.999"), (0.9994, "p = 0.999"), (0.00094, "p < 0.001"), (0.001, "p = 0.001"),
    (0.238, "p = 0.238"),
])
def test_a_p_value_is_1_only_when_it_is(p, shown):
    assert fmt.p_is(p) == shown


def test_a_count_agrees_with_its_noun():
    assert [fmt.plural(n, "case") for n in (0, 1, 2, 2400)] == ["0 cases", "1 case", "2 cases", "2,400 cases"]
    assert fmt.plural(1, "category", "categories") == "1 category"
    assert fmt.plural(3, "category", "categories") == "3 categories"
