"""Genuine files of the four harnesses' current releases (tests/fixtures/harness/issue44/, written by the
scripts/fixtures/make_*_issue44 scripts): a dataset changed between the baseline's run and the candidate's, a
mixed-task lm-eval folder, and runs missing on one side (issue 44 items 1, 2, 4 and 8).

Every expected figure below was computed by scripts/fixtures/expected_issue44.py from the harness's own structure
(Inspect through read_eval_log, lm-eval's samples and results files, promptfoo's JSON, evals' records), never by
releasegate, and is frozen here. "By content" pairs the cases whose question and answer key are the same on both
sides; "by id" pairs equal ids, which across a changed dataset compares different questions.

The adapters' part is that their columns let pairing tell the two apart: here a join on ``content_hash`` gives
the by-content figures and the ids flagged ``id_is_position`` are those a dataset change moves. The refusal
itself is the pairing stage's; its end-to-end tests run once that stage (``--allow-changed``) is on the branch.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from conftest import run_cli
from releasegate.load import Source, load_results
from releasegate.load.fingerprint import CONTENT_COLUMN, POSITION_COLUMN

ISSUE44 = Path(__file__).parents[1] / "fixtures" / "harness" / "issue44"
INSPECT, LM_EVAL = ISSUE44 / "inspect-0.3.285", ISSUE44 / "lm-eval-0.4.13"
PROMPTFOO, EVALS = ISSUE44 / "promptfoo-0.123.1", ISSUE44 / "evals-3.0.1.post1"


def _sides(kind: str, folder: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The baseline's and the candidate's rows, each file read alone."""
    if kind == "inspect":
        paths = {read_one(p)["release"].iloc[0].split("/")[-1]: p for p in folder.glob("*.eval")}
    elif kind == "lm-eval":
        paths = {m: folder / m for m in ("base", "cand")}
    elif kind == "promptfoo":
        paths = {m: folder / f"{m}.json" for m in ("base", "cand")}
    else:
        paths = {m: folder / f"{m}.jsonl" for m in ("base", "cand")}
    return read_one(paths["base"], "base"), read_one(paths["cand"], "cand")


def read_one(path: Path, release: str | None = None) -> pd.DataFrame:
    return load_results([Source(path, release)]).table


def _changes(base: pd.DataFrame, cand: pd.DataFrame, on: str) -> dict[str, int]:
    joined = base.merge(cand, on=on, suffixes=("_b", "_c"))
    return {"shared": len(joined), "fixed": int(((joined.passed_b == 0) & (joined.passed_c == 1)).sum()),
            "broke": int(((joined.passed_b == 1) & (joined.passed_c == 0)).sum())}


def _passes(frame: pd.DataFrame) -> pd.DataFrame:
    outcome = frame["passed"] if "passed" in frame else frame["score"]
    return frame.assign(passed=outcome)[["case_id", "passed", CONTENT_COLUMN, POSITION_COLUMN]]


# (harness, folder, position ids, ids whose content differs, by id, by content) from expected_issue44.py
CHANGED = [
    ("inspect", INSPECT / "changed-replaced", False, ["s05"],
     {"shared": 18, "fixed": 1, "broke": 3}, {"shared": 17, "fixed": 1, "broke": 2}),
    ("inspect", INSPECT / "changed-inserted", True, [str(i) for i in range(1, 19)],
     {"shared": 18, "fixed": 3, "broke": 4}, {"shared": 18, "fixed": 0, "broke": 1}),
    ("lm-eval", LM_EVAL / "changed-replaced", True, ["4"],
     {"shared": 20, "fixed": 5, "broke": 7}, {"shared": 19, "fixed": 4, "broke": 7}),
    ("lm-eval", LM_EVAL / "changed-inserted", True, [str(i) for i in range(20)],
     {"shared": 20, "fixed": 4, "broke": 7}, {"shared": 20, "fixed": 4, "broke": 7}),
    ("promptfoo", PROMPTFOO / "changed-replaced", False, ["t5"],
     {"shared": 12, "fixed": 3, "broke": 2}, {"shared": 11, "fixed": 2, "broke": 2}),
    ("promptfoo", PROMPTFOO / "changed-inserted", False, [],
     {"shared": 12, "fixed": 2, "broke": 2}, {"shared": 12, "fixed": 2, "broke": 2}),
    ("evals", EVALS / "changed-replaced", True, ["words.dev.4"],
     {"shared": 12, "fixed": 3, "broke": 2}, {"shared": 11, "fixed": 2, "broke": 2}),
    ("evals", EVALS / "changed-inserted", True, [f"words.dev.{i}" for i in range(12)],
     {"shared": 12, "fixed": 1, "broke": 0}, {"shared": 12, "fixed": 3, "broke": 2}),
]


@pytest.mark.parametrize("kind, folder, position, differ, by_id, by_content", CHANGED,
                         ids=[f"{c[0]}-{c[1].name}" for c in CHANGED])
def test_a_changed_dataset_is_told_apart_by_the_adapters_columns(kind, folder, position, differ, by_id, by_content):
    base, cand = (_passes(f) for f in _sides(kind, folder))
    for frame in (base, cand):
        assert frame[CONTENT_COLUMN].notna().all()
        assert frame[POSITION_COLUMN].eq(position).all()
    joined = base.merge(cand, on="case_id", suffixes=("_b", "_c"))
    changed = joined.loc[joined[f"{CONTENT_COLUMN}_b"] != joined[f"{CONTENT_COLUMN}_c"], "case_id"]
    assert sorted(changed) == sorted(differ)
    assert _changes(base, cand, "case_id") == by_id
    # One case per fingerprint on each side, so that the join on content pairs each question with itself.
    assert base[CONTENT_COLUMN].is_unique and cand[CONTENT_COLUMN].is_unique
    assert _changes(base, cand, CONTENT_COLUMN) == by_content


def _pairing_stage_present() -> bool:
    return "--allow-changed" in run_cli("check", "--help").output


needs_pairing = pytest.mark.skipif(not _pairing_stage_present(),
                                   reason="the pairing stage (--allow-changed) is not on this branch yet")


def _inputs(kind: str, folder: Path) -> list[str]:
    if kind == "inspect":
        return [str(folder)]
    suffix = {"lm-eval": "", "promptfoo": ".json", "evals": ".jsonl"}[kind]
    return [f"{m}={folder / (m + suffix)}" for m in ("base", "cand")]


@needs_pairing
@pytest.mark.parametrize("kind, folder, position, differ, by_id, by_content", [c for c in CHANGED if c[3]],
                         ids=[f"{c[0]}-{c[1].name}" for c in CHANGED if c[3]])
def test_a_changed_dataset_is_refused_and_once_allowed_each_question_is_compared_with_itself(
        tmp_path, kind, folder, position, differ, by_id, by_content):
    """Refused by default; with the changed (named ids) and the unmatched (position ids, re-keyed by content)
    cases allowed, the comparison is the by-content one."""
    baseline = "mockllm/base" if kind == "inspect" else "base"
    refused = run_cli("check", *_inputs(kind, folder), "--baseline", baseline)
    assert refused.exit_code == 2 and "error[pairing]" in refused.output, refused.output
    out = tmp_path / "r.json"
    result = run_cli("report", *_inputs(kind, folder), "--baseline", baseline, "--allow-changed", "--allow-missing",
                     "-o", out)
    assert result.exit_code in (0, 1, 3), result.output
    overall = json.loads(out.read_text())["candidates"][0]["overall"]
    assert {"shared": overall["n"], "fixed": overall["fixed"], "broke": overall["broke"]} == by_content


@needs_pairing
@pytest.mark.parametrize("kind, folder, shown", [
    ("inspect", INSPECT / "changed-replaced", ("'s05': 'Say the word w5.'", "'Say the word z5.'")),
    ("promptfoo", PROMPTFOO / "changed-replaced", ("'t5': 'Say the word maple'", "'Say the word lantern'")),
], ids=["inspect", "promptfoo"])
def test_the_refusal_of_a_changed_case_shows_its_old_and_new_input(kind, folder, shown):
    """The adapters keep a fingerprint and the input beside it: the line shows the input, not the fingerprint."""
    baseline = "mockllm/base" if kind == "inspect" else "base"
    refused = run_cli("check", *_inputs(kind, folder), "--baseline", baseline)
    assert refused.exit_code == 2
    assert all(text in refused.output for text in shown), refused.output


# ---------------------------------------------------------------- missing runs


def test_runs_missing_on_one_side_reach_pairing_as_fewer_runs():
    """Inspect: base ran 3 epochs, cand 2 (expected_issue44.py: 54 and 36 rows); promptfoo: --repeat 3 against
    --repeat 2. Each case keeps its run numbers, so pairing sees the candidate's third run missing."""
    for base, cand in (_sides("inspect", INSPECT / "missing-epochs"),
                       _sides("promptfoo", PROMPTFOO / "missing-runs")):
        assert (len(base), len(cand)) in ((54, 36), (36, 24))
        assert base.groupby("case_id")["run"].nunique().eq(3).all()
        assert cand.groupby("case_id")["run"].nunique().eq(2).all()
        assert set(cand["run"]) == {1, 2}


@needs_pairing
@pytest.mark.parametrize("inputs", [[str(INSPECT / "missing-epochs"), "--baseline", "mockllm/base"],
                                    [f"base={PROMPTFOO / 'missing-runs' / 'base.json'}",
                                     f"cand={PROMPTFOO / 'missing-runs' / 'cand.json'}", "--baseline", "base"]])
def test_missing_runs_are_refused(inputs):
    result = run_cli("check", *inputs)
    assert result.exit_code == 2, result.output


# ---------------------------------------------------------------- lm-eval, tasks of three kinds


def test_a_mixed_task_lm_eval_folder_reads_right_with_no_option(tmp_path):
    """qa_correct (`correct`, 0/1), qa_wrong (`wrong`, higher_is_better false) and qa_mc (`acc`) over 40
    documents each. expected_issue44.py, from the samples records: 120 documents, pass rates 0.816667 and 0.775,
    fixed 16, broke 21; lm-eval's own results: correct 0.825 / 0.775, wrong 0.175 / 0.225, acc 0.8 / 0.775."""
    for extra in ((), ("--missing", "fail"), ("--metric", "qa_correct=correct,qa_wrong=wrong,qa_mc=acc")):
        out = tmp_path / "r.json"
        result = run_cli("report", LM_EVAL / "mixed", "--baseline", "base", *extra, "-o", out)
        assert result.exit_code in (0, 1, 3), result.output
        report = json.loads(out.read_text())
        overall = report["candidates"][0]["overall"]
        assert (overall["n"], overall["fixed"], overall["broke"]) == (120, 16, 21)
        assert (overall["baseline_rate"], overall["candidate_rate"]) == (pytest.approx(0.816667, abs=1e-6),
                                                                         pytest.approx(0.775))
        rates = {c["category"]: (c["baseline_rate"], c["candidate_rate"])
                 for c in report["candidates"][0]["categories"]}
        assert rates == {"qa_correct": pytest.approx((0.825, 0.775)), "qa_wrong": pytest.approx((0.825, 0.775)),
                         "qa_mc": pytest.approx((0.8, 0.775))}
        assert report["title"] == "qa_correct, qa_mc, qa_wrong"
