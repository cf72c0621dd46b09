"""What a policy value may be: its type as TOML writes it and its range, in one object per kind of value.

Each kind says in words what it expects (the refusal's line and docs/policy.md both read it), finds the problem
with a value (``None`` when there is none), converts a valid value to what the Policy holds, and says what the
note's JSON holds and what a command-line flag parses. A boolean is never a number here: ``margin = false`` is
refused, not read as 0.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from releasegate.text import first_hidden


def is_number(x: Any) -> bool:
    """An int or a float, never a bool (``True`` is an int to Python, and ``margin = true`` is no margin)."""
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _shown(x: float) -> str:
    """A bound as the messages print it: 1000 -> 1,000; 0.000001 -> 0.000001 (not 1e-06)."""
    if float(x).is_integer():
        return f"{int(x):,}"
    return f"{x:.10f}".rstrip("0")


@dataclass(frozen=True)
class Value:
    """A kind of value. ``json``: its type as docs/json.md writes it; ``flag``: what its flag parses (a Python
    type, ``"names"`` for a repeatable flag, ``"switch"`` for an on/off flag, ``"choice"``)."""

    expected: str
    json: str
    flag: Any = str

    def problem(self, value: Any) -> str | None:
        raise NotImplementedError

    def convert(self, value: Any) -> Any:
        return value

    def refusal(self, name: str, value: Any) -> str:
        """The one line a bad value gets: what the key must be and what it was."""
        return f"{name} must be {self.expected}, got {value!r}"


@dataclass(frozen=True)
class Number(Value):
    """A finite number within bounds (``None`` for no bound; ``open_low``/``open_high``: the bound excluded);
    ``whole`` for an integer. ``nullable``: None (the TOML key left out) means "not set"."""

    expected: str = ""
    json: str = "float"
    flag: Any = float
    low: float | None = None
    high: float | None = None
    open_low: bool = False
    open_high: bool = False
    whole: bool = False
    nullable: bool = False

    def __post_init__(self) -> None:
        if not self.expected:
            object.__setattr__(self, "expected", self._words())
        if self.whole:  # a whole number's flag parses an integer, and its JSON holds one
            object.__setattr__(self, "flag", int)

    def _words(self) -> str:
        noun = "an integer" if self.whole else "a number"
        low, high = self.low, self.high
        if low is not None and high is not None:
            start = f"above {_shown(low)}" if self.open_low else f"from {_shown(low)}"
            if self.open_high:
                end = f"below {_shown(high)}" if self.open_low else f"up to {_shown(high)} (excluded)"
            else:
                end = f"at most {_shown(high)}" if self.open_low else f"to {_shown(high)}"
            return f"{noun} {start} {'and ' if self.open_low else ''}{end}"
        finite = noun if self.whole else "a finite number"  # an integer is finite
        if low is not None:
            return f"{finite} {'>' if self.open_low else '>='} {_shown(low)}"
        return finite

    def problem(self, value: Any) -> str | None:
        if value is None and self.nullable:
            return None
        if isinstance(value, bool):
            return "a boolean is never a number"
        if not is_number(value) or (self.whole and not isinstance(value, int)):
            return "not a number" if not is_number(value) else "not a whole number"
        if isinstance(value, float) and not math.isfinite(value):  # an int of any size is finite
            return "not finite"
        if self.low is not None and (value < self.low or (self.open_low and value == self.low)):
            return "too small"
        if self.high is not None and (value > self.high or (self.open_high and value == self.high)):
            return "too large"
        return None

    def refusal(self, name: str, value: Any) -> str:
        why = self.problem(value)
        said = " (a boolean is never a number)" if why == "a boolean is never a number" else ""
        return f"{name} must be {self.expected}, got {value!r}{said}"


@dataclass(frozen=True)
class Text(Value):
    """Text; ``blank_ok`` False refuses an empty or blank one; ``nullable``: None means "not set"; ``plain``
    refuses a control or text-direction character (U+202E and the other bidirectional overrides, embeddings and
    isolates): in a text the user writes for people to read, such as the title, it can only make the note read
    otherwise than it says. Names that must match the data's (a baseline, a path) take them as the data has them."""

    expected: str = "text"
    json: str = "string"
    blank_ok: bool = True
    nullable: bool = True
    plain: bool = False

    def problem(self, value: Any) -> str | None:
        if value is None and self.nullable:
            return None
        if not isinstance(value, str):
            return "not text"
        if self.plain and first_hidden(value) is not None:
            return "hidden"
        return None if self.blank_ok or value.strip() else "blank"

    def refusal(self, name: str, value: Any) -> str:
        if self.problem(value) == "hidden":
            return (f"{name} holds the control or text-direction character {first_hidden(value)}, which can make "
                    f"the note read otherwise than it says; write it without, got {value!r}")
        return super().refusal(name, value)


@dataclass(frozen=True)
class Choice(Value):
    """One of a fixed set of words (a tuple of kinds.py): the flag is a click.Choice of the same tuple."""

    options: tuple[str, ...] = ()
    expected: str = ""
    json: str = "string"
    flag: Any = "choice"
    why: str = ""  # what the choice decides, said after the options

    def __post_init__(self) -> None:
        if not self.expected:
            object.__setattr__(self, "expected", " or ".join(f'"{o}"' for o in self.options))

    def problem(self, value: Any) -> str | None:
        if not isinstance(value, str):
            return "not text"
        return None if value in self.options else "unknown"

    def refusal(self, name: str, value: Any) -> str:
        if not isinstance(value, str):
            return f"{name} must be text ({self.expected}), got {value!r}"
        why = f" ({self.why})" if self.why else ""
        return f"unknown {name} {value!r}; expected one of {', '.join(self.options)}{why}"


@dataclass(frozen=True)
class Switch(Value):
    """true or false, and nothing else (``"yes"`` and 1 are refused, not read as true)."""

    expected: str = "true or false"
    json: str = "bool"
    flag: Any = "switch"

    def problem(self, value: Any) -> str | None:
        return None if isinstance(value, bool) else "not true or false"


@dataclass(frozen=True)
class Names(Value):
    """Names (release or category names): a list of text, or one text for one name; held as a tuple."""

    expected: str = "a list of names"
    json: str = "list of strings"
    flag: Any = "names"

    def problem(self, value: Any) -> str | None:
        if isinstance(value, str):
            return None
        if isinstance(value, (list, tuple)) and all(isinstance(x, str) for x in value):
            # A name given twice is a slip, not a second member: a critical category named twice would be
            # tested twice in the one error budget, with twice its weight, leaving less for the other tests.
            return "twice" if len(set(value)) < len(value) else None
        return "not names"

    def refusal(self, name: str, value: Any) -> str:
        if self.problem(value) == "twice":
            again = next(x for i, x in enumerate(value) if x in value[:i])
            return f"{name} names {again!r} twice; give each name once, got {list(value)!r}"
        return super().refusal(name, value)

    def convert(self, value: Any) -> tuple[str, ...]:
        return (value,) if isinstance(value, str) else tuple(value)


@dataclass(frozen=True)
class Pair(Value):
    """Two finite numbers [low, high] with low below high (``score_range``), or None."""

    expected: str = "two finite numbers [low, high], low below high"
    json: str = "list or null"
    flag: Any = None

    def problem(self, value: Any) -> str | None:
        if value is None:
            return None
        if not (isinstance(value, (list, tuple)) and len(value) == 2 and all(map(is_number, value))):
            return "not two numbers"
        if not all(math.isfinite(x) for x in value) or not value[0] < value[1]:
            return "not a range"
        return None

    def convert(self, value: Any) -> tuple[float, float] | None:
        return None if value is None else (float(value[0]), float(value[1]))


@dataclass(frozen=True)
class Table(Value):
    """A TOML table whose own check (``read``) refuses what is wrong in it with its own line and returns it as
    the Policy holds it (guardrails, prices, columns, the per-metric tables)."""

    read: Callable[[Any], Any] | None = None
    json: str = "object"
    flag: Any = None

    def problem(self, value: Any) -> str | None:
        return None if isinstance(value, Mapping) else "not a table"

    def convert(self, value: Any) -> Any:
        return self.read(value) if self.read is not None else dict(value)
