"""The case table (``--cases``): case_id plus attributes (category, cluster, input, ...) joined onto the results."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from releasegate.errors import InputError
from releasegate.files import TABLE_CAP
from releasegate.load.columns import rename_columns, require_column
from releasegate.load.sources import check_file, sha256_of
from releasegate.load.tidy import identity_names, read_tidy
from releasegate.model import InputFile


def join_cases(table: pd.DataFrame, path: Path, columns: Mapping[str, str],
                seen: set[str]) -> tuple[pd.DataFrame, InputFile]:
    """Join a case table (case_id plus attributes such as category, cluster, input) onto the results."""
    check_file(path, "case file", TABLE_CAP)
    cases = read_tidy(path, identity_names(columns))
    seen.update(map(str, cases.columns))
    cases = rename_columns(cases, {k: v for k, v in columns.items() if k not in ("release",)}, path, ("case_id",))
    require_column(cases, "case_id", path, "--case-col", columns.get("case_id"))
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
        raise InputError(f"{len(ids)} result case_id(s) are not in the case table {path}, "
                         f"e.g. {', '.join(map(str, ids[:3]))}")
    joined = table.merge(cases, on="case_id", how="left", sort=False)
    return joined, InputFile(str(path), sha256_of(path), int(cases.shape[0]), "cases")
