"""Number formatting shared by the verdict sentences and the templates (never computes a statistic).

One rule for every figure: a figure that is not zero never shows as zero, and a zero never shows with a minus.
A figure that rounds to zero at its digits keeps as many more (up to :data:`EXTRA_DIGITS`) as it takes for its
first digit to show (-0.0004 -> -0.0004, not -0.000 or +0.000); one smaller still shows as below the last digit
(-<0.000001). So a sentence's direction word ("worsened", "lower", "a loss of") always has a figure of its sign
beside it. A rate is never shown as 0% or 100% unless it is exactly that ("<0.1%", ">99.9%"), and a p-value
never as 1.000 unless it is 1 ("> 0.999"), as a small one is "< 0.001".
"""

from __future__ import annotations

import math
from typing import TypeGuard

# The digits a figure too small to show at its own may add: three, as the non-inferiority bound's (told apart
# from its margin) always did; past them the figure is a floating-point remainder, not a measurement.
EXTRA_DIGITS = 3


def is_number(x: object) -> TypeGuard[float]:
    """A figure that can be printed: an int or a float that is not NaN (None, NaN and text print as "n/a")."""
    return isinstance(x, (int, float)) and not (isinstance(x, float) and math.isnan(x))


def pvalue(p: float | None) -> str:
    """0.238, 0.001, < 0.001; the lesson prints McNemar p to three decimals. A p just short of 1 is "> 0.999"
    (1.000 is a p of exactly 1, as when no case changed)."""
    if not is_number(p):
        return "n/a"
    if p < 0.00095:
        return "< 0.001"
    if 0.9995 <= p < 1:
        return "> 0.999"
    return f"{p:.3f}"


def p_is(p: float | None) -> str:
    """'p = 0.238', 'p < 0.001' or 'p > 0.999', for sentences."""
    text = pvalue(p)
    return f"p {text}" if text[0] in "<>" else f"p = {text}"


def pvalue_beside(p: float | None, alpha: float | None) -> str:
    """A p-value printed beside the level it was compared with: :func:`pvalue`, with as many more digits as it
    takes for the two to print apart ("0.0503; alpha 0.05", not "0.050; alpha 0.05" beside "ok", while 0.0499
    printed "0.050; alpha 0.05" beside "fired"). A p equal to the level prints as it is."""
    text = pvalue(p)
    if not (is_number(p) and is_number(alpha)) or text[0] in "<>" or p == alpha:
        return text
    digits = 3
    while digits < APART_DIGITS and round(p, digits) == round(alpha, digits):
        digits += 1
    return f"{p:.{digits}f}"


def p_is_beside(p: float | None, alpha: float | None) -> str:
    """'p = 0.0503' beside alpha 0.05: :func:`p_is` told apart from the level (:func:`pvalue_beside`)."""
    text = pvalue_beside(p, alpha)
    return f"p {text}" if text[0] in "<>" else f"p = {text}"


def with_article(number_text: str) -> str:
    """'an 80%', 'a 95%', 'an 11%', 'an 18 cases': English says 'an' before a number spoken with a vowel
    (eight, eleven, eighteen, eighty, eight hundred)."""
    digits = number_text.lstrip("+-<>").replace(",", "").split(".")[0].split("%")[0].split(" ")[0]
    vowel = digits.startswith("8") or digits in ("11", "18") or (digits[:2] in ("11", "18") and len(digits) == 5)
    return f"{'an' if vowel else 'a'} {number_text}"


def count(n: int) -> str:
    """A count as the sentences print it, thousands grouped: 27091 -> 27,091."""
    return f"{n:,}"


def plural(n: int, noun: str, nouns: str | None = None) -> str:
    """A count with its noun: 1 case, 0 cases, 2,400 cases; ``nouns`` where adding "s" is wrong (category)."""
    return f"{count(n)} {noun if n == 1 else nouns or noun + 's'}"


def _magnitude(x: float, digits: int, grouped: bool = False) -> str:
    """The size of ``x`` (no sign) at ``digits`` decimals, or the fewest more (up to EXTRA_DIGITS) that show a
    figure that is not zero as not zero; "<0.000001" (the last digit's unit) when even those show it as zero."""
    size = abs(x)
    shown = digits
    while size and float(f"{size:.{shown}f}") == 0 and shown < digits + EXTRA_DIGITS:
        shown += 1
    if size and float(f"{size:.{shown}f}") == 0:
        return f"<{10.0 ** -shown:.{shown}f}"
    return f"{size:{',' if grouped else ''}.{shown}f}"


def _percent(x: float, digits: int) -> str:
    """A rate in percent without the sign: an end of [0, 1] only when the rate is that end (a rate between that
    rounds to one shows as "<0.1" or ">99.9")."""
    if not 0 < x < 1:  # an end, or a share beyond one (200% more), or below zero: as any figure
        return f"{'-' if x < 0 else ''}{_magnitude(x * 100, digits)}"
    text = f"{x * 100:.{digits}f}"
    unit = f"{10.0 ** -digits:.{digits}f}"
    if float(text) == 0:
        return f"<{unit}"
    if float(text) == 100:
        return f">{100 - float(unit):.{digits}f}"
    return text


def pct(x: float | None, digits: int = 1) -> str:
    """A rate as a percentage: 0.9175 -> 91.8%; 0.9996 -> >99.9%; 0.0004 -> <0.1%."""
    return f"{_percent(x, digits)}%" if is_number(x) else "n/a"


def _with_sign(x: float, scaled: float, digits: int) -> str:
    """The sign rule of every signed figure: "+" at or above zero, "-" below it; a figure below zero that
    rounds to zero keeps digits until it shows (-0.0004 -> "-0.0004": a loss too small to show at three
    digits is still a loss, never "+0.000" nor "-0.000")."""
    return f"{'-' if x < 0 else '+'}{_magnitude(scaled, digits)}"


def points(x: float | None, digits: int = 1) -> str:
    """A difference of rates in percentage points with its sign: 0.015 -> +1.5; -0.0001 -> -0.01."""
    return _with_sign(x, x * 100, digits) if is_number(x) else "n/a"


def size_points(x: float | None, digits: int = 1) -> str:
    """The size of a difference in points, without a sign: -0.026 -> 2.6."""
    return _magnitude(x * 100, digits) if is_number(x) else "n/a"


def interval_points(low: float | None, high: float | None, digits: int = 1) -> str:
    return f"[{points(low, digits)}, {points(high, digits)}]"


def interval_pct(low: float | None, high: float | None, digits: int = 1) -> str:
    if not (is_number(low) and is_number(high)):
        return "n/a"
    return f"[{_percent(low, digits)}, {_percent(high, digits)}]"


def number(x: float | None, digits: int = 3) -> str:
    """A score or other plain number, trimmed, thousands grouped: 0.7126 -> 0.713; 1634.2 -> 1,634 (digits=0);
    never zero unless zero (0.0004 -> 0.0004), never -0."""
    if not is_number(x):
        return "n/a"
    return f"{'-' if x < 0 else ''}{_magnitude(x, digits, grouped=True)}"


def signed(x: float | None, digits: int = 3) -> str:
    """A difference of scores with its sign, as the verdict sentences print it: 0.057 -> +0.057; -0.0004 ->
    -0.0004 (the sign rule of :func:`_with_sign`)."""
    return _with_sign(x, x, digits) if is_number(x) else "n/a"


def interval_signed(low: float | None, high: float | None, digits: int = 3) -> str:
    return f"[{signed(low, digits)}, {signed(high, digits)}]"


# The most decimals a figure told apart from its limit may take: what a double's 15 to 17 digits hold of a figure
# near 1, so a bound a hair beyond its limit, which fired, never prints equal to it.
APART_DIGITS = 15


def apart(value: float | None, limit: float | None, digits: int, scale: float = 1.0) -> int:
    """The digits that show ``value`` apart from ``limit`` (a bound beside the margin or limit it was compared
    with): ``digits``, or as many more as it takes for the two to print apart ("-5.05 points, margin -5.0
    points", not "-5.0 points, margin -5.0 points" beside "beyond")."""
    if not (is_number(value) and is_number(limit)):
        return digits
    gap = abs(value - limit) * scale
    shown = digits
    while shown < APART_DIGITS and 0 < gap < 10.0 ** -shown:
        shown += 1
    return shown


def ratio(x: float | None, digits: int = 2) -> str:
    """A ratio of the candidate's to the baseline's: 0.57 -> 0.57x."""
    return f"{'-' if x < 0 else ''}{_magnitude(x, digits)}x" if is_number(x) else "n/a"


def money(x: float | None, digits: int = 2) -> str:
    """An amount in dollars: 1.1956 -> $1.20; money(0.0011956, 5) -> $0.00120."""
    return f"{'-' if x < 0 else ''}${_magnitude(x, digits, grouped=True)}" if is_number(x) else "n/a"
