"""Column names: the user's names mapped onto the canonical ones, and the message when a required one is absent."""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from releasegate.errors import InputError

COLUMN_FLAGS = {"release": "--release-col", "case_id": "--case-col", "passed": "--passed-col", "score": "--score-col",
         "category": "--category-col", "cluster": "--cluster-col", "run": "--run-col", "error": "--error-col"}


def rename_columns(frame: pd.DataFrame, columns: Mapping[str, str], path: Path,
            required: tuple[str, ...] = ()) -> pd.DataFrame:
    """Map the user's column names onto the canonical ones (``[columns]`` / ``--case-col`` ...).

    A column named for a role in ``required`` must exist: otherwise a file that happens to hold a column of
    the canonical name would be read from that column instead, silently.
    """
    mapping = {}
    for canonical, given in columns.items():
        if given == canonical:
            continue
        if given in frame.columns:
            mapping[given] = canonical
        elif canonical in required:
            require_column(frame, given, path, COLUMN_FLAGS.get(canonical, "[columns]"))
    if not mapping:
        return frame
    # A column already called by the canonical name gives way to the one the user chose.
    clash = [c for c in mapping.values() if c in frame.columns and c not in mapping]
    return frame.drop(columns=clash).rename(columns=mapping)


def plausible_match(name: str, columns: list[str]) -> str | None:
    """The column the user plausibly meant by ``name``: a close spelling that holds no other role.

    "case_id" is 0.62 similar to "passed", but it is the case id: suggesting ``--passed-col case_id`` would
    send the user the wrong way, so columns of the canonical roles are never offered for another one.
    """
    from releasegate.policy import CANONICAL_COLUMNS

    free = [c for c in columns if c not in CANONICAL_COLUMNS]
    close = difflib.get_close_matches(name, free, n=1, cutoff=0.6)
    return close[0] if close else None


def require_column(frame: pd.DataFrame, canonical: str, path: Path | str, flag: str, given: str | None = None) -> None:
    """Fail with the columns present and the closest match when a required column is absent."""
    name = given or canonical
    if canonical in frame.columns:
        return
    present = [str(c) for c in frame.columns]
    close = plausible_match(name, present)
    hint = f"; closest match {close!r} (use {flag} {close})" if close else f" (name it with {flag})"
    raise InputError(f"{path}: missing required column {name!r}; columns present: {', '.join(present)}{hint}")
