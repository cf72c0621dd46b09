"""Genuine lm-eval 0.4.13 and 0.4.5 outputs of a scripted model (tests/fixtures/harness/third/lm-eval-<version>/,
scripts/fixtures/make_lm_eval_third.sh), issue 31 items 1, 3, 5 and 12, issue 28 item 18.

Expected figures are lm-eval's own: the aggregates it wrote into results_*.json ("wrong,none", ...).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import run_cli
from releasegate.errors import InputError
from releasegate.load import AdapterOptions, Source, load_results

THIRD = Path(__file__).parents[1] / "fixtures" / "harness" / "third"
VERSIONS = ("lm-eval-0.4.13", "lm-eval-0.4.5")


def _samples(version: str, model: str, task: str) -> Path:
    (path,) = sorted((THIRD / version / model).glob(f"samples_{task}_*.jsonl"))
    return path


def _official(version: str, model: str, task: str, key: str) -> float:
    (path,) = sorted((THIRD / version / model).glob("results_*.json"))
    return json.loads(path.read_text())["results"][task][key]


def _report(tmp_path: Path, version: str, task: str, *extra: str) -> dict:
    out = tmp_path / "r.json"
    result = run_cli("report", _samples(version, "base", task), _samples(version, "cand", task),
                     "--baseline", "base", *extra, "-o", out)
    assert result.exit_code in (0, 1, 3), result.output
    return json.loads(out.read_text())


@pytest.mark.parametrize("version", VERSIONS)
def test_lower_is_better_metric_is_read_the_right_way_round(tmp_path, version):
    """`wrong` (higher_is_better: false) goes 0.3 -> 0.2: cand is better; it fixed docs 7 and 8, broke doc 6."""
    assert _official(version, "base", "words_wrong", "wrong,none") == pytest.approx(0.3)
    assert _official(version, "cand", "words_wrong", "wrong,none") == pytest.approx(0.2)
    report = _report(tmp_path, version, "words_wrong")
    overall = report["candidates"][0]["overall"]
    assert (overall["baseline_rate"], overall["candidate_rate"]) == (pytest.approx(0.7), pytest.approx(0.8))
    assert (overall["fixed"], overall["broke"]) == (2, 1)
    assert [c["case_id"] for c in report["candidates"][0]["broken_cases"]] == ["6"]
    direction = "lower is better (from lm-eval's higher_is_better)"
    assert {i["direction"] for i in report["inputs"]} == {direction}
    assert any(direction in note for note in report["notes"])


@pytest.mark.parametrize("version", VERSIONS)
def test_two_filters_read_in_both_versions(tmp_path, version):
    """0.4.5 writes no `filter` key: strict-match's 30 rows first, then flexible-extract's."""
    base, cand = (json.loads(_samples(version, m, "words_two_filters").read_text().splitlines()[0]) for m in
                  ("base", "cand"))
    assert ("filter" in base) is (version == "lm-eval-0.4.13")
    for name, key in (("strict-match", "exact_match,strict-match"),
                      ("flexible-extract", "exact_match,flexible-extract")):
        report = _report(tmp_path, version, "words_two_filters", "--filter", name)
        overall = report["candidates"][0]["overall"]
        assert overall["n"] == 30
        assert overall["baseline_rate"] == pytest.approx(_official(version, "base", "words_two_filters", key))
        assert overall["candidate_rate"] == pytest.approx(_official(version, "cand", "words_two_filters", key))
        assert {i["filter"] for i in report["inputs"]} == {name}
    default = _report(tmp_path, version, "words_two_filters")["candidates"][0]["overall"]
    assert (default["n"], default["fixed"], default["broke"]) == (30, 6, 3)


@pytest.mark.parametrize("version", VERSIONS)
def test_corpus_level_metrics_are_refused_naming_the_per_document_ones(version):
    def load(task: str, metric: str | None = None):
        options = AdapterOptions(values={"metric": metric})
        return load_results([Source(_samples(version, m, task), m) for m in ("base", "cand")], options=options)

    with pytest.raises(InputError) as info:
        load("words_ppl", "perplexity")
    message = str(info.value)
    assert "'perplexity'" in message and "corpus-level (aggregation perplexity)" in message
    assert "per-document metrics: acc (--metric acc)" in message
    # lm-eval's perplexity is corpus-level (2.718 -> 1.649); the default reads acc, the one per-document metric
    assert _official(version, "base", "words_ppl", "perplexity,none") == pytest.approx(2.718, abs=1e-3)
    assert load("words_ppl").inputs[0].metric == "acc"
    for task, metric, aggregation in (("words_translate", "bleu", "bleu"), ("words_translate", "ter", "ter"),
                                      ("words_rolling", "word_perplexity", "weighted_perplexity"),
                                      ("words_rolling", "bits_per_byte", "bits_per_byte")):
        with pytest.raises(InputError) as info:
            load(task, metric)
        assert f"(aggregation {aggregation})" in str(info.value)
    with pytest.raises(InputError) as info:
        load("words_rolling")
    assert "are corpus-level" in str(info.value) and "word_perplexity" in str(info.value)
    assert load("words_translate").inputs[0].metric == "exact_match"


@pytest.mark.parametrize("version", VERSIONS)
def test_an_accuracy_that_is_not_zero_or_one_says_so(version):
    with pytest.raises(InputError) as info:
        load_results([Source(_samples(version, "base", "words_odd_acc"), "base")])
    message = str(info.value)
    assert "accuracy (0 or 1 per document)" in message and "doc_id 1: 0.5, doc_id 2: 2" in message


def test_lm_eval_version_absent_in_045_results():
    """docs/inputs.md: lm_eval_version is written by 0.4.13, not by 0.4.5 (nor before)."""
    for version, expected in (("lm-eval-0.4.13", "lm-eval 0.4.13"), ("lm-eval-0.4.5", "lm-eval")):
        loaded = load_results([Source(_samples(version, "base", "words_wrong"))])
        assert loaded.inputs[0].harness == expected


def _copied(tmp_path: Path, task: str) -> None:
    for model in ("base", "cand"):
        (tmp_path / model).mkdir()
        for path in (THIRD / "lm-eval-0.4.13" / model).glob("*"):
            if task in path.name or path.name.startswith("results_"):
                (tmp_path / model / path.name).write_bytes(path.read_bytes())


@pytest.mark.parametrize("key, value", [("metric_list", 10**28), ("metric_list", "acc"), ("metric_list", None),
                                        ("metric_list", {"metric": "acc"}), ("filter_list", {"name": "x"})])
def test_a_task_config_whose_lists_are_not_lists_reads_as_one_without(tmp_path, key, value):
    whole = _report(tmp_path, "lm-eval-0.4.13", "words_wrong")
    _copied(tmp_path, "words_wrong")
    (results,) = (tmp_path / "base").glob("results_*.json")
    summary = json.loads(results.read_text())
    summary["configs"]["words_wrong"][key] = value
    results.write_text(json.dumps(summary))
    out = tmp_path / "edited.json"
    done = run_cli("report", tmp_path / "base", tmp_path / "cand", "--baseline", "base", "-o", out)
    assert done.exit_code in (0, 1, 3), done.output
    assert json.loads(out.read_text())["candidates"][0]["overall"] == whole["candidates"][0]["overall"]


def test_a_doc_id_holding_half_a_utf16_pair_is_refused_naming_the_line(tmp_path):
    _copied(tmp_path, "words_wrong")
    (samples,) = (tmp_path / "cand").glob("samples_*.jsonl")
    lines = samples.read_text().splitlines()
    lines[2] = lines[2].replace('"doc_id": 2', '"doc_id": "\\ud800"', 1)
    samples.write_text("\n".join(lines) + "\n")
    done = run_cli("check", tmp_path / "base", tmp_path / "cand", "--baseline", "base")
    assert done.exit_code == 2
    assert "line 3: 'doc_id' holds a lone UTF-16 surrogate (\\ud800)" in done.output, done.output


def test_a_filter_list_that_is_not_a_list_reads_as_none_listed(tmp_path):
    # lm-eval 0.4.5 names no filter in its records: the results file's filter_list is what tells them apart
    folder = THIRD / "lm-eval-0.4.5"
    for model in ("base", "cand"):
        (tmp_path / model).mkdir()
        for path in (folder / model).glob("*"):
            if "words_two_filters" in path.name or path.name.startswith("results_"):
                (tmp_path / model / path.name).write_bytes(path.read_bytes())
    (results,) = (tmp_path / "base").glob("results_*.json")
    summary = json.loads(results.read_text())
    summary["configs"]["words_two_filters"]["filter_list"] = 0.5
    results.write_text(json.dumps(summary))
    done = run_cli("check", tmp_path / "base", tmp_path / "cand", "--baseline", "base", "--filter", "strict-match")
    assert done.exit_code == 2 and "does not list filters that account for the repeats" in done.output, done.output
