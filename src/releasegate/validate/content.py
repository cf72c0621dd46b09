"""A case's content as integer codes, and dataset positions paired by content (SPEC 3.2, pairing).

Where the results carry what a case asks (the ``content_hash`` column the adapters fill, load/fingerprint.py; a
tidy file's own ``input``, ``reference``, ``target`` and ``expected`` columns), two rows are the same case only
when that content agrees. Equal text gets an equal integer code (pandas.factorize, once over every row), so the
comparison of a million cases is a comparison of integers; only cases whose raw text differs are compared again
as a reader would read them (load.fingerprint's normalisation: Unicode NFC, line endings, surrounding space).

Ids that are positions in a dataset (Inspect's default 1..N, OpenAI evals' ``split.n``) name another question as
soon as the dataset changes: each other release's rows take the id of the baseline's case with the same content,
and are refused when there is no content to pair them by, or when two cases share one content.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from releasegate.errors import PairingError
from releasegate.load.fingerprint import CONTENT_COLUMN, POSITION_COLUMN, content_fingerprint
from releasegate.validate import keycodes
from releasegate.validate.outcomes import examples

# A tidy file's columns that say what a case asks and what answer it expects (docs/inputs.md, pairing).
CONTENT_COLUMNS = ("input", "reference", "target", "expected")
SHOWN_TEXT = 60  # characters of a case's text in a refusal line


@dataclass(frozen=True)
class Content:
    """Per row an integer naming its content (-1 where the row carries none): equal content, equal code.
    ``columns`` are the tidy columns read (the text a refusal shows), ``hashed`` whether some rows carry the
    adapters' ``content_hash`` (which wins over the columns in its row)."""

    codes: np.ndarray
    columns: tuple[str, ...]
    hashed: np.ndarray  # per row: the code is the row's content_hash's

    def take(self, mask: np.ndarray) -> Content:
        return Content(self.codes[mask], self.columns, self.hashed[mask])


def _given(values: pd.Series) -> np.ndarray:
    blank = values.isna().to_numpy(bool)
    if values.dtype == object or isinstance(values.dtype, pd.StringDtype):
        blank = blank | (values.astype("string").str.strip() == "").fillna(True).to_numpy(bool)
    return ~blank


def content_of(table: pd.DataFrame, case_columns: tuple[str, ...] = ()) -> Content | None:
    """The content codes of every row, or None when no row carries content. Columns a case table joined
    (``case_columns``) are left out: they give both releases the same text by construction."""
    tidy = tuple(c for c in CONTENT_COLUMNS if c in table.columns and c not in case_columns)
    has_hash = CONTENT_COLUMN in table.columns
    if not tidy and not has_hash:
        return None
    codes = np.full(len(table), -1, dtype=np.int64)
    hashed = np.zeros(len(table), dtype=bool)
    offset = 0
    if has_hash:
        given = _given(table[CONTENT_COLUMN])
        found, uniques = pd.factorize(table[CONTENT_COLUMN].astype("string"), use_na_sentinel=True)
        codes[given] = found[given]
        hashed = given & (found >= 0)
        offset = len(uniques)
    if tidy:
        any_given = np.zeros(len(table), dtype=bool)
        parts = []
        for column in tidy:
            any_given |= _given(table[column])
            found, uniques = pd.factorize(table[column], use_na_sentinel=False)  # missing: a value of its own
            parts.append(keycodes.Codes(found.astype(np.int64, copy=False), len(uniques)))
        key = keycodes.combined(*parts).codes
        use = ~hashed & any_given
        codes[use] = key[use] + offset
    if not (codes >= 0).any():
        return None
    return Content(codes, tidy, hashed)


def fingerprint_of_row(table: pd.DataFrame, row: int, content: Content) -> str:
    """The normalised fingerprint of one row's content (its content_hash, else its tidy columns')."""
    if content.hashed[row]:
        return str(table[CONTENT_COLUMN].iat[row])
    values = [table[c].iat[row] for c in content.columns]
    return content_fingerprint({c: (None if pd.isna(v) else v) for c, v in zip(content.columns, values)})


def text_of_row(table: pd.DataFrame, row: int, content: Content) -> str:
    """What a refusal shows of one row's content: its first tidy column's text, trimmed, else its fingerprint."""
    for column in (*content.columns, "input"):
        if column in table.columns and not pd.isna(table[column].iat[row]):
            text = " ".join(str(table[column].iat[row]).split())
            return text if len(text) <= SHOWN_TEXT else text[:SHOWN_TEXT - 3] + "..."
    return f"content {str(table[CONTENT_COLUMN].iat[row])[:12]}"


def check_one_content_per_case(table: pd.DataFrame, content: Content, group: keycodes.Codes) -> None:
    """A case whose rows in one release (its runs) carry two contents is refused: which question was asked?"""
    known = content.codes >= 0
    values = keycodes.Codes(content.codes, int(content.codes.max()) + 1)
    if not keycodes.varies_within(group.take(known), values.take(known)):
        return
    frame = pd.DataFrame({"g": group.codes[known], "c": content.codes[known]}, index=np.flatnonzero(known))
    firsts = frame.drop_duplicates()
    clash = firsts["g"][firsts["g"].duplicated()]
    row = int(firsts.index[firsts["g"] == clash.iloc[0]][0])
    raise PairingError(f"{clash.nunique()} case(s) carry two different contents within one release (e.g. case "
                       f"{table['case_id'].iat[row]!r} of {table['release'].iat[row]!r}): its runs asked different "
                       "questions under one id; give each question its own case_id")


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


def _contents(ids: pd.Series, codes: np.ndarray, release: str) -> pd.Series:
    """One content code per case id of one release; two cases with one content are refused (ambiguous)."""
    per_case = pd.Series(codes, index=ids.to_numpy()).groupby(level=0, sort=False).first()
    twice = per_case[per_case.duplicated(keep=False)]
    if len(twice):
        shown = examples(pd.Index(twice.index[:2]))
        raise PairingError(f"{len(twice)} cases of {release!r} share one content (e.g. {shown}), and the case ids "
                           "are dataset positions, paired by content: which is which would be ambiguous; give the "
                           "cases ids of their own")
    return per_case


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
            missing = content is None or bool((content.codes[mask] < 0).any())
            if missing:
                count = int(mask.sum()) if content is None else int((content.codes[mask] < 0).sum())
                raise PairingError(f"the case ids of {which!r} are positions in its dataset (an Inspect log's "
                                   f"default ids, OpenAI evals' sample ids), and {count} row(s) of {side!r} carry no "
                                   "content to pair them by: the same id may name another question in each release; "
                                   "give the samples ids of their own")
        assert content is not None
        if base_contents is None:
            base_contents = _contents(table.loc[at_base, "case_id"].astype(str), content.codes[at_base], baseline)
        own = _contents(table.loc[rows, "case_id"].astype(str), content.codes[rows], release)
        by_content = pd.Series(base_contents.index, index=base_contents.to_numpy())
        matched = own.map(by_content)
        renamed = pd.Series(np.where(matched.isna(), release + ":" + own.index.to_series().astype(str),
                                     matched.astype(object)), index=own.index)
        new_ids[rows] = renamed.reindex(new_ids[rows]).to_numpy(dtype=object)
        moved = int((matched.notna() & (matched != own.index)).sum())
        new = int(matched.isna().sum())
        named = f" (named {release}:id)" if new else ""
        notes.append(f"{release}: the case ids of {which} are positions in its dataset, so {release}'s cases were "
                     f"paired with {baseline}'s by content: {int(matched.notna().sum())} found ({moved} under another "
                     f"id), {new} not in {baseline}{named}.")
    table = table.copy(deep=False)
    table["case_id"] = pd.array(new_ids, dtype=table["case_id"].dtype if not isinstance(
        table["case_id"].dtype, pd.CategoricalDtype) else "string")
    return table, notes
