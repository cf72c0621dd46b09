"""Two notes' JSON compared key by key, whatever their shape: the figures, the verdicts, the cases, the texts.

The walk knows no section of the note, so a key added to the JSON is compared as soon as it is written. Three
rules make its answer readable:

- Figures are equal when they agree at the precision the JSON writes them: 12 significant digits
  (render/json_text.py), so two values the writer rounds to neighbouring 12-digit numbers still agree. Counts
  (integers) must be equal.
- A list of objects that all carry an identity key with distinct values (``case_id``, ``name``, ``category``,
  ``label``, ``rule``, ``release``) is matched on that key, not on position: a case that left a list is one
  difference naming the case, not a shift of every case after it. The path says what matched:
  ``candidates[name=r2].categories[category=Fraud].broke``.
- A key whose shape path (``candidates[].judge.gold_path``: lists as ``[]``) the ``ignore`` predicate accepts is
  not compared: the caller's choice (verify leaves out the time of generation, the command line, the versions).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

IDENTITY_KEYS = ("case_id", "name", "category", "label", "rule", "release", "metric")
SIGNIFICANT_DIGITS = 12


class _Missing:
    def __repr__(self) -> str:
        return "absent"


MISSING: Any = _Missing()


@dataclass(frozen=True)
class Difference:
    """One place where two notes differ: its JSON path, what kind of value it is, and the two values
    (:data:`MISSING` on the side that lacks it)."""

    path: str
    kind: str  # "figure", "verdict", "case", "item", "key", "text", "type"
    note: Any
    rerun: Any


def same_figure(a: float, b: float, digits: int = SIGNIFICANT_DIGITS) -> bool:
    """Equal at ``digits`` significant digits: within one unit of the last digit the writer keeps."""
    if a == b:
        return True
    if not (math.isfinite(a) and math.isfinite(b)):
        return False
    unit = 10.0 ** (math.floor(math.log10(max(abs(a), abs(b)))) - (digits - 1))
    # Counted in units of the last digit kept, rounded: the binary representation's error is far below a unit.
    return unit > 0 and abs(round(a / unit) - round(b / unit)) <= 1


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _identity(a: list[Any], b: list[Any]) -> str | None:
    """The key both lists of objects are matched on, or None (matched on position)."""
    items = a + b
    if not items or not all(isinstance(x, dict) for x in items):
        return None
    for key in IDENTITY_KEYS:
        if all(key in x and isinstance(x[key], (str, int)) and not isinstance(x[key], bool) for x in items):
            if len({x[key] for x in a}) == len(a) and len({x[key] for x in b}) == len(b):
                return key
    return None


def _never(_: str) -> bool:
    return False


def compare(note: Any, rerun: Any, *, ignore: Callable[[str], bool] = _never,
            verdict_keys: frozenset[str] = frozenset({"verdict", "ship"})) -> Iterator[Difference]:
    """Every difference between ``note`` and ``rerun`` (parsed JSON), in the note's order."""
    yield from _walk(note, rerun, "", "", ignore, verdict_keys, "")


def _walk(a: Any, b: Any, path: str, shape: str, ignore: Callable[[str], bool], verdict_keys: frozenset[str],
          key: str) -> Iterator[Difference]:
    if isinstance(a, dict) and isinstance(b, dict):
        for k in [*a, *(k for k in b if k not in a)]:
            child_shape = f"{shape}.{k}" if shape else str(k)
            if ignore(child_shape):
                continue
            child = f"{path}.{k}" if path else k
            if k not in b or k not in a:
                yield Difference(child, "key", a.get(k, MISSING), b.get(k, MISSING))
            else:
                yield from _walk(a[k], b[k], child, child_shape, ignore, verdict_keys, k)
        return
    if isinstance(a, list) and isinstance(b, list):
        yield from _lists(a, b, path, shape + "[]", ignore, verdict_keys, key)
        return
    if _is_number(a) and _is_number(b):
        if isinstance(a, int) and isinstance(b, int):
            same = a == b
        else:
            same = same_figure(float(a), float(b))
        if not same:
            yield Difference(path, "verdict" if key in verdict_keys else "figure", a, b)
        return
    if type(a) is not type(b) and not (a is None or b is None):
        yield Difference(path, "type", a, b)
        return
    if a != b:
        kind = "verdict" if key in verdict_keys else ("figure" if _is_number(a) or _is_number(b) else "text")
        yield Difference(path, kind, a, b)


def _identical(a: list[Any], b: list[Any]) -> bool:
    """The two lists written as the same JSON text: then no value in them differs, whatever is ignored. Python's
    ``==`` would not do (``True == 1``, ``1 == 1.0``), the text tells them apart; NaN (equal to nothing) is refused
    by the writer, so such lists are walked. The C writer reads a list of 570,000 cases in a tenth of the time the
    walk takes."""
    if len(a) != len(b):
        return False
    try:
        return json.dumps(a, allow_nan=False) == json.dumps(b, allow_nan=False)
    except (TypeError, ValueError):  # a NaN or infinity (or a value JSON cannot hold): walked
        return False


def _lists(a: list[Any], b: list[Any], path: str, shape: str, ignore: Callable[[str], bool], verdict_keys: frozenset[str],
           key: str) -> Iterator[Difference]:
    if _identical(a, b):
        return
    identity = _identity(a, b)
    scalars = not any(isinstance(x, (dict, list)) for x in a + b)
    if scalars and len(a) != len(b):  # a sentence added to warnings: one difference, not a shift of the rest
        yield Difference(path, "verdict" if key in verdict_keys else "text", a, b)
        return
    if identity is None:
        for i, (x, y) in enumerate(zip(a, b)):
            yield from _walk(x, y, f"{path}[{i}]", shape, ignore, verdict_keys, key)
        for i in range(len(b), len(a)):
            yield Difference(f"{path}[{i}]", "item", a[i], MISSING)
        for i in range(len(a), len(b)):
            yield Difference(f"{path}[{i}]", "item", MISSING, b[i])
        return
    theirs = {x[identity]: x for x in b}
    ours = {x[identity] for x in a}
    kind = "case" if identity == "case_id" else "item"
    for x in a:
        child = f"{path}[{identity}={x[identity]}]"
        if x[identity] in theirs:
            yield from _walk(x, theirs[x[identity]], child, shape, ignore, verdict_keys, key)
        else:
            yield Difference(child, kind, x, MISSING)
    for y in b:
        if y[identity] not in ours:
            yield Difference(f"{path}[{identity}={y[identity]}]", kind, MISSING, y)


def count_leaves(value: Any, ignore: Callable[[str], bool] = _never, shape: str = "") -> tuple[int, int]:
    """How many figures (numbers) and how many other values a note holds, outside the keys ``ignore`` accepts.
    Walked with a stack of its own, not a call a value: a note of 570,000 changed cases holds 3.4 million. The
    objects of one list share their keys' shape paths, so each key's path and whether it is ignored are worked
    out once a list, and plain values are counted where they are met instead of being stacked."""
    figures = others = 0
    stack = [(value, shape)]
    while stack:
        value, shape = stack.pop()
        if isinstance(value, list):
            items = shape + "[]"
            paths: dict[str, str | None] = {}  # a key of this list's objects: its shape path, None when ignored
            for child in value:
                if type(child) is not dict:
                    stack.append((child, items))
                    continue
                for key, leaf in child.items():
                    if key in paths:
                        path = paths[key]
                    else:
                        path = paths[key] = None if ignore(child_shape := f"{items}.{key}") else child_shape
                    if path is None:
                        continue
                    kind = type(leaf)
                    if kind is int or kind is float:
                        figures += 1
                    elif kind is str or kind is bool or leaf is None:
                        others += 1
                    else:
                        stack.append((leaf, path))
        elif isinstance(value, dict):
            for key, child in value.items():
                child_shape = f"{shape}.{key}" if shape else str(key)
                if not ignore(child_shape):
                    stack.append((child, child_shape))
        elif _is_number(value):
            figures += 1
        else:
            others += 1
    return figures, others
