"""What the HTML note's case explorer lists beside a candidate's broken and fixed cases: the cases whose outcome
did not change (when the suite is small enough to list them all) and each listed case's latency and cost change.

Neither decides anything. The unchanged cases are listed only up to
:data:`releasegate.model.cases.UNCHANGED_LISTED_UP_TO` paired cases, so a large suite costs nothing here; the
latency and cost changes are computed from the rows of the listed cases alone (the cost section's own per-case
figures, analyze/costs.py: a case's median latency over its runs, its mean cost), so their cost follows the
listings, not the suite.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping

import numpy as np
import pandas as pd

from releasegate.analyze.case_view import error_column, errored_mask
from releasegate.analyze.costs import per_case
from releasegate.analyze.pairing import case_changes
from releasegate.model import CaseChange, CaseDetails
from releasegate.model.cases import UNCHANGED_LISTED_UP_TO
from releasegate.policy import Policy
from releasegate.validate import ValidatedResults


def case_details(data: ValidatedResults, candidate: str, policy: Policy, paired: pd.DataFrame, moved: np.ndarray,
                 listings: Iterable[tuple[CaseChange, ...]]) -> CaseDetails:
    """The candidate's unchanged cases and the latency and cost change of every case listed. ``paired`` is the
    candidate's paired table (analyze/pairing.py), ``moved`` the mask of its broken and fixed cases (worsened
    and improved for scores), ``listings`` its listings of cases (broken, fixed, errored, ...)."""
    errored = errored_mask(paired, error_column(data.metadata_columns))
    still = ~moved & ~errored
    unchanged: tuple[CaseChange, ...] = ()
    if len(paired) <= UNCHANGED_LISTED_UP_TO:
        unchanged = case_changes(paired, still, data.metadata_columns, tuple(policy.critical),
                                 data.per_release_columns)
    ids = {change.case_id for listing in (*listings, unchanged) for change in listing}
    latency, cost = _changes_by_case(data, candidate, policy, ids)
    return CaseDetails(unchanged, int(still.sum()), latency, cost)


def _changes_by_case(data: ValidatedResults, candidate: str, policy: Policy,
                     ids: set[str]) -> tuple[Mapping[str, float], Mapping[str, float]]:
    """Candidate minus baseline latency and cost of each case of ``ids`` that has them on both sides."""
    if not ids or not (data.cost_columns or policy.prices):
        return {}, {}
    table = data.table
    rows = table[table["release"].isin([data.baseline, candidate]).to_numpy()
                 & table["case_id"].isin(list(ids)).to_numpy()]
    if isinstance(rows["case_id"].dtype, pd.CategoricalDtype):
        # The per-case group-by would otherwise hold a group for every case id of the suite.
        rows = rows.assign(case_id=rows["case_id"].cat.remove_unused_categories())
    subset = dataclasses.replace(data, table=rows)
    base, _ = per_case(subset, data.baseline, policy)
    cand, _ = per_case(subset, candidate, policy)
    out: list[Mapping[str, float]] = []
    for column in ("latency", "cost"):
        if column not in base.columns or column not in cand.columns:
            out.append({})
            continue
        change = (cand[column] - base[column].reindex(cand.index)).dropna()
        out.append(dict(zip(change.index.astype(str), change.to_numpy(np.float64).tolist())))
    return out[0], out[1]
