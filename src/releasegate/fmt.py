"""Number formatting shared by the verdict sentences and the templates (never computes a statistic)."""

from __future__ import annotations

import math
from typing import TypeGuard


def is_number(x: object) -> TypeGuard[float]:
    """A figure that can be printed: an int or a float that is not NaN (None, NaN and text print as "n/a")."""
    return isinstance(x, (int, float)) and not (isinstance(x, float) and math.isnan(x))


def pvalue(p: float | None) -> str:
    """0.238, 0.001, < 0.001; the lesson prints McNemar p to three decimals."""
    if not is_number(p):
        return "n/a"
    if p < 0.00095:
        return "< 0.001"
    return f"{p:.3f}"


def p_is(p: float | None) -> str:
    """'p = 0.238' or 'p < 0.001', for sentences."""
    text = pvalue(p)
    return f"p {text}" if text.startswith("<") else f"p = {text}"


def with_article(number_text: str) -> str:
    """'an 80%', 'a 95%', 'an 11%', 'an 18 cases': English says 'an' before a number spoken with a vowel
    (eight, eleven, eighteen, eighty, eight hundred)."""
    digits = number_text.lstrip("+-").replace(",", "").split(".")[0].split("%")[0].split(" ")[0]
    vowel = digits.startswith("8") or digits in ("11", "18") or (digits[:2] in ("11", "18") and len(digits) == 5)
    return f"{'an' if vowel else 'a'} {number_text}"


def pct(x: float | None, digits: int = 1) -> str:
    """A rate as a percentage: 0.9175 -> 91.8%."""
    return f"{x * 100:.{digits}f}%" if is_number(x) else "n/a"


def _with_sign(x: float, scaled: float, digits: int) -> str:
    """The sign rule of every signed figure: "+" at or above zero, "-" below it, even when the figure rounds to
    zero (-0.0004 -> "-0.000": a loss too small to show is still a loss, never "+0.000")."""
    return f"{'-' if x < 0 else '+'}{abs(scaled):.{digits}f}"


def points(x: float | None, digits: int = 1) -> str:
    """A difference of rates in percentage points with its sign: 0.015 -> +1.5; -0.0001 -> -0.0."""
    return _with_sign(x, x * 100, digits) if is_number(x) else "n/a"


def size_points(x: float | None, digits: int = 1) -> str:
    """The size of a difference in points, without a sign: -0.026 -> 2.6."""
    return f"{abs(x) * 100:.{digits}f}" if is_number(x) else "n/a"


def interval_points(low: float | None, high: float | None, digits: int = 1) -> str:
    return f"[{points(low, digits)}, {points(high, digits)}]"


def interval_pct(low: float | None, high: float | None, digits: int = 1) -> str:
    if not (is_number(low) and is_number(high)):
        return "n/a"
    return f"[{low * 100:.{digits}f}, {high * 100:.{digits}f}]"


def number(x: float | None, digits: int = 3) -> str:
    """A score or other plain number, trimmed, thousands grouped: 0.7126 -> 0.713; 1634.2 -> 1,634 (digits=0)."""
    return f"{x:,.{digits}f}" if is_number(x) else "n/a"


def signed(x: float | None, digits: int = 3) -> str:
    """A difference of scores with its sign, as the verdict sentences print it: 0.057 -> +0.057; -0.0004 ->
    -0.000 (the sign rule of :func:`_with_sign`)."""
    return _with_sign(x, x, digits) if is_number(x) else "n/a"


def interval_signed(low: float | None, high: float | None, digits: int = 3) -> str:
    return f"[{signed(low, digits)}, {signed(high, digits)}]"


def ratio(x: float | None, digits: int = 2) -> str:
    return f"{x:.{digits}f}x" if is_number(x) else "n/a"


def money(x: float | None, digits: int = 2) -> str:
    """An amount in dollars: 1.1956 -> $1.20; money(0.0011956, 5) -> $0.00120."""
    return f"${x:,.{digits}f}" if is_number(x) else "n/a"
