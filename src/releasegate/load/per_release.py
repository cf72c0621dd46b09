"""Which metadata columns hold text of each release (an answer, a grader's reason, an error) rather than an
attribute of the case.

A column is per release when, for at least one case, its value differs between releases (or runs): the
model's output, the grader's reason, an explanation, an error text. Those are kept per release and shown side
by side (the baseline's and the candidate's). Attributes of the case itself (category, cluster, input,
difficulty, target) must agree between releases; they are never per release, even when a harness wrote them
differently, and are shown once, as before.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

# Attributes of a case, never text of a release: the case is the same question whoever answers it.
CASE_ATTRIBUTES = frozenset({"category", "cluster", "input", "difficulty", "target", "expected"})


def per_release_columns(table: pd.DataFrame, metadata_columns: Sequence[str]) -> tuple[str, ...]:
    """The metadata columns whose value differs between the rows of one case (SPEC 3.2), in table order.

    Method: the values and the case ids as integer codes (pandas.factorize); a case has two values when the
    smallest and largest code among its rows differ. Missing values are a value of their own, so an answer
    present for one release and missing for the other is per release too. An answer usually differs on most
    cases, so every row of the first cases is looked at first: a column found to vary there costs no pass
    over every row (at 1,000,000 cases x 2 releases: 0.3 s for an output column, 1.3 s for a constant one).
    """
    varying = []
    case_codes = None
    columns = [c for c in metadata_columns if c not in CASE_ATTRIBUTES and c in table.columns]
    # Every row of the first cases (all their releases: files are often one release after the other).
    first = table[table["case_id"].isin(table["case_id"].head(_SAMPLE).unique())] if columns else table
    for column in columns:
        if first[["case_id", column]].drop_duplicates()["case_id"].duplicated().any():
            varying.append(column)
            continue
        if len(first) == len(table):
            continue
        if case_codes is None:
            case_codes = pd.factorize(table["case_id"])[0]
        if _differs_within_a_case(case_codes, pd.factorize(table[column], use_na_sentinel=False)[0]):
            varying.append(column)
    return tuple(varying)


_SAMPLE = 20_000  # the first cases (by row) looked at before a pass over every row


def _differs_within_a_case(case_codes: np.ndarray, value_codes: np.ndarray) -> bool:
    cases = int(case_codes.max()) + 1
    low = np.full(cases, np.iinfo(np.int64).max, dtype=np.int64)
    high = np.full(cases, -1, dtype=np.int64)
    np.minimum.at(low, case_codes, value_codes)
    np.maximum.at(high, case_codes, value_codes)
    return bool((low != high).any())
