"""Which cases changed between the baseline and a candidate on the paired-mean path, listed without a Python
pass over every case: the selection and the ordering are numpy operations, and only the listed cases become
objects."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd

from releasegate.analyze import MAX_METADATA_COLUMNS
from releasegate.answers import baseline_texts
from releasegate.model import CaseChange
from releasegate.policy import Policy
from releasegate.validate import ValidatedResults

# Means of the same scores summed in a different order can differ in the last bit; such a "change" is
# rounding, and in a critical category it would block a release.
_RELATIVE_TOLERANCE = 1e-12


def significant_change(base: np.ndarray, cand: np.ndarray) -> np.ndarray:
    """d = cand - base per case, with differences at the level of floating-point rounding set to exactly 0."""
    d = np.asarray(cand, dtype=np.float64) - np.asarray(base, dtype=np.float64)
    scale = np.maximum(1.0, np.maximum(np.abs(base), np.abs(cand)))
    d[np.abs(d) <= _RELATIVE_TOLERANCE * scale] = 0.0
    return d


def _text(series: pd.Series) -> np.ndarray:
    return series.astype(object).where(series.notna(), "").astype(str).to_numpy()


def case_changes(paired: pd.DataFrame, mask: np.ndarray, data: ValidatedResults,
                 policy: Policy) -> tuple[CaseChange, ...]:
    """The cases selected by ``mask`` as CaseChange records: critical categories first, then the largest
    change first (the cases a reviewer should read), then category and case id for a stable order."""
    idx = np.flatnonzero(mask)
    if idx.size == 0:
        return ()
    rows = paired.iloc[idx]
    ids = np.asarray(rows.index.astype(str), dtype=str)
    base = rows["base"].to_numpy(np.float64)
    cand = rows["cand"].to_numpy(np.float64)
    # Rounded so that equal drops sort as equal (0.8 - 0.4 and 0.6 - 0.2 differ in the last bit).
    size = np.round(np.abs(cand - base), 9)
    has_category = "category" in rows.columns
    categories = _text(rows["category"]) if has_category else np.full(idx.size, "")
    clusters = _text(rows["cluster"]) if "cluster" in rows.columns else None
    critical = np.isin(categories, list(policy.critical)) if has_category else np.zeros(idx.size, bool)
    order = np.lexsort((ids, categories, -size, ~critical))  # the last key sorts first
    meta = list(data.metadata_columns[:MAX_METADATA_COLUMNS])
    meta_rows = zip(*[_text(rows[c])[order].tolist() for c in meta]) if meta else itertools.repeat(())
    answers = baseline_texts(rows.iloc[order], [c for c in meta if c in data.per_release_columns])
    # Plain Python lists: building each record from numpy scalars would cost several times as much.
    listed = zip(
        ids[order].tolist(),
        categories[order].tolist() if has_category else itertools.repeat(None),
        clusters[order].tolist() if clusters is not None else itertools.repeat(None),
        base[order].tolist(), cand[order].tolist(), critical[order].tolist(), meta_rows, answers,
    )
    return tuple(CaseChange(i, cat, cl, b, c, crit, tuple(zip(meta, values)), texts)
                 for i, cat, cl, b, c, crit, values, texts in listed)
