"""Column names: the user's names mapped onto the canonical ones, and the message when a required one is absent."""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from releasegate.errors import ColumnError

COLUMN_FLAGS = {"release": "--release-col", "case_id": "--case-col", "passed": "--passed-col", "score": "--score-col",
         "category": "--category-col", "cluster": "--cluster-col", "run": "--run-col", "error": "--error-col"}


def rename_columns(frame: pd.DataFrame, columns: Mapping[str, str], path: Path,
            required: tuple[str, ...] = ()) -> pd.DataFrame:
    """Map the user's column names onto the canonical ones (``[columns]`` / ``--case-col`` ...).

    A column named for a role in ``required`` must exist: otherwise a file that happens to hold a column of
    the canonical name would be read from that column instead, silently.
    """
    shared = shared_columns(columns)
    if shared:
        present = ", ".join(map(str, frame.columns))
        raise ColumnError(f"{path}: {'; '.join(shared)}; columns present: {present}")
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


def shared_columns(columns: Mapping[str, str]) -> list[str]:
    """A line for each column that two roles name (a role named by its own name counts: ``--release-col
    release --case-col release``): read as one role, the other would be missing or read from the wrong column."""
    lines = []
    for name in dict.fromkeys(columns.values()):
        roles = sorted(role for role, given in columns.items() if given == name)
        if len(roles) > 1:
            flags = " and ".join(COLUMN_FLAGS.get(r, f"[columns] {r}") for r in roles)
            lines.append(f"column {name!r} is named for {len(roles)} roles, {' and '.join(roles)} ({flags}, or "
                         "their [columns] keys); give each role its own")
    return lines


_ROLE_WORDS = {"release": "release", "case_id": "case id", "category": "category", "cluster": "cluster",
               "run": "run axis", "error": "error column"}


def outcome_taken(columns: Mapping[str, str], present: list[str]) -> str | None:
    """The line when every outcome column a file holds under its own name (``passed``, ``score``) is named for
    another role (``--run-col passed``) and no outcome column is named: read as that role, the file would have
    no outcome, and "no outcome column" would send the user looking for a column that is there. None otherwise
    (an outcome named with --passed-col or --score-col, or one of the two left free)."""
    given = {role: name for role, name in columns.items() if name != role}
    implicit = [c for c in ("passed", "score") if c in present]
    if {"passed", "score"} & set(given) or not implicit:
        return None
    if not all(c in given.values() for c in implicit):
        return None
    said = [f"{c!r} is the outcome column, but {COLUMN_FLAGS.get(role, '[columns]')} {c} (or [columns] {role}) "
            f"names it the {_ROLE_WORDS.get(role, role)}" for c in implicit for role, name in given.items() if name == c]
    return (f"column {'; column '.join(said)}: no column would be left for the outcome; name another column for "
            "that role, or the outcome with --passed-col or --score-col")


def plausible_match(name: str, columns: list[str]) -> str | None:
    """The column the user plausibly meant by ``name``: a close spelling that holds no other role.

    "case_id" is 0.62 similar to "passed", but it is the case id: suggesting ``--passed-col case_id`` would
    send the user the wrong way, so columns of the canonical roles are never offered for another one.
    """
    from releasegate.policy import CANONICAL_COLUMNS

    free = [c for c in columns if c not in CANONICAL_COLUMNS]
    close = difflib.get_close_matches(name, free, n=1, cutoff=0.6)
    return close[0] if close else None


def _missing(name: str, flag: str, present: list[str], given: bool) -> str:
    """One missing column, with the flag that names it and the file's closest column, if any."""
    close = plausible_match(name, present)
    hints = [f"given with {flag} {name}"] if given else []
    hints.append(f"closest match {close!r}: use {flag} {close}" if close else "" if given else f"name it with {flag}")
    detail = "; ".join(h for h in hints if h)
    return f"missing required column {name!r}" + (f" ({detail})" if detail else "")


def require_column(frame: pd.DataFrame, canonical: str, path: Path | str, flag: str, given: str | None = None) -> None:
    """Fail with the columns present and the closest match when a required column is absent."""
    if canonical in frame.columns:
        return
    present = [str(c) for c in frame.columns]
    raise ColumnError(f"{path}: {_missing(given or canonical, flag, present, bool(given))}; columns present: "
                     f"{', '.join(present)}")


def check_columns(frame: pd.DataFrame, columns: Mapping[str, str], path: Path, *, release: bool,
                  outcome: bool) -> None:
    """Every problem of one file's column mapping in one message, before any renaming (issue 29): each missing
    required column with the flag that names it, each column named for two roles, and the file's own columns.

    ``release``: the file must hold a release column (no ``NAME=path``); ``outcome``: a passed or score column.
    A model, id, correct file is one run and one message naming --release-col, --case-col and --passed-col.
    """
    present = [str(c) for c in frame.columns]
    given = {role: name for role, name in columns.items() if name != role}
    problems = shared_columns(columns)
    needed = ["release"] * release + ["case_id"]
    for role in ("release", "case_id", "passed", "score", "run"):
        flag = COLUMN_FLAGS[role]
        if role in given and given[role] not in frame.columns:
            problems.append(_missing(given[role], flag, present, True))
        elif role in needed and role not in given and role not in frame.columns:
            problems.append(_missing(role, flag, present, False))
    taken = outcome_taken(columns, present) if outcome else None
    if taken:
        problems.append(taken)
    elif outcome and not {"passed", "score"} & set(given) and not {"passed", "score"} & set(frame.columns):
        close = plausible_match("passed", present)
        hint = f"closest match {close!r}: use --passed-col {close}" if close else "name it with --passed-col or --score-col"
        problems.append(f"no outcome column: need 'passed' (0/1) or 'score' ({hint})")
    if problems:
        head = f"{len(problems)} problems with the columns: " if len(problems) > 1 else ""
        raise ColumnError(f"{path}: {head}{'; '.join(problems)}; columns present: {', '.join(present)}")
