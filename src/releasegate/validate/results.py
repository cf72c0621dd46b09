"""Validation of one tidy table (SPEC section 3.2): the checks, the releases judged and the plan's choices.

Every problem is an InputError with one line that names the problem and shows a few examples; nothing is
written when validation fails.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from releasegate.errors import BadValueError, InputError
from releasegate.kinds import NotJudgedReason, OutcomeKind, PairingBasis
from releasegate.model import InputExclusion
from releasegate.policy import Policy
from releasegate.validate import beside, keycodes, pairing, scan
from releasegate.validate.checks import MAX_LISTED, check_groups, check_keys
from releasegate.validate.content import (
    CONTENT_COLUMNS,
    Content,
    check_one_content_per_case,
    content_of,
    rekey_positions,
)
from releasegate.validate.pairing import Pairing
from releasegate.validate.outcomes import outcome_column
from releasegate.validate.outcomes import examples as _examples

# One note judges at most this many candidates (the summary table's rows): 3,000 releases of 20 cases took
# 35 s to judge each against the baseline, for a note nobody reads; --candidate names the ones to judge.
MAX_CANDIDATES = 200
# Said once in the notes when no content was there to pair cases by.
BASIS_NOTES = {"id": "Pairing by id only: the cases' content was not given.",
               "case_table": "Pairing by id: the cases' content came from the case table, the same for every release."}


@dataclass(frozen=True)
class ValidatedResults:
    """The checked table: one row per (release, case_id[, run]) with a float ``outcome`` column: 0/1 for
    pass/fail outcomes (OutcomeKind.BINARY), the score otherwise."""

    table: pd.DataFrame
    baseline: str
    candidates: tuple[str, ...]
    releases: tuple[str, ...]
    outcome_kind: OutcomeKind
    has_categories: bool
    has_clusters: bool
    has_runs: bool
    metadata_columns: tuple[str, ...]
    cost_columns: tuple[str, ...]
    notes: tuple[str, ...]
    # Metadata columns holding each release's own text (output, reason, error): per_release_columns.
    per_release_columns: tuple[str, ...] = ()
    outcome_column: str = "passed"  # the column the outcome came from (passed or score): the metric gated
    errors: pd.DataFrame | None = None  # errored rows (release, case_id, error), indexed by their row in table
    # The releases of the data left out of the verdicts, and why: (release, "baseline_rerun" or "not_a_candidate").
    not_judged: tuple[tuple[str, NotJudgedReason], ...] = ()
    # What each candidate is compared on, and what was set apart and why (validate/pairing.py), in candidate order.
    pairings: tuple[Pairing, ...] = ()
    # What loading and validation left out of every comparison, or counted otherwise than given (model/exclusions.py).
    excluded: tuple[InputExclusion, ...] = ()

    def pairing_of(self, candidate: str) -> Pairing | None:
        return next((p for p in self.pairings if p.candidate == candidate), None)


def _choose_releases(table: pd.DataFrame, policy: Policy) -> tuple[tuple[str, ...], str, tuple[str, ...]]:
    if keycodes.any_blank(table["release"]):
        raise BadValueError(f"{int(keycodes.is_blank(table['release']).sum())} row(s) have no release name")
    releases = keycodes.in_order_of_appearance(table["release"])
    listing = ", ".join(map(repr, releases[:MAX_LISTED]))
    if len(releases) > MAX_LISTED:
        listing += f" and {len(releases) - MAX_LISTED} more"
    if len(releases) < 2:
        raise InputError(f"need at least two releases to compare; found {len(releases)}: {listing}; if each file "
                         "holds one release (two files of the same model), name them: NAME=path, e.g. "
                         "r1=old.json r2=new.json")
    if policy.baseline is None:
        raise InputError(f"no baseline given: use --baseline NAME or baseline in the policy; releases: {listing}")
    if policy.baseline not in releases:
        raise InputError(f"unknown baseline {policy.baseline!r}; releases: {listing}")
    if policy.candidates:
        unknown = [c for c in policy.candidates if c not in releases]
        if unknown:
            raise InputError(f"unknown candidate {unknown[0]!r}; releases: {listing}")
        if policy.baseline in policy.candidates:
            raise InputError(f"{policy.baseline!r} is the baseline and cannot also be a candidate")
        candidates = tuple(dict.fromkeys(policy.candidates))
    else:
        candidates = tuple(r for r in releases if r not in (policy.baseline, policy.baseline_rerun))
    if not candidates:
        raise InputError(f"nothing to judge: besides the baseline {policy.baseline!r} the data holds only its rerun "
                         f"{policy.baseline_rerun!r}, which is never a candidate; add a candidate's results")
    if len(candidates) > MAX_CANDIDATES:
        raise InputError(f"{len(candidates)} candidates to judge against {policy.baseline!r}, more than one note "
                         f"holds ({MAX_CANDIDATES}); name the ones to judge with --candidate NAME (or candidates "
                         "in the policy)")
    return releases, policy.baseline, candidates


def validate(table: pd.DataFrame, policy: Policy, metadata_columns: tuple[str, ...] = (),
             case_columns: tuple[str, ...] = ()) -> ValidatedResults:
    """Check the loaded table and return it with a float ``outcome`` column, the plan's choices and each
    candidate's pairing (validate/pairing.py). ``case_columns`` are the columns a case table (--cases) joined:
    content there is the same for every release by construction, so it pairs nothing. In order: the releases
    judged, the keys, the outcomes (and the rows without one), the pairing, the category and cluster columns,
    the cost columns."""
    # Shallow: only new or replaced columns are written below; a deep copy of a million rows costs more than all.
    table = table.copy(deep=False)
    # Factorized once, as categoricals: every check below counts integer codes instead of hashing strings,
    # and so do the analysis's group-bys, joins and sorts.
    keycodes.as_categories(table, ("release",))
    judged = _judged_releases(table, policy)
    # The outcome, category and cost columns are parsed in a second thread beside the checks of the keys
    # (validate/beside.py), on these rows; each is waited for where it was parsed before.
    parsing = beside.start(judged[0], policy)
    try:
        return _validated(*judged, parsing, policy, metadata_columns, case_columns)
    finally:
        parsing.close()


def _validated(table: pd.DataFrame, baseline: str, candidates: tuple[str, ...], keep: list[str],
               not_judged: tuple[tuple[str, NotJudgedReason], ...], parsing: beside.Parsing, policy: Policy,
               metadata_columns: tuple[str, ...], case_columns: tuple[str, ...]) -> ValidatedResults:
    """:func:`validate` from the releases judged on, with the columns ``parsing`` parses for it."""
    content = content_of(table, case_columns)
    # Ids that are dataset positions are the baseline's ids of the same content from here on.
    table, notes = rekey_positions(table, baseline, content)
    # Releases written one after the other, each listing the same cases alike, are factorized without hashing.
    keycodes.as_categories(table, ("case_id",), keycodes.release_blocks(keycodes.codes_of(table["release"])))
    has_runs = _has_runs(table)
    codes = {k: keycodes.encode(table[k]) for k in ("release", "case_id", *(["run"] if has_runs else []))}
    check_keys(table, has_runs, codes)
    if content is not None and has_runs:
        check_one_content_per_case(table, content, keycodes.combined(codes["release"], codes["case_id"]))
    # A non-empty error marks an errored row: a third state, neither pass nor fail, for analyze.errors.
    errored = table["error"].astype("string").fillna("").str.strip() != "" if "error" in table.columns else None
    outcome_values, kind = parsing.outcome.result()  # the outcome's own refusal, if any, is raised here
    table["outcome"] = outcome_values
    parsed_rows = table  # the rows the thread parsed, while the table holds them
    # Runs counted on the rows as read, before --missing drop (the user's choice, said in the notes) drops any.
    runs = pairing.run_counts(codes, table, [baseline, *candidates]) if has_runs else None
    excluded: tuple[InputExclusion, ...] = ()
    as_read = None
    missing = _rows_without_outcome(table["outcome"], errored)
    if missing is not None:
        releases = tuple(sorted(set(table.loc[missing, "release"].astype(str))))
        table, kept, missing_note = _without_outcome(table, missing, policy)
        notes.append(missing_note)
        excluded = (InputExclusion("rows_failed" if kept is None else "rows_dropped", int(missing.sum()),
                                   examples=releases),)
        if kept is not None:
            # Which cases each release held as read: a case --missing drop took from one side is named so.
            as_read = pairing.cases_present(codes, table, [baseline, *candidates])
            codes = {k: c.take(kept) for k, c in codes.items()}
            content = content.take(kept) if content is not None else None
            # Only dropping rows can leave a release none: each release judged was found in the rows.
            for release in keep:
                if not (table["release"] == release).any():
                    raise InputError(f"release {release!r} has no rows left to compare")
    # Errored cases leave the comparison unless --missing fail counts them as failures (analyze/errors.py).
    leaving = None if errored is None or policy.missing == "fail" else errored.reindex(table.index).to_numpy(bool)
    basis: PairingBasis = "case_table" if set(CONTENT_COLUMNS) & set(case_columns) else "id"
    pairings, table, codes, pairing_notes = _paired(table, baseline, candidates, policy, codes, content, leaving,
                                                    runs, basis, as_read)
    notes += pairing_notes
    changed = pd.Index([case for p in pairings for case in p.changed])
    # Rows dropped (--missing drop) or runs filled in (--allow-incomplete-runs) make the table anew.
    same_rows = table is parsed_rows
    has_categories, has_clusters = check_groups(table, policy, codes["case_id"], changed,
                                                parsing.category.result() if same_rows else None)
    pairing.check_stated_attributes(table, codes["case_id"], changed)
    runs_per_case = 1
    if has_runs:
        runs_per_case = keycodes.column_max(keycodes.counts(keycodes.combined(codes["release"], codes["case_id"])))
    cost_columns, replaced = (parsing.costs.result() if same_rows else
                              beside.parse_costs({c: table[c] for c in beside.COST_COLUMNS if c in table.columns}))
    for column, values in replaced.items():
        table[column] = values
    errored = None if errored is None else errored.reindex(table.index, fill_value=False).to_numpy(bool)
    source = outcome_column(table.columns, policy)
    # The outcome column as read leaves the table: every later stage reads the float outcome (8 bytes a row).
    table = table.reset_index(drop=True)
    del table[source]  # deleted, not dropped: drop copied the other columns of its block
    keycodes.as_categories(table, ("category", "cluster"))
    metadata_columns = tuple(c for c in metadata_columns if c in table.columns)
    return ValidatedResults(
        table=table,
        baseline=baseline,
        candidates=candidates,
        releases=tuple(keep),
        outcome_kind=kind,
        has_categories=has_categories,
        has_clusters=has_clusters,
        has_runs=runs_per_case > 1,
        metadata_columns=metadata_columns,
        cost_columns=cost_columns,
        notes=tuple(notes),
        errors=None if errored is None else table.loc[errored, ["release", "case_id", "error"]].astype(str),
        outcome_column=source,
        per_release_columns=per_release_columns(table, metadata_columns),
        not_judged=not_judged,
        pairings=pairings,
        excluded=excluded,
    )


def _judged_releases(table: pd.DataFrame, policy: Policy) -> tuple[
        pd.DataFrame, str, tuple[str, ...], list[str], tuple[tuple[str, NotJudgedReason], ...]]:
    """The releases judged: the table without the releases left out, the baseline, the candidates, the releases
    kept (with the baseline's rerun) and those not judged, with why."""
    releases, baseline, candidates = _choose_releases(table, policy)
    keep = [baseline, *candidates, *(r for r in releases if r == policy.baseline_rerun != baseline)]
    not_judged: tuple[tuple[str, NotJudgedReason], ...] = tuple(
        (str(r), "baseline_rerun" if r == policy.baseline_rerun else "not_a_candidate")
        for r in releases if r != baseline and r not in candidates)
    if len(keep) < len(releases):
        table = table[table["release"].isin(keep)].copy(deep=False)
        keycodes.drop_unused_categories(table, ("release",))
    return table, baseline, candidates, keep, not_judged


def _rows_without_outcome(outcome: pd.Series, errored: pd.Series | None) -> pd.Series | None:
    """The rows with no outcome that are not errored rows, or None when there are none. Parsed outcomes are
    floats: a column without a NaN, the common case, is looked at a slice at a time, with no mask of every row."""
    values = outcome.to_numpy()
    if values.dtype.kind == "f" and not scan.has_nan(values):
        return None
    missing = outcome.isna() if errored is None else outcome.isna() & ~errored
    return missing if missing.any() else None


def _has_runs(table: pd.DataFrame) -> bool:
    """Whether the rows name their runs; a run column set on some rows only is refused."""
    has_runs = bool("run" in table.columns and table["run"].notna().any())
    if has_runs and table["run"].isna().any():
        lacking = table["run"].isna()
        raise BadValueError(f"{int(lacking.sum())} row(s) have no run although the run column is set "
                            f"({_per_release(table, lacking)}; runs in {_releases_of(table, ~lacking)}): give every "
                            "row its run (a release run once: run 1)")
    return has_runs


def _per_release(table: pd.DataFrame, rows: pd.Series) -> str:
    """How many of ``rows`` each release holds, releases with none left out: "3 in 'r1', 1 in 'r2'"."""
    counts = table.loc[rows, "release"].astype(str).value_counts(sort=False)
    return ", ".join(f"{int(n)} in {name!r}" for name, n in sorted(counts.items()) if n)


def _releases_of(table: pd.DataFrame, rows: pd.Series) -> str:
    return ", ".join(repr(r) for r in sorted(set(table.loc[rows, "release"].astype(str))))


def _without_outcome(table: pd.DataFrame, missing: pd.Series,
                     policy: Policy) -> tuple[pd.DataFrame, np.ndarray | None, str]:
    """The rows without an outcome as ``--missing`` says (refused, counted as failures or dropped): the table,
    the mask of the rows kept when some were dropped, and the note that says what was done."""
    ids = table.loc[missing, "case_id"].unique()
    if policy.missing == "refuse":
        raise BadValueError(f"{int(missing.sum())} row(s) have no outcome ({_per_release(table, missing)}; e.g. "
                            f"case {_examples(ids)}); use --missing fail to count them as failures or --missing drop "
                            "to drop them")
    per_release = _per_release(table, missing)
    if policy.missing == "fail":
        table.loc[missing, "outcome"] = 0.0
        return (table, None,
                f"{int(missing.sum())} row(s) without an outcome counted as failures ({per_release}; --missing fail).")
    return (table[~missing], ~missing.to_numpy(),
            f"{int(missing.sum())} row(s) without an outcome dropped ({per_release}; --missing drop).")


def _paired(table: pd.DataFrame, baseline: str, candidates: tuple[str, ...], policy: Policy,
            codes: dict[str, keycodes.Codes], content: Content | None, leaving: np.ndarray | None,
            runs: dict[str, np.ndarray] | None, basis: PairingBasis, as_read: dict[str, np.ndarray] | None = None
            ) -> tuple[tuple[Pairing, ...], pd.DataFrame, dict[str, keycodes.Codes], list[str]]:
    """Each candidate's pairing (validate/pairing.py), the table with the missing runs filled in when the policy
    allows it (and its codes then made anew), and the notes of both; with no content, the note of what the cases
    were paired by. ``as_read``: each release's cases before --missing drop dropped rows."""
    pairings, fills, notes = pairing.pair_releases(table, baseline, candidates, policy, codes, content, leaving,
                                                   runs, basis, as_read)
    if policy.baseline_rerun is not None and policy.baseline_rerun != baseline \
            and policy.baseline_rerun in table["release"].cat.categories:
        pairing.check_rerun(table, baseline, policy.baseline_rerun, codes, content)
    if fills:
        assert runs is not None
        table, filled = pairing.fill_runs(table, fills, runs)
        notes += filled
        codes = {k: keycodes.encode(table[k]) for k in codes}
    if content is None:
        notes.append(BASIS_NOTES[basis])
    return pairings, table, codes, notes


# Text per release (issue 17): which metadata columns hold each release's own text (an answer, a grader's
# reason, an error) rather than an attribute of the case, shown side by side in the reports.
# Attributes of a case, never text of a release: the case is the same question whoever answers it.
CASE_ATTRIBUTES = frozenset({"category", "cluster", "input", "difficulty", "target", "expected"})


def per_release_columns(table: pd.DataFrame, metadata_columns: Sequence[str]) -> tuple[str, ...]:
    """The metadata columns whose value differs between the rows of one case (SPEC 3.2), in table order.

    Method: the values and the case ids as integer codes (pandas.factorize); a case has two values when its
    rows' codes differ (keycodes.varies_within). Missing values are a value of their own, so an answer
    present for one release and missing for the other is per release too. An answer usually differs on most
    cases, so every row of the first cases is looked at first: a column found to vary there costs no pass
    over every row (at 1,000,000 cases x 2 releases: 0.3 s for an output column, 1.3 s for a constant one).
    """
    varying = []
    cases = None
    columns = [c for c in metadata_columns if c not in CASE_ATTRIBUTES and c in table.columns]
    # Every row of the first cases (all their releases: files are often one release after the other).
    first = table[table["case_id"].isin(table["case_id"].head(_SAMPLE).unique())] if columns else table
    for column in columns:
        if first[["case_id", column]].drop_duplicates()["case_id"].duplicated().any():
            varying.append(column)
            continue
        if len(first) == len(table):
            continue
        cases = keycodes.encode(table["case_id"]) if cases is None else cases
        values, uniques = pd.factorize(table[column], use_na_sentinel=False)
        if keycodes.varies_within(cases, keycodes.Codes(values.astype(np.int64, copy=False), len(uniques))):
            varying.append(column)
    return tuple(varying)


_SAMPLE = 20_000  # the first cases (by row) looked at before a pass over every row
