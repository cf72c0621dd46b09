"""What the HTML note's case explorer lists beside a candidate's broken and fixed cases: the cases whose outcome did
not change (when the suite is small enough to list them all) and each listed case's latency and cost change.

Neither decides anything. The unchanged cases are listed only up to
:data:`releasegate.model.cases.UNCHANGED_LISTED_UP_TO` paired cases, so a large suite costs nothing here. The
latency and cost changes are the cost section's own per-case figures (analyze/costs.py ``per_case``: a case's
median latency over its runs, its mean cost) computed on the listed cases' rows alone, which are picked by their
integer case codes: at 1,000,000 cases with 57,000 listed that is 0.05 s, where matching the listed ids as text
took 0.57 s of a 2.4 s analysis. In the common layout (each release one block of rows in case order) the rows
are found by searching each block's codes for the listed ones, not by reading every row of the table.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from releasegate.analyze.case_view import error_column, errored_mask
from releasegate.analyze.costs import per_case
from releasegate.analyze.pairing import case_changes, release_rows
from releasegate.model import CaseChange, CaseDetails, ChangeByCase
from releasegate.model.cases import UNCHANGED_LISTED_UP_TO
from releasegate.policy import Policy
from releasegate.validate import ValidatedResults


def case_details(data: ValidatedResults, candidate: str, policy: Policy, paired: pd.DataFrame,
                 moved: np.ndarray, critical: tuple[str, ...]) -> CaseDetails:
    """The candidate's unchanged cases and the latency and cost change of every case the explorer lists.
    ``paired`` is the candidate's paired table (analyze/pairing.py), ``moved`` the mask of its broken and fixed
    cases (worsened and improved for scores), ``critical`` the critical categories (listed first)."""
    errored = errored_mask(paired, error_column(data.metadata_columns))
    still = ~moved & ~errored
    unchanged: Sequence[CaseChange] = ()
    listed = moved | errored
    if len(paired) <= UNCHANGED_LISTED_UP_TO:
        unchanged = case_changes(paired, still, data.metadata_columns, critical,
                                 data.per_release_columns)
        listed = listed | still
    latency, cost = _changes_by_case(data, candidate, policy, paired.index[listed])
    return CaseDetails(unchanged, int(still.sum()), latency, cost)


def _changes_by_case(data: ValidatedResults, candidate: str, policy: Policy,
                     ids: pd.Index) -> tuple[Mapping[str, float], Mapping[str, float]]:
    """Candidate minus baseline latency and cost of each case of ``ids`` that has them on both sides."""
    if not len(ids) or not (data.cost_columns or policy.prices):
        return {}, {}
    table = data.table
    columns = ["case_id", "release", *data.cost_columns]
    rows = _listed_rows(table, (data.baseline, candidate), ids)
    if rows is None:
        rows = np.flatnonzero(_listed_mask(table, (data.baseline, candidate), ids))
    # Only the columns per_case reads: taking every column of the table's rows cost more than the figures.
    subset = dataclasses.replace(data, table=table[columns].take(rows))
    base, _ = per_case(subset, data.baseline, policy)
    cand, _ = per_case(subset, candidate, policy)
    names, at_base, at_cand = _shared(base.index, cand.index)
    out: list[Mapping[str, float]] = []
    for column in ("latency", "cost"):
        if column not in base.columns or column not in cand.columns:
            out.append({})
            continue
        change = cand[column].to_numpy(np.float64)[at_cand] - base[column].to_numpy(np.float64)[at_base]
        known = ~np.isnan(change)
        # As columns, not a dict: only the HTML explorer looks a case up (model/cases.py ChangeByCase).
        out.append(ChangeByCase(names[known], change[known]))
    return out[0], out[1]


def _listed_rows(table: pd.DataFrame, releases: tuple[str, str], ids: pd.Index) -> np.ndarray | None:
    """The rows of both releases holding the cases ``ids``, in the table's order, found by searching each release's
    case codes (the common layout: each release one block of rows, its cases once each in case order, as a file
    written release after release in case order is); None for any other layout. Scanning the whole table for the
    listed cases read every row (2 x 10^7 at 10^7 cases, 0.5-0.9 CPU s) for the 5-6% of cases listed."""
    cases = table["case_id"]
    if not (isinstance(ids, pd.CategoricalIndex) and isinstance(cases.dtype, pd.CategoricalDtype)
            and ids.categories is cases.cat.categories):
        return None
    codes = cases.array.codes  # the categorical's own codes, read-only: no copy of them
    wanted = np.asarray(ids.codes)
    if wanted.size and (wanted.min() < 0 or not bool(np.all(wanted[1:] > wanted[:-1]))):
        wanted = np.unique(wanted[wanted >= 0])
    found = []
    for release in releases:
        chosen = release_rows(table, release)
        if not isinstance(chosen, slice):
            return None
        block = codes[chosen]
        if block.size and (block[0] < 0 or not bool(np.all(block[1:] > block[:-1]))):
            return None
        at = np.searchsorted(block, wanted)
        inside = int(np.count_nonzero(at < block.size))  # both ascending: the ids past the block's last case last
        at = at[:inside]
        found.append(chosen.start + at[block[at] == wanted[:inside]])
    return np.sort(np.concatenate(found))


def _listed_mask(table: pd.DataFrame, releases: tuple[str, str], ids: pd.Index) -> np.ndarray:
    """The mask of the rows of both releases holding the cases ``ids``: every row read (any layout)."""
    cases, release = table["case_id"], table["release"]
    if isinstance(release.dtype, pd.CategoricalDtype):
        codes = release.cat.codes.to_numpy()
        both = release.cat.categories.get_indexer(pd.Index(list(releases)))
        chosen = (codes == both[0]) | (codes == both[1])
    else:
        chosen = release.isin(list(releases)).to_numpy()
    if isinstance(ids, pd.CategoricalIndex) and isinstance(cases.dtype, pd.CategoricalDtype) \
            and ids.categories is cases.cat.categories:
        wanted = np.zeros(len(ids.categories), dtype=bool)
        wanted[np.asarray(ids.codes)] = True
        mask: np.ndarray = chosen & wanted[cases.cat.codes.to_numpy()]
        return mask
    # identity columns not as validate leaves them: match the ids as text
    mask = chosen & cases.astype(str).isin(ids.astype(str)).to_numpy()
    return mask


def _shared(base: pd.Index, cand: pd.Index) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The case ids on both sides (an array of str) and their positions in each. On the case-id codes when both
    are the validated categorical (aligning the labels would build a hash of every case id of the suite: 54 MiB
    at 10^6)."""
    if isinstance(base, pd.CategoricalIndex) and isinstance(cand, pd.CategoricalIndex) \
            and base.categories is cand.categories:
        base_codes, cand_codes = np.asarray(base.codes), np.asarray(cand.codes)
        if np.array_equal(base_codes, cand_codes) and bool(np.all(base_codes[1:] > base_codes[:-1])):
            # The same cases in the same (sorted) order, the common case: what the intersection gives, unsorted.
            codes, at_base = base_codes, np.arange(base_codes.size)
            at_cand = at_base
        else:
            codes, at_base, at_cand = np.intersect1d(base_codes, cand_codes, assume_unique=True, return_indices=True)
        return np.asarray(base.categories.take(codes).astype(str), dtype=object), at_base, at_cand
    labels, at_base, at_cand = np.intersect1d(np.asarray(base.astype(str), dtype=object),
                                              np.asarray(cand.astype(str), dtype=object), assume_unique=True,
                                              return_indices=True)
    return labels, at_base, at_cand
