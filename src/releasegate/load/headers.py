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
from typing import TYPE_CHECKING

from releasegate.errors import ColumnError

if TYPE_CHECKING:
    import pandas as pd


def delimited_header(path: Path, sep: str) -> list[str]:
    """The header row exactly as written (pandas would already have renamed duplicates)."""
    with open(path, encoding="utf-8-sig", newline="") as handle:
        lines = "".join(itertools.islice(handle, 1))
    try:
        return next(csv.reader([lines], delimiter=sep), [])
    except csv.Error:
        # Python's csv module refuses a field over 128 KiB; a name that long is refused for its length, the
        # way a shorter over-long one is.
        check_name_lengths(path, lines.rstrip("\r\n").split(sep))
        raise ColumnError(f"{path}: its header row cannot be read as column names separated by {sep!r}") from None


# promptfoo's CSV export (`promptfoo eval -o results.csv`): a "[provider] prompt" column per release, with
# Status / Score / Grader Reason after each (0.123), or cells like "[PASS] (1.00) output" (0.118).
_PROMPTFOO_EXPORT = {"Status", "Score", "Grader Reason"}
_PROMPTFOO_CELL = ("[PASS]", "[FAIL]", "[ERROR]")


def refuse_harness_export(path: Path, frame: pd.DataFrame) -> None:
    """A table a harness writes for people to read, not its per-result output: say which and what to pass."""
    names = [str(n).strip() for n in frame.columns]
    crossed = [n for n in names if n.startswith("[") and "] " in n]
    if not crossed:
        return
    first = frame[crossed[0]].dropna().astype(str).head(1).tolist() if crossed[0] in frame.columns else []
    if _PROMPTFOO_EXPORT <= set(names) or (first and first[0].lstrip().startswith(_PROMPTFOO_CELL)):
        raise ColumnError(f"{path}: this is promptfoo's CSV export (one column per provider and prompt, no result "
                         "keys or runs); write the results with: promptfoo eval -o results.json (or .jsonl), and pass "
                         "that file")


# A column's name is shown in reports and messages; beyond this it is data written in the header by mistake.
MAX_NAME_LENGTH = 1_000


def check_name_lengths(path: Path, names: Iterable[object]) -> None:
    """Refuse a column name longer than :data:`MAX_NAME_LENGTH` characters."""
    for position, name in enumerate(map(str, names), start=1):
        if len(name) > MAX_NAME_LENGTH:
            raise ColumnError(f"{path}: column {position}'s name is {len(name):,} characters long (starting "
                              f"{name[:20]!r}); a column name may have at most {MAX_NAME_LENGTH:,}")


def check_unique_columns(path: Path, names: Iterable[object]) -> None:
    """Refuse a column name given twice, or twice up to leading and trailing spaces."""
    seen: dict[str, tuple[int, str]] = {}
    for position, name in enumerate(map(str, names), start=1):
        key = name.strip()
        if key in seen:
            first_position, first = seen[key]
            how = "twice" if first == name else f"twice ({first!r} and {name!r}: names are compared without spaces)"
            raise ColumnError(f"{path}: column {key!r} appears {how}, as columns {first_position} and {position}; "
                             "each column name must be unique: rename or drop one")
        seen[key] = (position, name)
