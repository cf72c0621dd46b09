"""The case table (``--cases``, or ``compare(..., cases=DataFrame)``): case_id plus attributes (category, cluster,
input, ...) joined onto the results."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from releasegate.errors import InputError
from releasegate.files import TABLE_CAP
from releasegate.load.columns import rename_columns, require_column
from releasegate.load.shapes import nested_as_text
from releasegate.load.sources import check_file, frame_sha256, sha256_of
from releasegate.load.identity import identity_as_text, identity_names
from releasegate.load.tidy import read_tidy
from releasegate.model import InputFile
from releasegate.policy import CANONICAL_COLUMNS
from releasegate.text import near_misses


CASES_FRAME = "<DataFrame of cases>"  # a notebook's case table: no path, its record the frame's content hash

# What a release did, never what a case is. A case table's value is the same for every release, so one of these
# joined onto the results would stand in for each release's own outcome (a `passed` beside results of `score`
# only wins over the scores), errors, runs or costs, and the releases would be compared on the case table.
PER_RELEASE_COLUMNS = ("release", "passed", "score", "run", "error", "metric", "latency_ms", "latency_s",
                       "input_tokens", "output_tokens", "cost")


def _frame(frame: pd.DataFrame, columns: Mapping[str, str]) -> pd.DataFrame:
    """A notebook's case table read as a file's would be: column names and identity columns as text."""
    if frame.shape[0] == 0:
        raise InputError(f"{CASES_FRAME}: the case table has no rows")
    cases = frame.reset_index(drop=True).rename(columns=str)
    identity_as_text(cases, identity_names(columns), CASES_FRAME, columns.get("case_id", "case_id"))
    return cases


def join_cases(table: pd.DataFrame, source: Path | pd.DataFrame, columns: Mapping[str, str],
                seen: set[str], metrics: tuple[str, ...] = ()) -> tuple[pd.DataFrame, InputFile]:
    """Join a case table (case_id plus attributes such as category, cluster, input) onto the results: a file, or
    a DataFrame (the notebook's ``compare(..., cases=frame)``). A column of what a release did (an outcome, a
    metric gated, an error, a run, a cost) is refused there."""
    if isinstance(source, pd.DataFrame):
        path: Path | str = CASES_FRAME
        cases = _frame(source, columns)
        record = InputFile(CASES_FRAME, frame_sha256(source), int(source.shape[0]), "cases")
    else:
        path = source
        check_file(source, "case file", TABLE_CAP)
        cases = read_tidy(source, identity_names(columns), columns.get("case_id", "case_id"))
        record = InputFile(str(source), sha256_of(source), int(cases.shape[0]), "cases")
    seen.update(map(str, cases.columns))
    cases = rename_columns(cases, {k: v for k, v in columns.items() if k not in ("release",)}, path, ("case_id",))
    require_column(cases, "case_id", path, "--case-col", columns.get("case_id"))
    _refuse_per_release(cases, path, metrics)
    # An attribute holding a JSON object or list (a Parquet struct, a JSON record) is kept as its text, as the
    # results' metadata is (a role such as category keeps it, refused there by name); every row is looked at, a
    # case table holding one row per case.
    cases = nested_as_text(cases, [c for c in cases.columns if c not in CANONICAL_COLUMNS])
    if cases["case_id"].isna().any() or (cases["case_id"] == "").any():
        raise InputError(f"{path}: blank case_id in the case table")
    dup = cases["case_id"][cases["case_id"].duplicated()]
    if len(dup):
        raise InputError(f"{path}: case table lists {len(dup)} case_id(s) twice, e.g. {', '.join(map(str, dup[:3]))}")
    shared = [c for c in cases.columns if c != "case_id" and c in table.columns]
    if shared:
        merged = table[["case_id", *shared]].merge(cases[["case_id", *shared]], on="case_id", how="inner",
                                                     suffixes=("", "__case"))
        for column in shared:
            left, right = merged[column].astype(str), merged[f"{column}__case"].astype(str)
            differ = merged.loc[left != right, "case_id"]
            if len(differ):
                raise InputError(f"{path}: column {column!r} disagrees with the results for {differ.nunique()} case(s), "
                                 f"e.g. {', '.join(map(str, differ.unique()[:3]))}")
        cases = cases.drop(columns=shared)
    unknown = ~table["case_id"].isin(cases["case_id"])
    if unknown.any():
        ids = table.loc[unknown, "case_id"].unique()
        found = near_misses([str(i) for i in ids], [str(i) for i in cases["case_id"]])
        near = (f"; {found[0]} of them differ from an id of the case table {found[1]}, e.g. {found[2]} and "
                f"{found[3]}: write the ids alike") if found else ""
        raise InputError(f"{len(ids)} result case_id(s) are not in the case table {path}, "
                         f"e.g. {', '.join(map(str, ids[:3]))}{near}")
    joined = table.merge(cases, on="case_id", how="left", sort=False)
    return joined, record


def _refuse_per_release(cases: pd.DataFrame, path: Path | str, metrics: tuple[str, ...]) -> None:
    """A case table holding a column of what each release did is refused, naming the columns."""
    found = [str(c) for c in cases.columns if str(c) in PER_RELEASE_COLUMNS or str(c) in metrics]
    if found:
        names = ", ".join(repr(c) for c in found)
        raise InputError(f"{path}: the case table holds {names}: what each release did, not what a case is; a case "
                         "table's value would be the same for every release and stand in for each release's own: "
                         "drop it from the case table (keep it in the results)")
