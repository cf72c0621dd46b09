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

import pandas as pd

# Attributes of a case, never text of a release: the case is the same question whoever answers it.
CASE_ATTRIBUTES = frozenset({"category", "cluster", "input", "difficulty", "target", "expected"})


def per_release_columns(table: pd.DataFrame, metadata_columns: Sequence[str]) -> tuple[str, ...]:
    """The metadata columns whose value differs between the rows of one case (SPEC 3.2), in table order.

    Method: per column, the distinct (case_id, value) pairs; a case_id appearing twice has two values.
    Missing values count as a value of their own, so an answer present for one release and missing for the
    other is per release too.
    """
    varying = []
    for column in metadata_columns:
        if column in CASE_ATTRIBUTES or column not in table.columns:
            continue
        pairs = table[["case_id", column]].drop_duplicates()
        if pairs["case_id"].duplicated().any():
            varying.append(column)
    return tuple(varying)

