"""Errored cases (SPEC 3.1, the error column): which cases of a comparison errored, on which side, with which
message, and the paired error-rate increase the ``max_error_rate_increase`` guardrail reads.

By default a case errored on either side leaves the comparison (validation's pairing counts it, the analysis's
join drops it), so a baseline error can never read as a candidate fix, nor a candidate error as a break. With
several runs a case errored in any run leaves it: its other runs' mean would be a different measurement. With
``--missing fail`` (``missing = "fail"``) errored rows stay in the comparison as failures instead; either way the
error-rate guardrail measures which cases errored on each side.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from releasegate.analyze.guardrail_level import rule_confidence
from releasegate.errors import InputError
from releasegate.model import ErroredCase, ErroredCases, InputExclusion
from releasegate.policy import Policy
from releasegate.stats.error_rates import error_rate_increase
from releasegate.validate import ValidatedResults

# The listing beside the verdict names this many cases; the count and the rate cover all of them.
MAX_LISTED = 200


def split_errored(data: ValidatedResults, policy: Policy) -> ValidatedResults:
    """The validated table without its errored rows (``errors``, indexed by their row in the table, then holds
    them from 0); with ``--missing fail`` (the explicit choice) they stay in the table as failures instead, and
    a baseline error then reads as a candidate fix, while ``errors`` still holds them (from 0) for the error-rate
    guardrail and the errors section (:func:`errored_cases`). A release whose every row errored has nothing to
    compare and is refused. Called once on validate's answer (by analyze and plan; plan reads the table only)."""
    if data.errors is None:
        return data
    table = data.table
    mask = np.zeros(len(table), dtype=bool)
    mask[data.errors.index.to_numpy()] = True
    errors = data.errors.reset_index(drop=True)
    if policy.missing == "fail":
        table = table.assign(outcome=np.where(mask, 0.0, table["outcome"].to_numpy(float)))
        if not mask.any():
            return dataclasses.replace(data, table=table, errors=None)
        notes = (*data.notes, f"{int(mask.sum())} errored row(s) counted as failures (--missing fail).")
        # Counted otherwise than given, as a row without an outcome is: named wherever the verdict is read.
        releases = tuple(sorted(set(data.errors["release"].astype(str))))
        excluded = (*data.excluded, InputExclusion("errors_failed", int(mask.sum()), examples=releases))
        return dataclasses.replace(data, table=table, errors=errors, notes=notes, excluded=excluded)
    kept = table.loc[~mask].reset_index(drop=True)
    for release in data.releases:
        if not (kept["release"] == release).any():
            mine = errors.loc[errors["release"] == release, "error"]
            what = ("nothing can be compared against it" if release == data.baseline else
                    "nothing of it can be compared, so it cannot be shown fit to ship")
            raise InputError(f"release {release!r} has no rows left to compare: every row errored ({len(mine):,} "
                             f"row(s), e.g. {mine.iloc[0]!r}): {what}; fix what errored and run it again, or give "
                             "--missing fail to count each error as a failure")
    return dataclasses.replace(data, table=kept, errors=errors)


def _messages(errors: pd.DataFrame, release: str) -> pd.Series:
    """The first error message of each errored case of one release, by case_id."""
    rows = errors[errors["release"] == release]
    return rows.groupby("case_id", sort=False)["error"].first()


def errored_cases(data: ValidatedResults, candidate: str, policy: Policy) -> ErroredCases | None:
    """The errored cases of one comparison over every case present on both sides; None without an error
    column (errors then cannot be measured). With ``--missing fail`` the errored cases stayed in the comparison
    as failures (``counted_as_failures``): every case is compared, and the error rates are measured the same."""
    if data.errors is None:
        return None
    base_msg, cand_msg = _messages(data.errors, data.baseline), _messages(data.errors, candidate)
    table = data.table

    def present(release: str, messages: pd.Series) -> pd.Index:
        ids = table.loc[table["release"] == release, "case_id"].astype(str).unique()
        present_ids: pd.Index = pd.Index(ids, dtype=object).union(pd.Index(messages.index, dtype=object))
        return present_ids

    cases = present(data.baseline, base_msg).intersection(present(candidate, cand_msg))
    pairing = data.pairing_of(candidate)
    if pairing is not None and len(pairing.changed):  # another question under the same id: not errored, changed
        cases = cases.difference(pd.Index(pairing.changed.astype(str), dtype=object))
    cases = cases.sort_values()
    in_base = cases.isin(base_msg.index)
    in_cand = cases.isin(cand_msg.index)
    rate = error_rate_increase(in_base.astype(float), in_cand.astype(float), rule_confidence(policy))
    either = in_base | in_cand
    ids = cases[either]
    b_err, c_err = in_base[either], in_cand[either]
    side = np.where(b_err & c_err, "both", np.where(b_err, "baseline", "candidate"))
    # Baseline-side errors first: they are the ones that would otherwise have read as candidate fixes.
    order = np.lexsort((np.asarray(ids.astype(str)), ~b_err))
    listed = []
    for k in order[:MAX_LISTED]:
        case = ids[k]
        listed.append(ErroredCase(str(case), str(side[k]), str(base_msg.get(case, "")), str(cand_msg.get(case, ""))))
    errored = int(either.sum())
    counted_as_failures = policy.missing == "fail"
    return ErroredCases(
        n_cases=int(cases.size),
        compared=int(cases.size) if counted_as_failures else int(cases.size) - errored,
        excluded=errored,
        baseline_only=int((in_base & ~in_cand).sum()),
        candidate_only=int((in_cand & ~in_base).sum()),
        both=int((in_base & in_cand).sum()),
        rate=rate,
        cases=tuple(listed),
        listed_cut=max(0, errored - MAX_LISTED),
        counted_as_failures=counted_as_failures,
    )
