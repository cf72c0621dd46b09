"""A run store as the gate's input (report / check STORE_DIR), the Python API, exit codes and the example."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd

import releasegate
from conftest import run_cli
from releasegate.run.store import Store
from run_support import write_cases, write_config

ROOT = Path(__file__).resolve().parents[2]


def _fake_config(tmp_path, rates=None, runs=2, n=40):
    cases = write_cases(tmp_path / "cases.csv", n)
    systems = [{"name": "live", "kind": "fake", "accuracy": 0.9, "input_per_million": 1.0, "output_per_million": 4.0,
                **(rates or {})},
               {"name": "cand", "kind": "fake", "accuracy": 0.6, "seed": 2, "input_per_million": 0.5,
                "output_per_million": 2.0, **(rates or {})}]
    return write_config(tmp_path / "run.toml", {"cases": cases.name, "store": "store", "runs": runs,
                                                "max_attempts": 1}, systems, {"name": "correct", "kind": "exact"})


def test_exit_codes_and_the_store_read_like_a_results_file(tmp_path):
    path = _fake_config(tmp_path)
    out = tmp_path / "results.csv"
    done = run_cli("run", path, "-o", out)
    assert done.exit_code == 0, done.output
    assert "complete: 160 cells" in done.output and "run: 160 system call(s)" in done.output
    table = pd.read_csv(out)
    for column in ("release", "case_id", "run", "passed", "error", "latency_ms", "input_tokens", "output_tokens",
                   "cost", "output", "category", "input", "reference"):
        assert column in table.columns
    assert len(table) == 160 and table["passed"].notna().all()

    from_store = run_cli("check", tmp_path / "store", "--baseline", "live")
    from_file = run_cli("check", out, "--baseline", "live")
    assert from_store.exit_code == 1 and from_store.output == from_file.output  # the candidate is much worse
    report = tmp_path / "note.json"
    assert run_cli("report", tmp_path / "store", "--baseline", "live", "-o", report).exit_code == 0
    text = report.read_text()
    assert "run-store" in text and "answers recorded from model fake-cand" in text


def test_holes_give_exit_4_and_the_gate_refuses_them_unless_dropped(tmp_path):
    path = _fake_config(tmp_path, {"rate_5xx": 0.1})
    done = run_cli("run", path)
    assert done.exit_code == 4 and "run again to resume" in done.output
    refused = run_cli("check", tmp_path / "store", "--baseline", "live")
    assert refused.exit_code == 2 and "cells missing or errored: run again to resume" in refused.output
    assert len(refused.output.strip().splitlines()) == 1
    note = tmp_path / "note.json"
    kept = run_cli("report", tmp_path / "store", "--baseline", "live", "--drop-holes", "-o", note)
    assert kept.exit_code == 0, kept.output
    with Store(tmp_path / "store") as db:
        errored = {(c["release"], c["case_id"]) for c in db.cells() if c["status"] != "ok"}
    # Errored cells are the error state, never dropped: every case errored on either side is in the errored
    # view and the errors section, and the notes say how many cells of each release errored.
    report = json.loads(note.read_text())
    cand = report["candidates"][0]
    either = {case for _, case in errored}
    assert cand["case_view"]["errored_total"] == cand["errors"]["excluded"] == len(either) > 0
    on = {release: {c for r, c in errored if r == release} for release in ("live", "cand")}
    assert cand["errors"]["candidate_errored"] == len(on["cand"] - on["live"])
    assert cand["errors"]["both_errored"] == len(on["cand"] & on["live"])
    notes = json.dumps(report)
    for release in ("live", "cand"):
        count = sum(1 for r, _ in errored if r == release)
        assert f"{release}: {count} of its 80 cells" in notes
    assert "case(s) dropped" not in notes


def test_a_candidate_that_errored_on_a_third_of_the_cases_is_not_judged_silently_on_the_rest(tmp_path):
    cases = write_cases(tmp_path / "cases.csv", 100)
    systems = [{"name": "live", "kind": "fake", "accuracy": 0.9},
               {"name": "cand", "kind": "fake", "accuracy": 0.9, "seed": 5, "rate_5xx": 0.31}]
    path = write_config(tmp_path / "run.toml", {"cases": cases.name, "store": "store", "max_attempts": 1},
                        systems, {"name": "correct", "kind": "exact"})
    assert run_cli("run", path).exit_code == 4
    with Store(tmp_path / "store") as db:
        errored = db.count_cells("error")
    assert 20 <= errored <= 45  # about 31 of 100
    check = run_cli("check", tmp_path / "store", "--baseline", "live", "--drop-holes")
    assert f"{errored} of 100 cases errored" in check.output
    note = tmp_path / "note.md"
    assert run_cli("report", tmp_path / "store", "--baseline", "live", "--drop-holes", "-o", note).exit_code in (0, 1)
    text = note.read_text()
    assert f"cand: {errored} of its 100 cells ({errored / 100:.0%}) errored in the run store" in text
    assert f"{errored} of 100 cases errored and left the comparison" in text


def test_a_directory_that_is_not_a_store_is_refused(tmp_path):
    (tmp_path / "empty").mkdir()
    done = run_cli("check", tmp_path / "empty")
    assert done.exit_code == 2 and "is a directory" in done.output


def test_python_api_returns_table_and_complete(tmp_path):
    def bot(case, run):
        return case["reference"]

    async def other(case, run):
        return {"output": "nope", "usage": {"input_tokens": 3, "output_tokens": 1, "cost": 0.001}}

    result = releasegate.run_systems(systems={"a": bot, "b": other}, cases=write_cases(tmp_path / "c.csv", 5),
                             metric="exact", runs=2, store=tmp_path / "s", max_concurrency=2)
    assert result.complete
    assert result.table.groupby("release")["passed"].mean().to_dict() == {"a": 1.0, "b": 0.0}
    assert result.table.loc[result.table.release == "b", "cost"].tolist() == [0.001] * 10

    def flaky(case, run):
        if case["case_id"] == "C0001":
            raise RuntimeError("boom")
        return None if case["case_id"] == "C0002" else "x"

    broken = releasegate.run_systems(systems={"f": flaky}, cases=tmp_path / "c.csv", metric="exact", store=tmp_path / "t",
                             max_attempts=2, backoff_s=0.0)
    assert not broken.complete
    kinds = {h.case_id: (h.kind, h.attempts) for h in broken.holes}
    assert kinds == {"C0001": ("exception", 2), "C0002": ("empty", 2)}
    assert "RuntimeError: boom" in broken.table.set_index("case_id").loc["C0001", "error"]


def test_the_example_runs_offline(tmp_path):
    shutil.copytree(ROOT / "examples" / "run", tmp_path / "run", ignore=shutil.ignore_patterns("store"))
    config = tmp_path / "run" / "releasegate-run.toml"
    assert run_cli("run", config).exit_code == 0
    note = tmp_path / "note.md"
    done = run_cli("report", tmp_path / "run" / "store", "--baseline", "r1-live", "-o", note)
    assert done.exit_code == 0 and "r2-candidate" in note.read_text()


def test_demo_writes_the_run_example_and_it_is_the_repository_one(tmp_path):
    done = run_cli("demo", "--run", tmp_path / "d")
    assert done.exit_code == 0 and f"releasegate run {tmp_path / 'd' / 'releasegate-run.toml'}" in done.output
    for name in ("releasegate-run.toml", "cases.csv"):
        assert (tmp_path / "d" / name).read_bytes() == (ROOT / "examples" / "run" / name).read_bytes()
    assert run_cli("run", tmp_path / "d" / "releasegate-run.toml").exit_code == 0
    assert run_cli("check", tmp_path / "d" / "store", "--baseline", "r1-live").exit_code in (0, 1, 3)
