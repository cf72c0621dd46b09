"""lm-eval gated on several metrics at once (issue 16: "an lm-eval metric under a filter"): ``--metric acc
--metric acc_norm`` or lm-eval's own ``exact_match,FILTER`` keys on genuine samples files
(tests/fixtures/harness/lm-eval-0.4.13); each metric is read exactly as its single-metric run reads it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import run_cli
from releasegate.errors import InputError
from releasegate.load import AdapterOptions, Source, load_results
from releasegate.load.per_metric import lm_eval_choice, load_each_metric
from releasegate.load.results import resolve_inputs

NEW = Path(__file__).parents[1] / "fixtures" / "harness" / "lm-eval-0.4.13"


def _files(task: str) -> list[Path]:
    return [p for model in ("model-a", "model-b") for p in sorted((NEW / model).glob(f"samples_{task}_*.jsonl"))]


def _json(tmp_path, name: str, files, *args) -> tuple[int, dict]:
    out = tmp_path / f"{name}.json"
    result = run_cli("check", *files, "--baseline", "model-a", *args, "-o", out)
    assert result.exit_code in (0, 1, 3), result.output
    return result.exit_code, json.loads(out.read_text())


@pytest.mark.parametrize(("task", "metrics", "single"), [
    ("words_mc", ("acc", "acc_norm"), (("--metric", "acc"), ("--metric", "acc_norm"))),
    ("words_gen", ("exact_match,strict", "exact_match,first-word"),
     (("--metric", "exact_match", "--filter", "strict"), ("--metric", "exact_match", "--filter", "first-word"))),
])
def test_every_metric_is_gated_and_equals_its_single_metric_run(tmp_path, task, metrics, single):
    files = _files(task)
    code, note = _json(tmp_path, "several", files, *[a for m in metrics for a in ("--metric", m)])
    assert note["metrics_gated"] == list(metrics)
    candidate = note["candidates"][0]
    assert set(candidate["metrics"]) == set(metrics)
    blocking, codes = [], []
    for metric, args in zip(metrics, single):
        one_code, alone = _json(tmp_path, "single", files, *args)
        mine, theirs = note["metrics"][metric]["candidates"][0], alone["candidates"][0]
        for key in ("diff", "ci_low", "ci_high", "ni_low", "p_value", "p_one_sided", "fixed", "broke", "both_pass"):
            assert mine["overall"][key] == theirs["overall"][key], (metric, key)
        # Only the regression tests' adjusted p carry the correction across the 2 metrics.
        assert mine["overall"]["p_adjusted"] == pytest.approx(min(1.0, 2 * theirs["overall"]["p_adjusted"]))
        assert [r["rule"] for r in mine["reasons"]] == [r["rule"] for r in theirs["reasons"]]
        if one_code in (1, 3):  # DON'T SHIP or NOT PROVEN: either keeps the candidate from SHIP
            blocking.append(metric)
        codes.append(one_code)
    # The several-metric gate exits as its worst metric: 1 for any DON'T SHIP, else 3 for any NOT PROVEN.
    assert candidate["blocking_metrics"] == blocking and code == (1 if 1 in codes else 3 if 3 in codes else 0)


def test_each_column_is_that_metrics_own_reading():
    files = [Source(p) for p in _files("words_mc")]
    loaded = load_each_metric(resolve_inputs(files), {}, None, AdapterOptions(), ("acc", "acc_norm"), "lm-eval")
    for metric in ("acc", "acc_norm"):
        alone = load_results(files, options=AdapterOptions(values={"metric": metric})).table
        assert loaded.table[metric].tolist() == alone["passed"].tolist()
        assert loaded.table[["release", "case_id"]].equals(alone[["release", "case_id"]])
    # The two metrics differ on this file (doc 3 passes by acc and fails by acc_norm), so the test can fail.
    assert loaded.table["acc"].tolist() != loaded.table["acc_norm"].tolist()


def test_a_metric_under_a_filter_is_split_and_checked():
    assert lm_eval_choice("exact_match,strict-match", {}) == {"metric": "exact_match", "filter_name": "strict-match"}
    assert lm_eval_choice("acc", {"filter_name": "none"}) == {"metric": "acc"}
    assert lm_eval_choice("words_mc=acc,words_gen=exact_match", {}) == {"metric": "words_mc=acc,words_gen=exact_match"}
    for bad, given, words in (("exact_match,", {}, "NAME,FILTER"), ("a,b,c", {}, "NAME,FILTER"),
                              ("exact_match,strict", {"filter_name": "first-word"}, "name the filter once")):
        with pytest.raises(InputError, match=words):
            lm_eval_choice(bad, given)


def test_a_metric_or_filter_that_does_not_exist_is_one_line(tmp_path):
    files = _files("words_gen")
    for metric, words in (("exact_match,loose", "no filter 'loose'; filters present: strict, first-word"),
                          ("acc", "no metric 'acc'; metrics present: exact_match")):
        result = run_cli("check", *files, "--baseline", "model-a", "--metric", "exact_match,strict",
                         "--metric", metric)
        assert result.exit_code == 2
        (line,) = result.output.strip().splitlines()
        assert line.startswith("releasegate: error[input]: ") and words in line, line
