"""Validation hands the analysis its identity columns as sorted categoricals (issue 19): group-bys, joins and
sorts then work on integer codes, and ordering by code is ordering by the text, as before."""

from __future__ import annotations

import pandas as pd

from releasegate.policy import make_policy
from releasegate.validate import validate


def _table() -> pd.DataFrame:
    ids = ["b10", "a2", "NA", "é", "B1", "a10"]
    rows = [{"release": r, "case_id": c, "passed": (k + j) % 2, "category": ["x", "y", "W"][k % 3]}
            for j, r in enumerate(["r2", "r1"]) for k, c in enumerate(ids)]
    return pd.DataFrame(rows).astype({"release": "str", "case_id": "str", "category": "str"})


def test_identity_columns_are_sorted_categoricals():
    data = validate(_table(), make_policy({}, baseline="r1"))
    for column in ("release", "case_id", "category"):
        values = data.table[column]
        assert isinstance(values.dtype, pd.CategoricalDtype), column
        categories = list(values.cat.categories)
        assert categories == sorted(categories), column
        # Same values as the text they came from, row by row.
        assert values.astype(str).tolist() == _table()[column].tolist(), column


def test_sorting_by_code_is_sorting_by_text():
    data = validate(_table(), make_policy({}, baseline="r1"))
    rows = data.table[data.table["release"] == "r1"]
    by_code = rows.sort_values("case_id")["case_id"].astype(str).tolist()
    assert by_code == sorted(_table()["case_id"].unique().tolist())


def test_a_blank_category_is_a_category_of_its_own():
    table = _table()
    table.loc[table["case_id"] == "a2", "category"] = None
    data = validate(table, make_policy({}, baseline="r1"))
    assert "(none)" in set(data.table["category"].astype(str))
    assert data.table["category"].notna().all()
