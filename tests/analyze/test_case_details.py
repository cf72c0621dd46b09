"""What the case explorer lists beside the broken and fixed cases (analyze/case_details.py): the unchanged cases of
a small suite and each listed case's latency and cost change, checked against figures computed from the input
files by hand."""

from __future__ import annotations

import csv
import tomllib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import build_report


def _rows(path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_latency_and_cost_changes_are_the_input_files(example, example_report):
    prices = tomllib.loads(example["releasegate.toml"].read_text(encoding="utf-8"))["prices"]
    latency, cost = {}, {}
    for row in _rows(example["eval_results.csv"]):
        key = (row["release"], row["case_id"])
        latency[key] = float(row["latency_ms"])
        price = prices[row["release"]]
        cost[key] = (int(row["input_tokens"]) * price["input_per_million"]
                     + int(row["output_tokens"]) * price["output_per_million"]) / 1e6
    for cand in example_report.analysis.candidates:
        details = cand.details
        assert len(details.latency_change) == len(details.cost_change) == example_report.analysis.n_cases
        for case_id, change in details.latency_change.items():
            assert change == pytest.approx(latency[(cand.name, case_id)] - latency[("r1-live", case_id)], abs=1e-9)
            assert details.cost_change[case_id] == pytest.approx(
                cost[(cand.name, case_id)] - cost[("r1-live", case_id)], rel=1e-9, abs=1e-15)
        changed = {c.case_id for c in (*cand.broken_cases, *cand.fixed_cases)}
        unchanged = {c.case_id for c in details.unchanged}
        assert not changed & unchanged and changed | unchanged == set(details.latency_change)
        assert all(c.baseline_outcome == c.candidate_outcome for c in details.unchanged)


def test_with_runs_the_change_is_of_the_median_latency_and_missing_sides_are_left_out(tmp_path):
    lines = ["release,case_id,run,passed,latency_ms"]
    latencies = {"r1": {"a": (100, 300, 200), "b": (50, 50, 50)}, "r2": {"a": (400, 100, 1000), "b": (None,) * 3}}
    for release, cases in latencies.items():
        for case_id, values in cases.items():
            for run, value in enumerate(values):
                passed = 0 if (release, case_id) == ("r2", "a") else 1
                lines.append(f"{release},{case_id},{run},{passed},{'' if value is None else value}")
    (tmp_path / "r.csv").write_text("\n".join(lines) + "\n")
    report = build_report(tmp_path / "r.csv", baseline="r1")
    (cand,) = report.analysis.candidates
    assert cand.details.latency_change == {"a": 400.0 - 200.0}  # b has no latency on r2: no change to show
    assert cand.details.cost_change == {}
    assert [c.case_id for c in cand.details.unchanged] == ["b"] and cand.details.unchanged_total == 1


def test_no_latency_and_no_prices_leave_the_changes_empty(tmp_path):
    (tmp_path / "r.csv").write_text("release,case_id,passed\nr1,a,1\nr1,b,1\nr2,a,0\nr2,b,1\n")
    (cand,) = build_report(tmp_path / "r.csv", baseline="r1").analysis.candidates
    assert cand.details.latency_change == {} and cand.details.cost_change == {}
    assert [c.case_id for c in cand.details.unchanged] == ["b"]


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.integers(1, 30), st.sampled_from(["blocks", "blocks unsorted", "interleaved", "runs"]),
       st.integers(0, 2**32 - 1))
def test_the_listed_rows_found_by_search_are_the_rows_a_scan_finds(n, layout, seed) -> None:
    """Each release one block of rows in case order: the listed cases' rows are searched for, and are the rows the
    scan of every row finds, in the table's order; any other layout is scanned."""
    import numpy as np
    import pandas as pd

    from releasegate.analyze.case_details import _listed_mask, _listed_rows

    rng = np.random.default_rng(seed)
    case_dtype = pd.CategoricalDtype([f"c{i:03d}" for i in range(n)])
    blocks = []
    for release in ("r0", "r1", "r2"):  # r0 is a release not compared, before the two that are
        held = np.flatnonzero(rng.random(n) < 0.8)
        held = held if held.size else np.array([n - 1])  # a release compared holds a case
        if layout == "runs":
            held = np.repeat(held, 2)
        elif layout == "blocks unsorted":
            held = rng.permutation(held)
        blocks.append(pd.DataFrame({"case_id": pd.Categorical.from_codes(held, dtype=case_dtype),
                                    "release": release, "latency_ms": rng.random(held.size)}))
    table = pd.concat(blocks, ignore_index=True)
    table["release"] = table["release"].astype("category")
    if layout == "interleaved":
        table = table.iloc[rng.permutation(len(table))].reset_index(drop=True)
    listed = np.sort(rng.choice(n, rng.integers(0, n + 1), replace=False))
    ids = pd.CategoricalIndex(pd.Categorical.from_codes(listed, dtype=case_dtype))
    assert ids.categories is table["case_id"].cat.categories
    rows = _listed_rows(table, ("r1", "r2"), ids)
    scanned = np.flatnonzero(_listed_mask(table, ("r1", "r2"), ids))
    if layout == "blocks":
        assert rows is not None
    if rows is not None:
        assert rows.tolist() == scanned.tolist()
    elif layout == "blocks":
        raise AssertionError("the common layout was scanned")


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.lists(st.integers(0, 20), max_size=15, unique=True), st.lists(st.integers(0, 20), max_size=15, unique=True),
       st.booleans())
def test_the_cases_on_both_sides_are_the_intersection(base_codes, cand_codes, same) -> None:
    """_shared's positions of the cases on both sides: numpy's intersection, also when it is not computed (both
    sides the same cases in the same sorted order)."""
    import numpy as np
    import pandas as pd

    from releasegate.analyze.case_details import _shared

    dtype = pd.CategoricalDtype([f"c{i:02d}" for i in range(21)])
    if same:
        base_codes = cand_codes = sorted(base_codes)
    base, cand = (pd.CategoricalIndex(pd.Categorical.from_codes(c, dtype=dtype)) for c in (base_codes, cand_codes))
    names, at_base, at_cand = _shared(base, cand)
    codes, expected_base, expected_cand = np.intersect1d(np.array(base_codes, dtype=int), np.array(cand_codes, dtype=int),
                                                         assume_unique=True, return_indices=True)
    assert names.tolist() == [f"c{i:02d}" for i in codes]
    assert at_base.tolist() == expected_base.tolist() and at_cand.tolist() == expected_cand.tolist()
