"""The columns validation parses beside its checks of the keys, in a second thread (numpy and Arrow let go of the
GIL in their loops): the outcome (the largest array validation makes, 8 bytes a row), the category column coded
as sorted categories, and the cost columns parsed. At 10^7 cases x 2 releases they take about 0.2 s of one
core, about as long as the other takes to code the case ids and check the keys (validate's wall time went from
0.54 s to 0.33 s, medians of 4 runs; bench/stages.py).

The thread parses the rows as judged, from columns taken out of the table before it starts (it reads no table
the checks write to), and each of its results is waited for where validation parses that column when it runs
alone, so that an input with several problems is refused for the one checked first, as before
(docs/input-errors.md). The category and the costs are taken only while the rows are those the thread parsed
(``--missing drop`` and ``--allow-incomplete-runs`` change them); otherwise they are made again from the rows
kept, and what the thread made of the others is dropped, its refusals too.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from releasegate.kinds import OutcomeKind
from releasegate.policy import Policy
from releasegate.validate import keycodes
from releasegate.validate.outcomes import MAX_MAGNITUDE, outcome, outcome_column, parse_score

COST_COLUMNS = ("latency_ms", "input_tokens", "output_tokens", "cost")
NO_CATEGORY = "(none)"  # the category of a row that gives none, when other rows give one

# The cost columns that hold a value, and those parsed from text (to replace the column as read).
Costs = tuple[tuple[str, ...], dict[str, np.ndarray]]


@dataclass(frozen=True)
class Parsing:
    """What the thread makes, each when it is done: the outcome and its kind (outcomes.outcome), the category
    column coded (None when no row gives one) and the costs (:func:`parse_costs`)."""

    outcome: Future[tuple[pd.Series, OutcomeKind]]
    category: Future[pd.Series | None]
    costs: Future[Costs]

    def close(self) -> None:
        """Nothing left running once validation returns or refuses: what has not started is cancelled, what has
        is waited for, its result (or refusal) unread."""
        futures: tuple[Future[Any], ...] = (self.outcome, self.category, self.costs)
        for future in futures:
            future.cancel()
        wait(futures)


def start(table: pd.DataFrame, policy: Policy) -> Parsing:
    """The thread started on the table's rows as they are now; the thread ends with its three pieces of work."""
    wanted = (outcome_column(table.columns, policy), "release", "category", *COST_COLUMNS)
    columns = table[[c for c in dict.fromkeys(wanted) if c in table.columns]]  # a view of them: nothing copied
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="releasegate-validate")
    try:
        return Parsing(pool.submit(outcome, columns, policy),
                       pool.submit(coded_category, columns["category"] if "category" in columns else None),
                       pool.submit(parse_costs, {c: columns[c] for c in COST_COLUMNS if c in columns}))
    finally:
        pool.shutdown(wait=False)


def coded_category(column: pd.Series | None) -> pd.Series | None:
    """The category column with its blank rows named :data:`NO_CATEGORY`, as sorted categories
    (keycodes.as_categories); None when no row gives a category."""
    if column is None or not keycodes.any_given(column):
        return None
    frame = keycodes.fill_missing(column, NO_CATEGORY).to_frame("category")
    keycodes.as_categories(frame, ("category",))
    return frame["category"]


def parse_costs(columns: Mapping[str, pd.Series]) -> Costs:
    """The cost columns that hold a value, and those parsed from text to floats (a column read as numbers is
    checked and kept as read: the cost section takes its figures as floats, analyze/costs.per_case)."""
    cost_columns = tuple(c for c in COST_COLUMNS if c in columns and keycodes.any_given(columns[c]))
    replaced = {}
    for column in cost_columns:
        values = columns[column]
        if values.dtype.kind in "iu":
            continue  # whole numbers, none missing, all within every bound: nothing to parse or to copy
        # Costs and tokens beyond the range are left to the guardrails ("could not be measured"); a latency of
        # 1e308 ms is no latency, and would show as "inf" in every report.
        bound = MAX_MAGNITUDE if column == "latency_ms" else math.inf
        parsed = parse_score(values.rename(column), bound)
        if values.dtype != np.float64:  # numbers already are kept as they are (a column costs 8 B a row)
            replaced[column] = parsed.to_numpy()
    return cost_columns, replaced
