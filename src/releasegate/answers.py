"""The baseline's text beside the candidate's: how the paired table carries the baseline's value of each
per-release column (load/per_release.py) to the broken and fixed cases.

The paired table (analyze.pair) holds the candidate's columns under their own names; the baseline's copy of a
per-release column travels under :func:`baseline_column`'s name, which no input column can have (it starts
with a NUL character, which the loaders never keep in a header).
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

_PREFIX = "\x00baseline:"


def baseline_column(name: str) -> str:
    """The paired table's name for the baseline's value of the per-release column ``name``."""
    return _PREFIX + name


def baseline_renames(columns: Sequence[str]) -> dict[str, str]:
    return {c: baseline_column(c) for c in columns}


def baseline_texts(rows: pd.DataFrame, columns: Sequence[str]) -> list[tuple[tuple[str, str], ...]]:
    """Per row of the paired ``rows``: ((column, the baseline's text), ...) for each per-release column, in
    order; a missing value is the empty text, as in the metadata."""
    present = [c for c in columns if baseline_column(c) in rows.columns]
    if not present:
        return [()] * int(rows.shape[0])
    texts = []
    for column in present:
        series = rows[baseline_column(column)]
        texts.append(series.astype(object).where(series.notna(), "").astype(str).tolist())
    return [tuple(zip(present, values)) for values in zip(*texts)]
