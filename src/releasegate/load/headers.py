"""Column names must be unique, spaces around them aside.

pandas renames a second ``passed`` column to ``passed.1`` (which then became case metadata, silently), and
``passed`` beside `` passed`` became two columns of one name once stripped (an internal error). Either way
the file says two things about one role: it is refused, naming the column and where it appears.
"""

from __future__ import annotations

import csv
import itertools
from collections.abc import Iterable
from pathlib import Path

from releasegate.errors import InputError


def delimited_header(path: Path, sep: str) -> list[str]:
    """The header row exactly as written (pandas would already have renamed duplicates)."""
    with open(path, encoding="utf-8-sig", newline="") as handle:
        lines = "".join(itertools.islice(handle, 1))
    return next(csv.reader([lines], delimiter=sep), [])


def check_unique_columns(path: Path, names: Iterable[object]) -> None:
    """Refuse a column name given twice, or twice up to leading and trailing spaces."""
    seen: dict[str, tuple[int, str]] = {}
    for position, name in enumerate(map(str, names), start=1):
        key = name.strip()
        if key in seen:
            first_position, first = seen[key]
            how = "twice" if first == name else f"twice ({first!r} and {name!r}: names are compared without spaces)"
            raise InputError(f"{path}: column {key!r} appears {how}, as columns {first_position} and {position}; "
                             "each column name must be unique: rename or drop one")
        seen[key] = (position, name)
