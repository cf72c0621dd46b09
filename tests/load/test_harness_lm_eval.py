"""Genuine lm-evaluation-harness outputs (tests/fixtures/harness/lm-eval-<version>/, scripts/fixtures/make_lm_eval.sh).

Expected numbers come from lm-eval itself: the aggregate it wrote into results*.json ("acc,none", ...).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import run_cli
from releasegate.errors import InputError
from releasegate.load import AdapterOptions, Source, load_results
from releasegate.load.adapters import detect_format
from releasegate.load.adapters.lm_eval import read_lm_eval

HARNESS = Path(__file__).parents[1] / "fixtures" / "harness"
NEW = HARNESS / "lm-eval-0.4.13"
OLD = HARNESS / "lm-eval-0.4.1"


def _results(folder: Path) -> dict:
    (path,) = sorted(folder.glob("results*.json"))
    return json.loads(path.read_text())["results"]


def _raises(call, *words: str) -> str:
    with pytest.raises(InputError) as info:
        call()
    message = str(info.value)
    for word in words:
        assert word in message, message
    return message


def test_output_path_is_read_whole_with_each_tasks_default_metric():
    loaded = load_results([Source(NEW)])
    table = loaded.table
    assert len(loaded.inputs) == 4 and sorted(table["release"].unique()) == ["model-a", "model-b"]
    assert sorted(table["category"].unique()) == ["words_gen", "words_mc"]
    assert table["case_id"].str.startswith(("words_gen/", "words_mc/")).all()  # doc ids are per task
    for model in ("model-a", "model-b"):
        official = _results(NEW / model)
        rows = table[table["release"] == model]
        assert rows.loc[rows["category"] == "words_mc", "passed"].mean() == pytest.approx(official["words_mc"]["acc,none"])
        assert rows.loc[rows["category"] == "words_gen", "passed"].mean() == pytest.approx(
            official["words_gen"]["exact_match,strict"])
    chosen = {(Path(i.path).name.split("_2026")[0], i.metric, i.filter, i.harness) for i in loaded.inputs}
    assert chosen == {("samples_words_mc", "acc", "none", "lm-eval 0.4.13"),
                      ("samples_words_gen", "exact_match", "strict", "lm-eval 0.4.13")}


def test_metric_and_filter_per_task():
    options = AdapterOptions(values={"metric": "words_mc=acc_norm", "filter_name": "words_gen=first-word"})
    loaded = load_results([Source(NEW / "model-a")], options=options)
    official = _results(NEW / "model-a")
    table = loaded.table
    assert table.loc[table["category"] == "words_mc", "passed"].mean() == pytest.approx(official["words_mc"]["acc_norm,none"])
    assert table.loc[table["category"] == "words_gen", "passed"].mean() == pytest.approx(
        official["words_gen"]["exact_match,first-word"])
    assert sorted((i.metric, i.filter) for i in loaded.inputs) == [("acc_norm", "none"), ("exact_match", "first-word")]
    # one name for every file still means every file: a generation task has no acc_norm
    _raises(lambda: load_results([Source(NEW / "model-a")], options=AdapterOptions(values={"metric": "acc_norm"})),
            "no metric 'acc_norm'", "exact_match")


@pytest.mark.parametrize("model", ["model-a", "model-b"])
def test_041_pretty_printed_samples_read(model):
    (path,) = sorted((OLD / model).glob("*.jsonl"))
    assert path.read_text().startswith("[\n")  # one JSON array, not JSON lines
    assert detect_format(path) == "lm-eval"
    frame = read_lm_eval(path)
    assert frame.attrs["task"] == "words_mc" and frame["release"].unique().tolist() == [model]
    assert frame.attrs["harness"] == "lm-eval"  # 0.4.1 wrote no version
    assert frame["case_id"].tolist() == ["0", "1", "2", "3", "4"]
    assert frame["passed"].mean() == pytest.approx(_results(OLD / model)["words_mc"]["acc,none"])


def test_041_folders_compare_through_the_cli(tmp_path):
    out = tmp_path / "r.json"
    result = run_cli("report", OLD / "model-a", OLD / "model-b", "--baseline", "model-a", "-o", out)
    assert result.exit_code in (0, 1, 3), result.output
    report = json.loads(out.read_text())
    assert [(i["metric"], i["filter"]) for i in report["inputs"]] == [("acc", "none")] * 2
    assert report["candidates"][0]["overall"]["n"] == 5


def test_results_summary_alone_and_an_output_without_samples_are_refused(tmp_path):
    (summary,) = sorted((NEW / "model-a").glob("results_*.json"))
    _raises(lambda: load_results([Source(summary)]), "lm-eval results summary", "samples_*.jsonl")
    _raises(lambda: load_results([Source(OLD / "model-a" / "results.json")]), "lm-eval results summary")
    bare = tmp_path / "model-a"
    bare.mkdir()
    shutil.copy(summary, bare / summary.name)
    _raises(lambda: load_results([Source(bare)]), "no samples files", "--log_samples")


def test_two_runs_of_one_model_in_one_folder_need_names(tmp_path):
    folder = tmp_path / "model-a"
    shutil.copytree(NEW / "model-a", folder)
    for path in list(folder.iterdir()):  # a second run of the same model, on another date
        shutil.copy(path, folder / path.name.replace("2026-12-01T09-00-19", "2026-12-02T10-00-00"))
    _raises(lambda: load_results([Source(folder)]), "both hold release 'model-a'", "base=", "cand=")
