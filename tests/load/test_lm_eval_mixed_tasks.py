"""An lm-eval folder of two kinds of task reads right with no option (issue 44 item 4): each task's outcome comes
from its own metric, a 0/1 metric not named like an accuracy (``wrong``, lower is better) beside a pass/fail one
(``exact_match``), and ``--missing fail`` never turns a task's scored rows into failures.

The files are the genuine lm-eval 0.4.13 output of tests/fixtures/harness/third/ (scripts/fixtures/
make_lm_eval_third.sh); each test copies two tasks of each model into a folder of their own. Expected figures
are computed here from the samples records themselves: a doc passes words_wrong when ``wrong`` is 0, and
words_two_filters when ``exact_match`` under strict-match (the first filter) is 1.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import run_cli
from releasegate.errors import InputError
from releasegate.load import Source, load_results

THIRD = Path(__file__).parents[1] / "fixtures" / "harness" / "third" / "lm-eval-0.4.13"
TASKS = ("words_wrong", "words_two_filters")


def _folder(tmp_path: Path, model: str, tasks=TASKS) -> Path:
    out = tmp_path / model
    out.mkdir()
    for path in (THIRD / model).glob("results_*.json"):
        shutil.copy(path, out)
    for task in tasks:
        for path in (THIRD / model).glob(f"samples_{task}_*.jsonl"):
            shutil.copy(path, out)
    return out


def _passes(model: str) -> dict[str, float]:
    """case id -> 1.0 pass / 0.0 fail, from the raw records."""
    out = {}
    for task, key, passing in (("words_wrong", "wrong", 0), ("words_two_filters", "exact_match", 1)):
        (path,) = (THIRD / model).glob(f"samples_{task}_*.jsonl")
        records = [json.loads(line) for line in path.read_text().splitlines()]
        first_filter = records[0]["filter"]
        out.update({f"{task}/{r['doc_id']}": float(r[key] == passing) for r in records
                    if r["filter"] == first_filter})
    return out


BASE, CAND = _passes("base"), _passes("cand")
N = len(BASE)  # 10 + 30 documents
EXPECTED = {"baseline_rate": sum(BASE.values()) / N, "candidate_rate": sum(CAND.values()) / N,
            "fixed": sum(1 for k in BASE if BASE[k] == 0 and CAND[k] == 1),
            "broke": sum(1 for k in BASE if BASE[k] == 1 and CAND[k] == 0)}


def _report(tmp_path: Path, *extra: str) -> dict:
    base, cand = _folder(tmp_path, "base"), _folder(tmp_path, "cand")
    out = tmp_path / "r.json"
    result = run_cli("report", f"base={base}", f"cand={cand}", "--baseline", "base", *extra, "-o", out)
    assert result.exit_code in (0, 1, 3), result.output
    return json.loads(out.read_text())["candidates"][0]["overall"]


def test_the_expected_figures_are_those_of_lm_evals_own_aggregates():
    results = json.loads(next((THIRD / "base").glob("results_*.json")).read_text())["results"]
    wrong = [v for k, v in BASE.items() if k.startswith("words_wrong/")]
    strict = [v for k, v in BASE.items() if k.startswith("words_two_filters/")]
    assert 1 - sum(wrong) / len(wrong) == pytest.approx(results["words_wrong"]["wrong,none"])
    assert sum(strict) / len(strict) == pytest.approx(results["words_two_filters"]["exact_match,strict-match"])


@pytest.mark.parametrize("extra", [(), ("--missing", "fail"),
                                   ("--metric", "words_wrong=wrong,words_two_filters=exact_match")],
                         ids=["no-option", "missing-fail", "per-task-metric"])
def test_each_task_is_read_by_its_own_metric(tmp_path, extra):
    overall = _report(tmp_path, *extra)
    assert overall["n"] == N == 40
    assert {k: overall[k] for k in EXPECTED} == pytest.approx(EXPECTED)


def test_every_row_has_a_pass_or_fail(tmp_path):
    loaded = load_results([Source(_folder(tmp_path, "base"), "base")])
    assert loaded.table["passed"].notna().all()
    assert loaded.table.groupby("category")["passed"].mean().to_dict() == pytest.approx(
        {"words_wrong": 0.7, "words_two_filters": sum(v for k, v in BASE.items() if "two" in k) / 30})


def test_a_task_of_other_scores_beside_a_pass_fail_task_is_refused_with_a_remedy(tmp_path):
    folder = _folder(tmp_path, "base")
    (path,) = folder.glob("samples_words_wrong_*.jsonl")
    records = [json.loads(line) for line in path.read_text().splitlines()]
    records[0]["wrong"] = 0.25  # a graded value: words_wrong is now a score
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    with pytest.raises(InputError) as info:
        load_results([Source(folder, "base")])
    message = str(info.value)
    assert "words_wrong (wrong) scored" in message and "words_two_filters (exact_match) pass/fail" in message
    assert "samples_words_wrong_*.jsonl" in message and "--metric words_wrong=METRIC" in message
    # the remedy: the scored task read alone
    alone = load_results([Source(path, "base")])
    assert "passed" not in alone.table.columns and alone.table["score"].notna().all()
