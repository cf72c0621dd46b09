"""The labelling sheet (issue 35 item 1): ``releasegate run --labelling-sheet FILE`` writes sampled cases with
every release's answer and an empty label column; the filled sheet read back with ``--gold`` gives the judge
section; an unfilled sheet is refused, and an existing sheet (it may hold labels) is never overwritten."""

from __future__ import annotations

import json

import pandas as pd

from conftest import run_cli
from releasegate.run.labelling import labelling_sheet
from run_support import write_cases, write_config


def _config(tmp_path, runs=1, n=200):
    cases = write_cases(tmp_path / "cases.csv", n)
    systems = [{"name": "live", "kind": "fake", "accuracy": 0.9},
               {"name": "cand", "kind": "fake", "accuracy": 0.8, "seed": 2}]
    return write_config(tmp_path / "run.toml", {"cases": cases.name, "store": "store", "runs": runs,
                                                "max_attempts": 1}, systems, {"name": "correct", "kind": "exact"})


def test_the_sheet_round_trips_through_gold(tmp_path):
    config = _config(tmp_path)
    sheet = tmp_path / "sheet.csv"
    done = run_cli("run", config, "--labelling-sheet", sheet, "--labels", "60")
    assert done.exit_code == 0, done.output
    assert "60 cases to label" in done.output
    rows = pd.read_csv(sheet, dtype=str, keep_default_na=False)
    assert list(rows.columns) == ["case_id", "release", "category", "input", "reference", "answer", "label"]
    assert rows["case_id"].nunique() == 60 and len(rows) == 120 and (rows["label"] == "").all()
    # Both releases' answers of a case on adjacent rows, baseline first.
    assert (rows["release"].to_numpy()[::2] == "live").all() and (rows["release"].to_numpy()[1::2] == "cand").all()
    assert (rows["case_id"].to_numpy()[::2] == rows["case_id"].to_numpy()[1::2]).all()

    unfilled = run_cli("report", tmp_path / "store", "--baseline", "live", "--gold", sheet, "-o", tmp_path / "n.json")
    assert unfilled.exit_code == 2 and "have no label" in unfilled.output

    # The human agrees with the exact-match metric: the judge's TPR is 1 and its FPR 0 on both releases.
    rows["label"] = ["pass" if a == r else "fail" for a, r in zip(rows["answer"], rows["reference"], strict=True)]
    rows.to_csv(sheet, index=False)
    note = tmp_path / "note.json"
    read = run_cli("report", tmp_path / "store", "--baseline", "live", "--gold", sheet, "-o", note)
    assert read.exit_code == 0, read.output
    judge = json.loads(note.read_text())["candidates"][0]["judge"]
    for side in ("baseline", "candidate"):
        agreement = judge[side]["agreement"]
        assert agreement["n"] == 60 and agreement["tpr"]["estimate"] == 1.0 and agreement["fpr"]["estimate"] == 0.0
    assert judge["corrected"]["paired_cases"] == 60

    again = run_cli("run", config, "--labelling-sheet", sheet)
    assert again.exit_code == 2 and "may hold a human's labels" in again.output
    assert pd.read_csv(sheet)["label"].notna().all()  # the labels are still there


def test_with_runs_every_run_of_a_sampled_case_is_on_the_sheet(tmp_path):
    table = pd.DataFrame({"release": ["a", "a", "b", "b"] * 3, "case_id": [f"c{i}" for i in range(3) for _ in range(4)],
                          "run": [0, 1] * 6, "output": ["x"] * 12, "error": [None] * 12})
    sheet = labelling_sheet(table, labels=2, seed=1)
    assert list(sheet.columns) == ["case_id", "release", "run", "answer", "label"]
    assert sheet["case_id"].nunique() == 2 and len(sheet) == 8
    # A case with a hole on one release is never drawn: its label could not be compared.
    holed = table.assign(output=["x"] * 11 + [None])
    assert "c2" not in set(labelling_sheet(holed, labels=3, seed=1)["case_id"])


def test_labels_without_a_sheet_and_a_sheet_that_is_not_csv_are_refused(tmp_path):
    config = _config(tmp_path, n=20)
    alone = run_cli("run", config, "--labels", "10")
    assert alone.exit_code == 2 and "--labelling-sheet" in alone.output
    parquet = run_cli("run", config, "--labelling-sheet", tmp_path / "s.parquet")
    assert parquet.exit_code == 2 and ".csv" in parquet.output
