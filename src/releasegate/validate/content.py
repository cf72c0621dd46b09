"""A case's content, compared row against row, and dataset positions paired by content (SPEC 3.2, pairing).

Where the results carry what a case asks (the ``content_hash`` column the adapters fill, load/fingerprint.py; else
a tidy file's own ``input``, ``reference``, ``target`` and ``expected`` columns), two rows are the same case only
when that content agrees. Rows are compared where they are: each case's row on one side against its row on the
other, column by column, as Arrow compares strings (a million pairs in a few hundredths of a second; hashing
every text into codes first took a second). Only rows whose raw text differs are compared again as a reader
would read them (load.fingerprint's normalisation: Unicode NFC, line endings, surrounding space).

Ids that are positions in a dataset (Inspect's default 1..N, OpenAI evals' ``split.n``) name another question as
soon as the dataset changes: each other release's rows take the id of the baseline's case with the same content,
and are refused when there is no content to pair them by, or when two cases share one content.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from releasegate.errors import PairingError
from releasegate.load.fingerprint import (CONTENT_COLUMN, KIND_COLUMN, POSITION_COLUMN, TEXT_KIND, content_fingerprint,
                                          text_fingerprint)
from releasegate.validate import keycodes
from releasegate.validate.outcomes import examples

# A tidy file's columns that say what a case asks and what answer it expects (docs/inputs.md, pairing).
CONTENT_COLUMNS = ("input", "reference", "target", "expected")
SHOWN_TEXT = 60  # characters of a case's text in a refusal line


@dataclass(frozen=True)
class Content:
    """Which columns hold the rows' content (``content_hash`` when the adapters filled it, else the tidy
    columns) and which rows carry any (``given``)."""

    columns: tuple[str, ...]
    given: np.ndarray
    # With a content_hash beside tidy rows (a harness log against a tidy file): which rows' content is their hash,
    # and each row's kind of fingerprint (load.fingerprint.KIND_COLUMN, "" when not said). None: one source only.
    hashed: np.ndarray | None = None
    kinds: np.ndarray | None = None

    def take(self, mask: np.ndarray) -> Content:
        return Content(self.columns, self.given[mask], None if self.hashed is None else self.hashed[mask],
                       None if self.kinds is None else self.kinds[mask])

    @property
    def tidy(self) -> tuple[str, ...]:
        return tuple(c for c in self.columns if c != CONTENT_COLUMN)


def _given(values: pd.Series) -> np.ndarray:
    """Which rows hold a value: not missing, not the empty text."""
    blank = values.isna().to_numpy(bool)
    if values.dtype == object or isinstance(values.dtype, pd.StringDtype):
        blank = blank | np.asarray((values == "").fillna(True), dtype=bool)
    return ~blank


def content_of(table: pd.DataFrame, case_columns: tuple[str, ...] = ()) -> Content | None:
    """Where the rows' content is, or None when no row carries any. Columns a case table joined
    (``case_columns``) are left out: they give both releases the same text by construction."""
    tidy = tuple(c for c in CONTENT_COLUMNS if c in table.columns and c not in case_columns)
    hashed = _given(table[CONTENT_COLUMN]) if CONTENT_COLUMN in table.columns else None
    kinds = None
    if KIND_COLUMN in table.columns:
        kinds = table[KIND_COLUMN].astype(object).where(_given(table[KIND_COLUMN]), "").to_numpy(dtype=object)
    if hashed is not None and hashed.any() or kinds is not None and (kinds != "").any():
        # An adapter's row: its content is its hash alone, never the input or target it keeps beside it (promptfoo's
        # raw prompt differs between prompts on purpose). A tidy file's row: its own columns.
        hashed = hashed if hashed is not None else np.zeros(len(table), dtype=bool)
        adapter = hashed | (kinds != "") if kinds is not None else hashed
        tidy_given = np.zeros(len(table), dtype=bool)
        for column in tidy:
            tidy_given |= _given(table[column])
        tidy_given &= ~adapter
        if not tidy_given.any():
            return Content((CONTENT_COLUMN,), hashed, kinds=kinds) if hashed.any() else None
        return Content((CONTENT_COLUMN, *tidy), hashed | tidy_given, hashed, kinds)
    columns: tuple[str, ...] = tidy
    if not columns:
        return None  # nothing to look at: no mask of every row (20 MB at 10^7 x 2)
    given = np.zeros(len(table), dtype=bool)
    for column in columns:
        given |= _given(table[column])
    return Content(columns, given) if given.any() else None


def _run_of(rows: np.ndarray) -> slice | None:
    """``rows`` as one slice when they are consecutive rows in order, else None."""
    if rows.size and rows[-1] - rows[0] == rows.size - 1 and bool(np.all(np.diff(rows) == 1)):
        return slice(int(rows[0]), int(rows[-1]) + 1)
    return None


def _equal(values: pd.Series, left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """Whether the values at rows ``left`` equal those at rows ``right`` (missing equals missing). When both are
    runs of consecutive rows in the same order (each release written as one block, its cases alike: the common
    layout), the two blocks are compared as they lie, without copying a million texts first."""
    ordered = left.size < 2 or bool(np.all(left[1:] > left[:-1]))
    order = np.arange(left.size) if ordered else np.argsort(left, kind="stable")
    first, second = _run_of(left[order]), _run_of(right[order])
    if first is not None and second is not None:
        a, b = values.iloc[first].array, values.iloc[second].array
    else:
        order = np.arange(left.size)
        a, b = values.iloc[left].array, values.iloc[right].array
    same = np.asarray(pd.array(a == b, dtype="boolean").fillna(False), dtype=bool)
    same |= np.asarray(pd.isna(a) & pd.isna(b), dtype=bool)
    out = np.empty(left.size, dtype=bool)
    out[order] = same
    return out


def _is_hashed(content: Content, row: int) -> bool:
    return content.columns == (CONTENT_COLUMN,) or content.hashed is not None and bool(content.hashed[row])


def _kind(content: Content, row: int) -> str:
    return "" if content.kinds is None else str(content.kinds[row])


def _as_text(value: object) -> object:
    """A tidy cell as the text a harness holds: a whole number read from a CSV is its digits."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return str(int(value))
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return str(int(value))
    return value


def text_fingerprint_of_row(table: pd.DataFrame, row: int, content: Content) -> str:
    """A tidy row's content as a harness holding two plain texts fingerprints it (load.fingerprint.TEXT_KIND): its
    ``input``, and its answer: ``target``, else ``reference``, else ``expected`` (the first given)."""
    def cell(column: str) -> object:
        value: Any = table[column].iat[row] if column in content.columns else None
        return None if value is None or pd.isna(value) or (isinstance(value, str) and not value.strip()) else value
    answer = next((v for v in map(cell, ("target", "reference", "expected")) if v is not None), None)
    return text_fingerprint(_as_text(cell("input")), _as_text(answer))


def fingerprint_of_row(table: pd.DataFrame, row: int, content: Content, as_text: bool = False) -> str:
    """The normalised fingerprint of one row's content (the harness's own when it is a content_hash); a tidy row's
    as a two-text harness's (``as_text``) when it is paired with one."""
    if _is_hashed(content, row):
        return str(table[CONTENT_COLUMN].iat[row])
    if as_text:
        return text_fingerprint_of_row(table, row, content)
    values = [table[c].iat[row] for c in content.tidy]
    # A blank text is no content, as a missing value is.
    return content_fingerprint({c: (None if pd.isna(v) or (isinstance(v, str) and not v.strip()) else v)
                                for c, v in zip(content.tidy, values)})


def _same_columns(table: pd.DataFrame, content: Content, columns: tuple[str, ...], left: np.ndarray,
                  right: np.ndarray) -> np.ndarray:
    same = np.ones(left.size, dtype=bool)
    for column in columns:
        same &= _equal(table[column], left, right)
    for k in np.flatnonzero(~same):
        same[k] = fingerprint_of_row(table, int(left[k]), content) == fingerprint_of_row(table, int(right[k]), content)
    return same


def compare_content(table: pd.DataFrame, content: Content, left: np.ndarray, right: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Whether row ``left[k]`` asks what row ``right[k]`` asks (``same``), and whether the two can be compared at
    all (``comparable``). Rows of one source are: equal raw values in every content column, or, where they
    differ, equal normalised fingerprints. A harness's fingerprint and a tidy row's columns are compared where the
    harness held the case as two plain texts (TEXT_KIND), the tidy row fingerprinted as it would be; any other
    kind (Inspect chat messages or choices, promptfoo's vars, lm-eval's doc_hash) is not what a tidy file's
    columns can say, and neither are two fingerprints of different kinds: such a pair is not comparable, and is
    paired by id only, never called changed."""
    if content.hashed is None and content.kinds is None:
        return _same_columns(table, content, content.columns, left, right), np.ones(left.size, dtype=bool)
    hashed = content.hashed if content.hashed is not None else np.ones(len(content.given), dtype=bool)
    same = np.zeros(left.size, dtype=bool)
    comparable = np.zeros(left.size, dtype=bool)
    hl, hr = hashed[left], hashed[right]
    both = hl & hr
    if content.kinds is not None:
        kl, kr = content.kinds[left], content.kinds[right]
        both &= (kl == kr) | (kl == "") | (kr == "")
    at = np.flatnonzero(both)
    same[at] = _equal(table[CONTENT_COLUMN], left[at], right[at])
    comparable[at] = True
    if content.tidy:
        at = np.flatnonzero(~hl & ~hr)
        same[at] = _same_columns(table, content, content.tidy, left[at], right[at])
        comparable[at] = True
        for k in np.flatnonzero(hl != hr):
            harness, tidy = (int(left[k]), int(right[k])) if hl[k] else (int(right[k]), int(left[k]))
            if _kind(content, harness) == TEXT_KIND:
                comparable[k] = True
                same[k] = str(table[CONTENT_COLUMN].iat[harness]) == text_fingerprint_of_row(table, tidy, content)
    return same, comparable


def same_content(table: pd.DataFrame, content: Content, left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """Whether row ``left[k]`` asks what row ``right[k]`` asks, as far as can be told (:func:`compare_content`: two
    contents that cannot be compared are not called different)."""
    same, comparable = compare_content(table, content, left, right)
    return same | ~comparable


def text_of_row(table: pd.DataFrame, row: int, content: Content) -> str:
    """What a refusal shows of one row's content: its first text column's text (the input an adapter keeps beside
    its fingerprint), trimmed, else the fingerprint."""
    for column in (*(c for c in content.columns if c != CONTENT_COLUMN), "input"):
        if column in table.columns and not pd.isna(table[column].iat[row]):
            text = " ".join(str(table[column].iat[row]).split())
            return text if len(text) <= SHOWN_TEXT else text[:SHOWN_TEXT - 3] + "..."
    return f"content {str(table[CONTENT_COLUMN].iat[row])[:12]}"


def check_one_content_per_case(table: pd.DataFrame, content: Content, group: keycodes.Codes) -> None:
    """A case whose rows in one release (its runs) carry two contents is refused: which question was asked?
    ``group`` is the (release, case) of every row (asked only with runs: otherwise a case has one row)."""
    rows = np.flatnonzero(content.given & (group.codes >= 0))
    first = np.full(group.n, -1, dtype=np.int64)
    first[group.codes[rows][::-1]] = rows[::-1]
    other = first[group.codes[rows]]
    differ = rows[~same_content(table, content, rows, other)]
    if differ.size:
        row = int(differ[0])
        cases = np.unique(group.codes[differ]).size
        raise PairingError(f"{cases} case(s) carry two different contents within one release (e.g. case "
                           f"{table['case_id'].iat[row]!r} of {table['release'].iat[row]!r}): its runs asked "
                           "different questions under one id; give each question its own case_id")


def _positional(table: pd.DataFrame) -> set[str]:
    """The releases whose case ids are positions in their dataset (any row says so)."""
    if POSITION_COLUMN not in table.columns:
        return set()
    flags = table[POSITION_COLUMN]
    if flags.dtype != bool:
        flags = flags.astype("string").str.strip().str.lower().isin(["true", "1", "yes"]).fillna(False)
    if not flags.any():
        return set()
    return set(map(str, pd.unique(table.loc[flags.to_numpy(bool), "release"].astype(str))))


def _contents(table: pd.DataFrame, content: Content, rows: np.ndarray, release: str,
              as_text: bool = False) -> pd.Series:
    """One normalised fingerprint per case id of one release (its rows ``rows``); two cases with one content are
    refused (ambiguous). A Python pass per row: dataset positions come from harness logs of a few thousand."""
    at = np.flatnonzero(rows)
    keys = [fingerprint_of_row(table, int(k), content, as_text) for k in at]
    ids = table["case_id"].astype(str).to_numpy()[at]
    per_case = pd.Series(keys, index=ids, dtype=object).groupby(level=0, sort=False).first()
    twice = per_case[per_case.duplicated(keep=False)]
    if len(twice):
        shown = examples(pd.Index(twice.index[:2]))
        raise PairingError(f"{len(twice)} cases of {release!r} share one content (e.g. {shown}), and the case ids "
                           "are dataset positions, paired by content: which is which would be ambiguous; give the "
                           "cases ids of their own")
    return per_case


def _mixed_sources(table: pd.DataFrame, content: Content, first: np.ndarray, second: np.ndarray, which: str) -> bool:
    """Whether one release is a tidy file's and the other a harness's: then the tidy rows are fingerprinted as two
    plain texts, which the harness's rows must be (TEXT_KIND) for the two to be paired by content; refused else."""
    if content.hashed is None:
        return False
    sides = [content.hashed[m & content.given] for m in (first, second)]
    if all(s.all() for s in sides) or not any(s.any() for s in sides):
        return False
    kinds = content.kinds if content.kinds is not None else np.full(len(content.given), "", dtype=object)
    other = set(kinds[(first | second) & content.hashed].tolist()) - {TEXT_KIND}
    if other:
        raise PairingError(f"the case ids of {which!r} are positions in its dataset, to be paired by content, but "
                           f"one release holds its cases as {sorted(other)[0] or 'a content_hash'} content and the "
                           "other as a tidy file's input and target columns, which cannot be compared; give the "
                           "samples ids of their own")
    return True


def rekey_positions(table: pd.DataFrame, baseline: str, content: Content | None) -> tuple[pd.DataFrame, list[str]]:
    """Every other release's rows renamed to the baseline's case with the same content when either release's
    ids are dataset positions; a case the baseline does not hold keeps its id prefixed with its release
    (``r2:5``), so that it never takes another case's id. Refused without content to pair by."""
    positional = _positional(table)
    if not positional:
        return table, []
    releases = table["release"].astype(str).to_numpy()
    at_base = releases == baseline
    notes = []
    base_contents = None
    new_ids = table["case_id"].astype(str).to_numpy(dtype=object, copy=True)
    for release in dict.fromkeys(releases.tolist()):
        if release == baseline or not ({release, baseline} & positional):
            continue
        which = next(r for r in (release, baseline) if r in positional)
        rows = releases == release
        for side, mask in ((baseline, at_base), (release, rows)):
            if content is None or not content.given[mask].all():
                count = int(mask.sum()) if content is None else int((~content.given[mask]).sum())
                raise PairingError(f"the case ids of {which!r} are positions in its dataset (an Inspect log's "
                                   f"default ids, OpenAI evals' sample ids), and {count} row(s) of {side!r} carry no "
                                   "content to pair them by: the same id may name another question in each release; "
                                   "give the samples ids of their own")
        assert content is not None
        as_text = _mixed_sources(table, content, at_base, rows, which)
        if base_contents is None or as_text:
            base_contents = _contents(table, content, at_base, baseline, as_text)
        own = _contents(table, content, rows, release, as_text)
        by_content = pd.Series(base_contents.index, index=base_contents.to_numpy())
        matched = own.map(by_content)
        renamed = pd.Series(np.where(matched.isna(), release + ":" + own.index.to_series().astype(str),
                                     matched.astype(object)), index=own.index)
        new_ids[rows] = renamed.reindex(new_ids[rows]).to_numpy(dtype=object)
        moved = int((matched.notna() & (matched != own.index)).sum())
        new = int(matched.isna().sum())
        if not moved and not new:
            continue  # every case under its own id: pairing by content changed nothing worth a note
        named = f" (named {release}:id)" if new else ""
        notes.append(f"{release}: the case ids of {which} are positions in its dataset, so {release}'s cases were "
                     f"paired with {baseline}'s by content: {int(matched.notna().sum())} found ({moved} under another "
                     f"id), {new} not in {baseline}{named}.")
    table = table.copy(deep=False)
    table["case_id"] = pd.array(new_ids, dtype=table["case_id"].dtype if not isinstance(
        table["case_id"].dtype, pd.CategoricalDtype) else "string")
    return table, notes
