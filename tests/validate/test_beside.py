"""Validation parses the outcome, category and cost columns in a second thread beside its key checks
(validate/beside.py). What it says is what it said checking one thing after the other: an input with two problems
is refused for the one checked first; rows dropped or filled in are parsed as kept; no work of the thread goes on
after validation has answered."""

from __future__ import annotations

import itertools
import threading
import time

import numpy as np
import pandas as pd
import pytest

from releasegate.errors import InputError
from releasegate.policy import make_policy
from releasegate.validate import beside, validate


def _table() -> pd.DataFrame:
    rows = [{"release": r, "case_id": f"c{k}", "passed": (k + j) % 2, "category": "xy"[k % 2],
             "latency_ms": str(100 + k)} for j, r in enumerate(["r1", "r2"]) for k in range(6)]
    return pd.DataFrame(rows).astype({"release": "str", "case_id": "str", "category": "str", "latency_ms": "str"})


def _blank_id(t: pd.DataFrame) -> None:
    t.loc[1, "case_id"] = ""


def _duplicate_key(t: pd.DataFrame) -> None:
    t.loc[2, "case_id"] = "c3"


def _bad_outcome(t: pd.DataFrame) -> None:
    t["passed"] = t["passed"].astype(object)
    t.loc[7, "passed"] = "maybe"


def _case_sets_differ(t: pd.DataFrame) -> None:
    t.loc[11, "case_id"] = "c99"


def _category_varies(t: pd.DataFrame) -> None:
    t.loc[6, "category"] = "y"


def _bad_latency(t: pd.DataFrame) -> None:
    t.loc[4, "latency_ms"] = "fast"


# In the order validation checks them (results.validate's docstring).
PROBLEMS = [_blank_id, _duplicate_key, _bad_outcome, _case_sets_differ, _category_varies, _bad_latency]


def _refusal(*problems) -> str:
    table = _table()
    for problem in problems:
        problem(table)
    with pytest.raises(InputError) as refused:
        validate(table, make_policy(baseline="r1"))
    return str(refused.value)


@pytest.mark.parametrize("first,second", list(itertools.combinations(PROBLEMS, 2)),
                         ids=lambda p: p.__name__.strip("_"))
def test_the_problem_checked_first_is_the_one_said(first, second):
    alone = _refusal(first)
    assert _refusal(first, second) == alone
    assert _refusal(second, first) == alone  # whichever way round the table was broken
    assert _refusal(second) != alone  # the two are told apart


def test_rows_dropped_are_not_parsed_and_rows_kept_are():
    """--missing drop: a latency no number on a row without an outcome leaves with its row; on a row kept it is
    refused. The category and costs of the rows kept are those validation parses from them."""
    table = _table()
    table["passed"] = table["passed"].astype(float)
    table.loc[4, "passed"] = np.nan
    table.loc[4, "latency_ms"] = "fast"
    table.loc[10, "passed"] = np.nan
    data = validate(table, make_policy(baseline="r1", missing="drop", allow_missing=True))
    assert data.cost_columns == ("latency_ms",)
    assert data.table["latency_ms"].dtype == np.float64
    kept = table.drop(index=[4, 10]).reset_index(drop=True)
    assert data.table["latency_ms"].tolist() == kept["latency_ms"].astype(float).tolist()
    assert data.table["category"].astype(str).tolist() == kept["category"].tolist()
    assert list(data.table["category"].cat.categories) == ["x", "y"]
    table.loc[5, "latency_ms"] = "slow"
    with pytest.raises(InputError, match="'latency_ms' must be numeric; found 1 other value.*'slow'"):
        validate(table, make_policy(baseline="r1", missing="drop", allow_missing=True))


def test_runs_filled_in_are_parsed_with_the_rows_read():
    """--allow-incomplete-runs: the failing rows added for missing runs have no latency; the column is parsed
    from the table with them, as when nothing ran beside."""
    rows = [{"release": r, "case_id": f"c{k}", "run": run, "passed": 1, "category": "x", "latency_ms": "5"}
            for r in ("r1", "r2") for k in range(3) for run in (1, 2) if not (r == "r2" and k == 0 and run == 2)]
    table = pd.DataFrame(rows).astype({"release": "str", "case_id": "str", "category": "str"})
    data = validate(table, make_policy(baseline="r1", allow_incomplete_runs=True))
    assert len(data.table) == 12
    assert data.table["latency_ms"].dtype == np.float64
    assert int(data.table["latency_ms"].isna().sum()) == 1
    assert data.table["category"].astype(str).tolist() == ["x"] * 12


def test_no_work_goes_on_after_a_refusal(monkeypatch):
    """A key problem is refused while the thread still has work: what has not started never starts, and what has
    is over by the time validation answers."""
    events: list[tuple[str, float]] = []
    slow_parse = beside.parse_costs

    def parse_costs(columns):
        events.append(("start", time.perf_counter()))
        time.sleep(0.05)
        out = slow_parse(columns)
        events.append(("end", time.perf_counter()))
        return out

    monkeypatch.setattr(beside, "parse_costs", parse_costs)
    table = _table()
    _duplicate_key(table)
    with pytest.raises(InputError, match="duplicate"):
        validate(table, make_policy(baseline="r1"))
    answered = time.perf_counter()
    time.sleep(0.2)
    assert all(at <= answered for _, at in events)
    assert [name for name, _ in events] in ([], ["start", "end"])
    for thread in threading.enumerate():
        if thread.name.startswith("releasegate-validate"):
            thread.join(timeout=5)
            assert not thread.is_alive()
