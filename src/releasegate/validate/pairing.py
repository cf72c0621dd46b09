"""What is compared, decided once (SPEC 3.2, pairing; docs/inputs.md): for each candidate, the baseline's cases
it is compared on and why every other case is set apart, as one frozen :class:`Pairing` that the analysis reads
(analyze/pairing.pair) and every format names (wording/exclusions.py).

A case is compared when it is on both sides, with the same content where the results carry it
(validate/content.py), errored on neither side (unless ``missing = "fail"`` counts errors as failures), and with
every run other cases have (the run axis). Each departure is refused in one line, or set apart under its reason
when the policy allows it: ``allow_missing`` (a case on one side only), ``allow_changed`` (content changed: another
question under the same id), ``allow_incomplete_runs`` (each missing run counted as a failure, never dropped:
the runs a crashed or filtered job loses are not a random sample of them). Errored cases leave the comparison as
before (analyze/errors.py lists them); here they are counted with the rest.

Everything is counted on validation's integer codes (validate/keycodes.py): a release's cases are one bincount of
its rows' case codes, so a million cases cost milliseconds when nothing is set apart.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import numpy as np
import pandas as pd

from releasegate.errors import IncompleteRunsError, InputError, PairingError
from releasegate.kinds import ExclusionReason, PairingBasis
from releasegate.model import Excluded, Exclusions
from releasegate.policy import Policy
from releasegate.text import near_misses
from releasegate.validate import keycodes
from releasegate.validate.content import Content, compare_content, text_of_row
from releasegate.validate.outcomes import examples

LISTED = 200  # case ids kept per reason; the counts are whole


@dataclass(frozen=True)
class Pairing:
    """One candidate's comparison with the baseline: its :class:`Exclusions` (counts and first ids by reason),
    and every id of a case on both sides that leaves the comparison (``left_out``: changed content or errored;
    ``changed`` the first kind), which the analysis drops before its join."""

    candidate: str
    exclusions: Exclusions
    left_out: pd.Index
    changed: pd.Index


@dataclass(frozen=True)
class _Release:
    rows: slice | np.ndarray  # which rows are this release's
    present: np.ndarray  # by case code: has a row
    errored: np.ndarray | None  # by case code: has an errored row that leaves the comparison
    short: np.ndarray | None  # by case code: fewer runs than another case of the releases judged
    runs: np.ndarray | None  # by case code: its runs as read (before rows without an outcome were dropped)
    content_row: np.ndarray | None  # by case code: a row of this release carrying the case's content (-1 none)


def run_counts(codes: dict[str, keycodes.Codes], table: pd.DataFrame, releases: list[str]) -> dict[str, np.ndarray]:
    """Per release, the runs of each case (its rows, by case code), counted on the rows as read: rows without an
    outcome that ``--missing drop`` drops are the user's choice, said in the notes, not missing runs."""
    out = {}
    for release in releases:
        rows = _rows_of(codes, table, release)
        out[release] = np.bincount(codes["case_id"].codes[rows], minlength=codes["case_id"].n)
    return out


def _rows_of(codes: dict[str, keycodes.Codes], table: pd.DataFrame, release: str) -> slice | np.ndarray:
    """Which rows are ``release``'s, on the codes: their slice when each release is one run of rows (releases
    written one after the other: no mask of every row, 20 MB at 10^7 x 2), else their mask."""
    code = cast(int, table["release"].cat.categories.get_loc(release))  # the categories are unique
    runs = keycodes.code_runs(codes["release"].codes, codes["release"].n)
    return runs.get(code, slice(0, 0)) if runs is not None else codes["release"].codes == code


def _and(rows: slice | np.ndarray, mask: np.ndarray) -> np.ndarray:
    """``rows & mask`` for rows given as a slice or as a mask."""
    if isinstance(rows, np.ndarray):
        return rows & mask
    out = np.zeros(mask.shape, dtype=bool)
    out[rows] = mask[rows]
    return out


def cases_present(codes: dict[str, keycodes.Codes], table: pd.DataFrame, releases: list[str]) -> dict[str, np.ndarray]:
    """Per release, which cases (by case code) have a row."""
    return {release: keycodes.present(codes["case_id"], _rows_of(codes, table, release)) for release in releases}


def expected_runs(runs: dict[str, np.ndarray]) -> int:
    """The runs every case must have: the most any case has in any release judged (the run axis)."""
    return max(keycodes.column_max(counts) for counts in runs.values())


def _release(name: str, table: pd.DataFrame, codes: dict[str, keycodes.Codes], content: Content | None,
             errored: np.ndarray | None, runs: dict[str, np.ndarray] | None) -> _Release:
    cases = codes["case_id"]
    rows = _rows_of(codes, table, name)
    present = keycodes.present(cases, rows)
    wrong = keycodes.present(cases, _and(rows, errored)) if errored is not None else None
    short = None
    counts = runs.get(name) if runs else None
    # A release run once (no repeat asked: every harness's default) is compared as it is, its one outcome per case
    # against the other's mean over runs; a release with repeats must hold every run the run axis shows.
    if counts is not None and keycodes.column_max(counts) > 1:
        assert runs is not None
        short = (counts > 0) & (counts < expected_runs(runs)) & present
    content_row = None
    if content is not None:
        at = np.flatnonzero(_and(rows, content.given))
        content_row = np.full(cases.n, -1, dtype=np.int64)
        content_row[cases.codes[at]] = at
    return _Release(rows, present, wrong, short, counts, content_row)


def _without(mask: np.ndarray, other: np.ndarray) -> np.ndarray:
    """``mask & ~other`` in one pass and one array (for truth values, a > b): the cases of a million-case release
    are masks of 1 MB each, and every pairing makes several."""
    return np.greater(mask, other)


def _excluded(reason: ExclusionReason, mask: np.ndarray, ids: pd.Index) -> Excluded | None:
    count = int(np.count_nonzero(mask))
    if not count:
        return None
    return Excluded(reason, count, tuple(map(str, ids[np.flatnonzero(mask)[:LISTED]])))


def _check_case_sets(base: _Release, cand: _Release, only_base: np.ndarray, only_cand: np.ndarray, baseline: str,
                     candidate: str, ids: pd.Index, allow: bool, as_read: dict[str, np.ndarray] | None = None) -> str:
    """The note when the case sets differ (``only_base``, ``only_cand``: the cases of one side only) and the policy
    allows it ("" when they agree); refused otherwise. ``as_read``: each release's cases before --missing drop
    dropped rows, so that a case it took from one side is said to be that, not a case the other side never had."""
    if not cand.present.any():
        raise InputError(f"release {candidate!r} has no rows")
    if not only_base.any() and not only_cand.any():
        return ""
    sides, dropped_any = [], False
    for mask, name, other in ((only_base, baseline, candidate), (only_cand, candidate, baseline)):
        if mask.any():
            dropped = int((mask & as_read[other]).sum()) if as_read is not None and other in as_read else 0
            why = (f"; {dropped} of them had rows in {other!r} without an outcome, which --missing drop dropped"
                   if dropped else "")
            dropped_any |= dropped > 0
            sides.append(f"{int(mask.sum())} case(s) only in {name!r} (e.g. {examples(ids[np.flatnonzero(mask)])}"
                         f"{why})")
    detail = ", ".join(sides)
    if not allow:
        near = _near_misses(ids[np.flatnonzero(only_base)], ids[np.flatnonzero(only_cand)])
        fail = ", or --missing fail to count the rows without an outcome as failures" if dropped_any else ""
        raise PairingError(f"case sets differ between {baseline!r} and {candidate!r}: {detail}{near}; "
                           f"use --allow-missing to compare the shared cases only{fail}")
    shared = int((base.present & cand.present).sum())
    if shared == 0:
        near = _near_misses(ids[np.flatnonzero(only_base)], ids[np.flatnonzero(only_cand)])
        raise PairingError(f"{baseline!r} and {candidate!r} share no case_id; nothing to compare{near}")
    return f"{candidate}: compared on {shared} shared cases; excluded {detail}."


def _near_misses(only_base: pd.Index, only_cand: pd.Index) -> str:
    """The clause naming ids on the two sides that differ only in Unicode form, letter case or leading zeros
    ("" when none do), one pair shown escaped (text.near_misses)."""
    found = near_misses([str(i) for i in only_base], [str(i) for i in only_cand])
    if found is None:
        return ""
    count, words, first, second = found
    return (f"; {count} of them differ from an id of the other side {words}, e.g. {first} and {second}: write the "
            "ids alike")


def _changed(table: pd.DataFrame, content: Content, base: _Release, cand: _Release, shared: np.ndarray
             ) -> tuple[np.ndarray, np.ndarray]:
    """By case code: shared cases whose content differs on the two sides, read as a reader would
    (content.compare_content: raw values, then the normalised fingerprint where they differ); and those whose
    contents cannot be compared (a harness's kind a tidy file's columns cannot say), paired by id only."""
    assert base.content_row is not None and cand.content_row is not None
    both = np.flatnonzero(shared & (base.content_row >= 0) & (cand.content_row >= 0))
    changed = np.zeros_like(shared)
    uncompared = np.zeros_like(shared)
    same, comparable = compare_content(table, content, base.content_row[both], cand.content_row[both])
    changed[both] = comparable & ~same
    uncompared[both] = ~comparable
    return changed, uncompared


def _refuse_changed(table: pd.DataFrame, content: Content, base: _Release, cand: _Release, changed: np.ndarray,
                    ids: pd.Index, baseline: str, candidate: str) -> None:
    assert base.content_row is not None and cand.content_row is not None
    first = np.flatnonzero(changed)[:2]
    texts = [(text_of_row(table, int(base.content_row[k]), content),
              text_of_row(table, int(cand.content_row[k]), content)) for k in first]
    shown = "; ".join(f"{str(ids[k])!r}: {old!r} in {baseline!r}, {new!r} in {candidate!r}"
                      for k, (old, new) in zip(first, texts))
    # A harness's fingerprint holds more than the text shown (promptfoo's vars and assertions, Inspect's target and
    # choices): say so, or the line shows the same words twice and seems to contradict itself.
    same_text = any(old == new for old, new in texts)
    beyond = (" (where the text shown is the same, the rest of the case differs: its target, choices, variables or "
              "assertions)") if same_text else ""
    raise PairingError(f"{int(changed.sum())} case(s) have other content in {candidate!r} than in {baseline!r} under "
                       f"the same id (e.g. {shown}){beyond}: they are other questions; use --allow-changed to leave "
                       "them out of the comparison")


def _refuse_short(side: _Release, name: str, incomplete: np.ndarray, ids: pd.Index, expected: int,
                  baseline: bool = False) -> None:
    """Cases of ``name`` with fewer runs than the run axis has, refused in one line. The baseline's are refused even
    under --allow-incomplete-runs (``baseline``): counted as failures they would be gains of the candidate."""
    assert side.runs is not None and side.short is not None
    cases = np.flatnonzero(incomplete & side.short)
    k = int(cases[0])
    missing = int((expected - side.runs[cases]).sum())
    every = (" (every case of it: a release repeated fewer times than another is refused too, since a design "
             "cannot be told from a crash; give the releases the same runs)") if cases.size == int(side.present.sum()) else ""
    remedy = ("a missing run would be left out unseen; rerun them, or use --allow-incomplete-runs to count each "
              "missing run as a failure")
    if baseline:
        remedy = ("the baseline's missing runs cannot be counted as failures (--allow-incomplete-runs counts a "
                  "candidate's), since they would read as the candidate's gains; rerun them")
    raise IncompleteRunsError(f"{cases.size} case(s) of {name!r} have fewer runs than the {expected} other cases "
                              f"have{every} (e.g. {str(ids[k])!r}: {int(side.runs[k])} of {expected}; {missing} "
                              f"run(s) missing in all): {remedy}")


def pair_releases(table: pd.DataFrame, baseline: str, candidates: tuple[str, ...], policy: Policy,
                  codes: dict[str, keycodes.Codes], content: Content | None, errored: np.ndarray | None,
                  runs: dict[str, np.ndarray] | None, basis: PairingBasis,
                  as_read: dict[str, np.ndarray] | None = None
                  ) -> tuple[tuple[Pairing, ...], dict[str, np.ndarray], list[str]]:
    """Each candidate's :class:`Pairing`; the cases whose missing runs are to be counted as failures, by release
    (case-code masks, for :func:`fill_runs`); and the notes. ``errored`` marks the errored rows that leave the
    comparison (None when errors count as failures or none errored); ``runs`` are :func:`run_counts`' (None
    without a run axis); ``basis`` is how cases are matched when ``content`` is None; ``as_read`` each release's
    cases before --missing drop dropped rows (None when it dropped none)."""
    ids = table["case_id"].cat.categories
    releases = {r: _release(r, table, codes, content, errored, runs) for r in (baseline, *candidates)}
    base = releases[baseline]
    pairings, notes = [], []
    fills: dict[str, np.ndarray] = {}
    for candidate in candidates:
        cand = releases[candidate]
        only_base, only_cand = _without(base.present, cand.present), _without(cand.present, base.present)
        note = _check_case_sets(base, cand, only_base, only_cand, baseline, candidate, ids, policy.allow_missing,
                                as_read)
        notes += [note] if note else []
        shared = base.present & cand.present
        changed = np.zeros(shared.shape, dtype=bool)
        by_id = 0
        uncompared = np.zeros(shared.shape, dtype=bool)
        if content is not None:
            changed, uncompared = _changed(table, content, base, cand, shared)
            if changed.any() and not policy.allow_changed:
                _refuse_changed(table, content, base, cand, changed, ids, baseline, candidate)
            if changed.any():
                notes.append(f"{candidate}: {int(changed.sum())} case(s) left out: their content differs from "
                             f"{baseline}'s under the same id (e.g. {examples(ids[np.flatnonzero(changed)])}).")
        kept = _without(shared, changed)
        wrong = np.zeros(shared.shape, dtype=bool)
        for side in (base, cand):
            if side.errored is not None:
                wrong |= kept & side.errored
        np.greater(kept, wrong, out=kept)  # kept &= ~wrong
        # A release every row of which errored is refused with its error texts later (analyze/errors.py).
        all_errored = any(side.errored is not None and not (side.present & ~side.errored).any() for side in (base, cand))
        if shared.any() and not kept.any() and not all_errored:
            _refuse_nothing_kept(baseline, candidate, int(changed.sum()), int(wrong.sum()))
        incomplete = np.zeros(shared.shape, dtype=bool)
        for side, name in ((base, baseline), (cand, candidate)):
            if side.short is not None and (kept & side.short).any():
                # Counted as failures, the baseline's missing runs would read as the candidate's gains: refused
                # even with the flag, which counts only a candidate's missing runs against it.
                if not policy.allow_incomplete_runs or side is base:
                    assert runs is not None
                    _refuse_short(side, name, kept, ids, expected_runs(runs), baseline=side is base)
                incomplete |= kept & side.short
                fills[name] = fills.get(name, np.zeros_like(shared)) | (kept & side.short)
        if content is not None:
            assert base.content_row is not None and cand.content_row is not None
            by_id = int((kept & ((base.content_row < 0) | (cand.content_row < 0) | uncompared)).sum())
            if by_id:
                notes.append(f"{candidate}: {by_id} of the cases compared paired by id only: their content was not "
                             "given on both sides.")
        found = (_excluded("only_baseline", only_base, ids), _excluded("only_candidate", only_cand, ids),
                 _excluded("content_changed", changed, ids), _excluded("errored", wrong, ids),
                 _excluded("runs_incomplete", incomplete, ids))
        exclusions = Exclusions(int(np.count_nonzero(base.present)), tuple(e for e in found if e is not None),
                                "content" if content is not None else basis, by_id)
        pairings.append(Pairing(candidate, exclusions, pd.Index(ids[np.flatnonzero(changed | wrong)]),
                                pd.Index(ids[np.flatnonzero(changed)])))
    return tuple(pairings), fills, notes


def check_rerun(table: pd.DataFrame, baseline: str, rerun: str, codes: dict[str, keycodes.Codes],
                content: Content | None) -> None:
    """The baseline rerun asks what the baseline asked: a shared case whose content differs is another question, and
    its churn would be no churn. Refused whatever ``allow_changed`` says, as a rerun lacking a case is
    (analyze/churn.py): the rerun must run the same cases."""
    if content is None:
        return
    base, again = (_release(r, table, codes, content, None, None) for r in (baseline, rerun))
    changed, _ = _changed(table, content, base, again, base.present & again.present)
    if not changed.any():
        return
    assert base.content_row is not None and again.content_row is not None
    ids = table["case_id"].cat.categories
    k = int(np.flatnonzero(changed)[0])
    old = text_of_row(table, int(base.content_row[k]), content)
    new = text_of_row(table, int(again.content_row[k]), content)
    raise PairingError(f"baseline_rerun {rerun!r} has other content than {baseline!r} under the same id for "
                       f"{int(changed.sum())} case(s) (e.g. {str(ids[k])!r}: {old!r} in {baseline!r}, {new!r} in "
                       f"{rerun!r}): its churn would compare other questions; the rerun must run the same cases")


def _refuse_nothing_kept(baseline: str, candidate: str, changed: int, errored: int) -> None:
    """Every shared case set apart (content changed, errored): no figure could be about the two releases."""
    why = " and ".join(f"{n} {what}" for n, what in ((changed, "whose content changed"),
                                                    (errored, "errored on either side")) if n)
    raise PairingError(f"{baseline!r} and {candidate!r} share cases, but every one is left out ({why}): nothing "
                       "to compare")


def fill_runs(table: pd.DataFrame, fills: dict[str, np.ndarray], runs: dict[str, np.ndarray]
              ) -> tuple[pd.DataFrame, list[str]]:
    """The table with a failing row (outcome 0) for each run a case lacks, taking the run labels of its own release
    first (a candidate seeded 4-6 lacks its run 6, not the baseline's run 1), then those the other releases judged
    hold (``runs``' releases), in their order; the case's category and cluster are its own, everything else is
    empty."""
    ids = table["case_id"].cat.categories
    frames, notes = [], []
    expected = expected_runs(runs)
    judged = table.loc[table["release"].isin(list(runs)), "run"]
    for release, mask in fills.items():
        counts = runs[release]
        mine = table["release"] == release
        labels = pd.unique(pd.concat([table.loc[mine, "run"], judged]))
        held = table.loc[mine, ["case_id", "run"]].astype({"case_id": str})
        need = pd.Index(ids[np.flatnonzero(mask)]).astype(str)
        grid = pd.MultiIndex.from_product([need, labels], names=["case_id", "run"]).to_frame(index=False)
        grid = grid.merge(held.drop_duplicates(), how="left", on=["case_id", "run"], indicator=True)
        grid = grid[grid["_merge"] == "left_only"].drop(columns="_merge")
        deficit = pd.Series(expected - counts[np.flatnonzero(mask)], index=need)
        grid = grid[grid.groupby("case_id", sort=False).cumcount().to_numpy() < deficit.reindex(grid["case_id"]).to_numpy()]
        attributes = [c for c in ("category", "cluster") if c in table.columns]
        first = table.loc[mine, ["case_id", *attributes]].astype({"case_id": str}).drop_duplicates("case_id")
        rows = grid.merge(first, how="left", on="case_id")
        rows["release"] = release
        rows["outcome"] = 0.0
        frames.append(rows)
        notes.append(f"{release}: {len(rows)} missing run(s) of {int(mask.sum())} case(s) counted as failures "
                     "(--allow-incomplete-runs).")
    added = pd.concat(frames, ignore_index=True)
    start = int(table.index.max()) + 1 if len(table) else 0
    added.index = pd.RangeIndex(start, start + len(added))
    for column in ("release", "case_id"):
        added[column] = pd.Categorical(added[column], dtype=table[column].dtype)
    return pd.concat([table, added[[c for c in added.columns if c in table.columns]]]), notes


def check_attribute_agrees(table: pd.DataFrame, column: str, cases: keycodes.Codes,
                           set_apart: pd.Index | None = None) -> None:
    """A case's category (or cluster, or difficulty) must be one in every release and run; ``set_apart`` are cases
    whose content changed between the releases, other questions under one id, whose attributes need not agree."""
    if set_apart is not None and len(set_apart):
        kept = ~table["case_id"].isin(set_apart).to_numpy(bool)
        table, cases = table[kept], cases.take(kept)
    # Releases written one after the other, each listing the cases alike, are compared row by row (keycodes).
    blocks = keycodes.release_blocks(keycodes.encode(table["release"]).codes)
    if not keycodes.varies_within_blocks(cases, keycodes.encode(table[column]), blocks):
        return
    pairs = table[["case_id", column]].drop_duplicates()
    clash = pairs["case_id"][pairs["case_id"].duplicated()]
    if len(clash):
        ids = clash.unique()
        first = table.loc[table["case_id"] == ids[0], ["release", column]].drop_duplicates(column)
        shown = ", ".join(f"{v!r} in {r!r}" for r, v in first.head(3).itertuples(index=False))
        raise PairingError(f"{len(ids)} case(s) have a different {column} in different releases or runs, e.g. "
                           f"case {ids[0]!r}: {shown}")


# Attributes of a case shown beside it (not the content pairing reads, nor the groups of validate/results.py): where two
# releases state one, they must state the same, or the note would show one release's label as the case's.
STATED_ATTRIBUTES = ("difficulty",)


def check_stated_attributes(table: pd.DataFrame, cases: keycodes.Codes, set_apart: pd.Index) -> None:
    """Each of :data:`STATED_ATTRIBUTES` the same wherever it is given for a case; a file that does not give it
    (blank) says nothing against the others."""
    for column in STATED_ATTRIBUTES:
        if column not in table.columns:
            continue
        given = table[column].notna().to_numpy(bool)
        if given.any():
            check_attribute_agrees(table[given], column, cases.take(given), set_apart)
