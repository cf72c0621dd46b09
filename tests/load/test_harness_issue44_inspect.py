"""Genuine Inspect AI 0.3.285 logs of scripted mockllm models (tests/fixtures/harness/issue44/inspect-0.3.285/,
scripts/fixtures/make_inspect_issue44.py): epochs that errored under at_least_1 and under the mean, partial
credit graded by a model, the grader's tokens, and a category in the samples' metadata (issue 44 item 5, issue 47
items 5 and 6).

Every expected figure was computed by scripts/fixtures/expected_issue44.py through inspect_ai.log.read_eval_log,
never by releasegate, and is frozen here.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import run_cli

INSPECT = Path(__file__).parents[1] / "fixtures" / "harness" / "issue44" / "inspect-0.3.285"


def _report(tmp_path: Path, folder: Path, *extra: str, expect=(0, 1, 3)) -> dict:
    out = tmp_path / "r.json"
    result = run_cli("report", folder, "--baseline", "mockllm/base", *extra, "-o", out)
    assert result.exit_code in expect, result.output
    return json.loads(out.read_text())


# ---------------------------------------------------------------- errored epochs


@pytest.mark.parametrize("folder, rates, broke, inspect", [
    # at_least_1: Inspect's reductions without the samples errored in an epoch on either side (s03, s05, s14):
    # 15 samples, 11/15 and 10/15, cand broke s13; Inspect's own accuracies 0.7778 and 0.6667 on 18.
    ("epochs-errored", (0.733333, 0.666667), ["s13"], ("0.7778", "0.6667")),
    # mean: the same 15 samples, each the mean over its 3 epochs: 0.688889 and 0.6; lower on s06 and s13.
    ("epochs-errored-mean", (0.688889, 0.6), ["s06", "s13"], ("0.7407", "0.6111")),
])
def test_a_sample_errored_in_some_epochs_is_an_errored_case_on_both_reducer_paths(tmp_path, folder, rates, broke,
                                                                                  inspect):
    report = _report(tmp_path, INSPECT / folder)
    candidate = report["candidates"][0]
    overall = candidate["overall"]
    assert overall["n"] == 15
    assert (overall["baseline_rate"], overall["candidate_rate"]) == pytest.approx(rates, abs=1e-6)
    assert sorted(c["case_id"] for c in candidate["broken_cases"]) == broke
    errors = candidate["errors"]
    assert sorted((c["case_id"], c["side"]) for c in errors["cases"]) == [
        ("s03", "both"), ("s05", "candidate"), ("s14", "candidate")]
    notes = "\n".join(report["notes"])
    assert "1 sample errored in some of its 3 epochs (s03): it is an errored case here" in notes
    assert "3 samples errored in some of their 3 epochs (s03, s05, s14)" in notes
    assert "whether the epochs are runs (mean) or reduced" in notes
    for accuracy in inspect:
        assert f"its accuracy ({accuracy}) counts" in notes
    assert "Inspect's own figures" not in notes  # these are not Inspect's figures: its 18 include the errored


def test_a_reduced_log_without_errors_still_claims_inspects_own_figures(tmp_path):
    third = Path(__file__).parents[1] / "fixtures" / "harness" / "third" / "inspect-0.3.285" / "reducer-at_least_1"
    report = _report(tmp_path, third)
    assert any("Inspect's own figures" in n for n in report["notes"])
    assert not any("errored in some" in n for n in report["notes"])


# ---------------------------------------------------------------- partial credit and the grader's tokens


def test_partial_credit_is_a_fail_of_the_pass_fail_gate_and_the_note_says_so(tmp_path):
    """model_graded_qa(partial_credit=True): base graded P on 2 samples, cand on 3 (expected_issue44.py). A P is
    a fail here: pass rates 15/18 and 14/18, fixed 1 (s08), broke 2 (s12, s15)."""
    report = _report(tmp_path, INSPECT / "partial-credit")
    overall = report["candidates"][0]["overall"]
    assert (overall["baseline_rate"], overall["candidate_rate"]) == pytest.approx((0.833333, 0.777778), abs=1e-6)
    assert (overall["fixed"], overall["broke"]) == (1, 2)
    notes = "\n".join(report["notes"])
    assert "(mockllm/base): 2 of 18 answers graded P (partial credit) by model_graded_qa" in notes
    assert "(mockllm/cand): 3 of 18 answers graded P" in notes
    assert "reads a P as a fail, where Inspect's accuracy counts it 0.5" in notes


def test_gating_on_the_score_reads_inspects_values(tmp_path):
    """--score-col score: Inspect's own accuracies, 0.888889 and 0.861111 (P counted 0.5); the P note, about the
    pass/fail gate, is not said."""
    report = _report(tmp_path, INSPECT / "partial-credit", "--score-col", "score")
    overall = report["candidates"][0]["overall"]
    assert (overall["baseline_rate"], overall["candidate_rate"]) == pytest.approx((0.888889, 0.861111), abs=1e-6)
    assert not any("graded P" in n for n in report["notes"])


def test_the_graders_tokens_are_kept_apart_from_the_releases(tmp_path):
    """The release's own tokens: base 216 + 54, cand 216 + 162 over 18 samples (15 and 21 a case), a ratio of
    1.4; with the grader's 3,240 + 1,080 on each side it would read 1.023529 (expected_issue44.py)."""
    report = _report(tmp_path, INSPECT / "partial-credit")
    tokens = report["candidates"][0]["costs"]["tokens"]
    assert (tokens["baseline_per_case"], tokens["candidate_per_case"]) == (15.0, 21.0)
    assert tokens["ratio"] == pytest.approx(1.4)
    assert any("tokens of other models in the samples (mockllm/grader: 3,240 input, 1,080 output" in n
               for n in report["notes"])


# ---------------------------------------------------------------- metadata and the title


def test_a_category_in_sample_metadata_is_used_without_a_flag_under_the_tasks_name(tmp_path):
    """Task bank_words, metadata category: base passes Billing 5/6, Fraud 5/6, Safety 6/6; cand 6/6, 6/6, 2/6
    (expected_issue44.py). The logs sit in a folder named logs/: the title is the task's, not the folder's."""
    logs = tmp_path / "logs"
    shutil.copytree(INSPECT / "metadata-category", logs)
    report = _report(tmp_path, logs)
    rates = {c["category"]: (c["baseline_rate"], c["candidate_rate"]) for c in report["candidates"][0]["categories"]}
    assert rates == {"Billing": pytest.approx((5 / 6, 1.0)), "Fraud": pytest.approx((5 / 6, 1.0)),
                     "Safety": pytest.approx((1.0, 2 / 6))}
    assert "Inspect task bank_words: the category is each sample's metadata field 'category' (3 categories)." \
        in report["notes"]
    assert report["title"] == "bank_words"
    out = tmp_path / "r.md"
    run_cli("report", logs, "--baseline", "mockllm/base", "--comment", tmp_path / "c.md", "-o", out)
    assert "## Release note: bank\\_words" in out.read_text()
    assert "## Release gate: bank\\_words" in (tmp_path / "c.md").read_text()  # the PR comment


def test_another_metadata_field_is_named_with_category_col_and_a_wrong_one_lists_the_fields(tmp_path):
    report = _report(tmp_path, INSPECT / "metadata-category", "--category-col", "subject")
    assert {c["category"] for c in report["candidates"][0]["categories"]} == {"topic-0", "topic-1"}
    assert not any("metadata field 'category'" in n for n in report["notes"])  # not the category read
    result = run_cli("check", INSPECT / "metadata-category", "--baseline", "mockllm/base", "--category-col", "topic")
    assert result.exit_code == 2
    assert "category" in result.output and "subject" in result.output and "--category-col" in result.output
