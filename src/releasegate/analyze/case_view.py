"""The cases beside the broken and fixed ones, for the report's case view: those that fail on both releases,
and those where a release errored (an "error" text, as the promptfoo and Inspect adapters write it).

Broken and fixed cases decide the verdict; these do not, but a reviewer reading answers wants them too: a case
both releases fail is a known gap the candidate did not close, and an errored case is one whose outcome says
nothing about the answer. Only the pass/fail plan with one run per case has "fails on both"; with scores or
runs the view holds the errored cases alone. Listings are capped (:data:`MAX_LISTED`, critical categories
first); the counts are whole. The record is :class:`releasegate.model.CaseView`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from releasegate.analyze.pairing import baseline_column, text_order_key
from releasegate.model import CaseChange, CaseView, ErroredCases
from releasegate.model.sections import CASE_VIEW_LISTED

ERROR_COLUMNS = ("error", "error_message")
MAX_LISTED = CASE_VIEW_LISTED


def error_column(metadata_columns: tuple[str, ...]) -> str | None:
    return next((c for c in ERROR_COLUMNS if c in metadata_columns), None)


def errored_mask(paired: pd.DataFrame, column: str | None) -> np.ndarray:
    """Cases whose error text is non-empty on the candidate or (when it differs by release) the baseline."""
    if column is None:
        return np.zeros(len(paired), dtype=bool)
    mask = np.zeros(len(paired), dtype=bool)
    for name in (column, baseline_column(column)):
        if name in paired.columns:
            text = paired[name].astype(object).where(paired[name].notna(), "").astype(str).str.strip()
            mask |= (text != "").to_numpy()
    return mask


def capped(paired: pd.DataFrame, mask: np.ndarray, critical: tuple[str, ...]) -> np.ndarray:
    """``mask`` cut to its first :data:`MAX_LISTED` cases, critical categories first, then by category and id
    (the order of the listing), so that only the listed cases become records."""
    idx = np.flatnonzero(mask)
    if idx.size <= MAX_LISTED:
        return mask
    id_key = text_order_key(paired.index[idx])
    ids = np.asarray(paired.index[idx].astype(str), dtype=str) if id_key is None else id_key
    if "category" in paired.columns:
        rows = paired["category"].iloc[idx]
        category_key = text_order_key(rows)
        if category_key is None:
            categories = rows.astype(str).to_numpy()
            order = np.lexsort((ids, categories, ~np.isin(categories, list(critical))))
        else:  # the validated categorical: its codes order it, and the critical test reads its few categories
            # (no text of every case: 1.5 million of them fail on both at 10^7 cases); code -1 is no category.
            is_critical = np.append(rows.cat.categories.isin(list(critical)), False)[category_key]
            order = np.lexsort((ids, category_key, ~is_critical))
    else:
        order = np.argsort(ids, kind="stable")
    kept = np.zeros(len(paired), dtype=bool)
    kept[idx[order[:MAX_LISTED]]] = True
    return kept


def case_view(paired: pd.DataFrame, both_fail: np.ndarray | None, metadata_columns: tuple[str, ...],
              listed: Callable[[np.ndarray], Sequence[CaseChange]], critical: tuple[str, ...]) -> CaseView:
    """The view of one candidate. ``both_fail`` is the mask of cases failing on both (None: not defined for
    this plan); ``listed(mask)`` turns a mask into the CaseChange records of the plan (analyze._changes)."""
    column = error_column(metadata_columns)
    errored = errored_mask(paired, column)
    fails = both_fail if both_fail is not None else np.zeros(len(paired), dtype=bool)
    return CaseView(
        both_fail=tuple(listed(capped(paired, fails, critical))) if fails.any() else (),
        both_fail_total=int(fails.sum()),
        errored=tuple(listed(capped(paired, errored, critical))) if errored.any() else (),
        errored_total=int(errored.sum()),
        error_column=column,
        both_fail_defined=both_fail is not None,
    )


def with_split_errors(view: CaseView, errors: ErroredCases | None, column: str = "error") -> CaseView:
    """The view with the cases that errored and so left the comparison (analyze.errors.split_errored): they
    are not in the paired table the view was built from, so without this its errored count read 0 while the
    errors section counted them (issue 30, D6). Counted whole; listed as far as the errors section lists them,
    baseline errors first, with each side's message. Errored cases counted as failures (``--missing fail``)
    stayed in the paired table, so the view holds them already."""
    if errors is None or errors.counted_as_failures or errors.excluded <= view.errored_total:
        return view
    listed = tuple(CaseChange(case.case_id, None, None, float("nan"), float("nan"), False,
                              metadata=((column, case.candidate_error),),
                              baseline_texts=((column, case.baseline_error),))
                   for case in errors.cases[:MAX_LISTED])
    return CaseView(both_fail=view.both_fail, both_fail_total=view.both_fail_total, errored=listed,
                    errored_total=errors.excluded, error_column=view.error_column or column,
                    both_fail_defined=view.both_fail_defined)
