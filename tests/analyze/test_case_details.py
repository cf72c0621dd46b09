"""What the case explorer lists beside the broken and fixed cases (analyze/case_details.py): the unchanged cases of
a small suite and each listed case's latency and cost change, checked against figures computed from the input
files by hand."""

from __future__ import annotations

import csv
import tomllib

import pytest

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
