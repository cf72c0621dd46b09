"""Genuine Inspect AI 0.3.285 and 0.3.130 logs of scripted mockllm models (tests/fixtures/harness/third/inspect-*/,
scripts/fixtures/make_inspect_third.py): epoch reducers, a retry beside its failed log, an eval set of two tasks,
a folder of log folders (issue 31 items 2, 8 and 10).

Expected figures are Inspect's own: the metrics in each log's results, under the reducer it applied.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from conftest import run_cli
from releasegate.errors import InputError
from releasegate.load import AdapterOptions, Source, load_results
from releasegate.load.adapters import inspect_epochs
from releasegate.load.adapters.inspect_ai import read_inspect
from releasegate.load.adapters.inspect_log import _load_log

THIRD = Path(__file__).parents[1] / "fixtures" / "harness" / "third"
VERSIONS = ("inspect-0.3.285", "inspect-0.3.130")
REDUCERS = ("at_least_1", "mode", "median", "max", "pass_at_2")


def _accuracy(log: Path) -> tuple[str, float]:
    header, _ = _load_log(log)
    (score,) = header["results"]["scores"]
    return header["eval"]["model"], score["metrics"]["accuracy"]["value"]


def _report(tmp_path: Path, folder: Path, *extra: str) -> dict:
    out = tmp_path / "r.json"
    result = run_cli("report", folder, "--baseline", "mockllm/base", *extra, "-o", out)
    assert result.exit_code in (0, 1, 3), result.output
    return json.loads(out.read_text())


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("reducer", REDUCERS)
def test_epoch_reducer_applied_as_inspect_applies_it(tmp_path, version, reducer):
    folder = THIRD / version / f"reducer-{reducer}"
    official = dict(_accuracy(p) for p in sorted(folder.glob("*.eval")))
    report = _report(tmp_path, folder)
    overall = report["candidates"][0]["overall"]
    assert overall["n"] == 12  # one outcome per sample, not per epoch
    assert overall["baseline_rate"] == pytest.approx(official["mockllm/base"])
    assert overall["candidate_rate"] == pytest.approx(official["mockllm/cand"])
    assert {i["reducer"] for i in report["inputs"]} == {reducer}
    assert any(f"reduced by {reducer}" in note for note in report["notes"]), report["notes"]
    run_cli("report", folder, "--baseline", "mockllm/base", "-o", tmp_path / "r.md")
    assert "epochs reduced by " + reducer.replace("_", "\\_") in (tmp_path / "r.md").read_text()


@pytest.mark.parametrize("version", VERSIONS)
def test_at_least_1_gives_the_issue_figures(tmp_path, version):
    """0.75 / 0.8333 under at_least_1 (the mean over epochs would be 0.694 / 0.806): cand fixed q9 and q10 and
    broke q8; q12 passes on both under the reducer, so it is not broken."""
    report = _report(tmp_path, THIRD / version / "reducer-at_least_1")
    candidate = report["candidates"][0]
    assert (candidate["overall"]["baseline_rate"], candidate["overall"]["candidate_rate"]) == \
        (pytest.approx(0.75), pytest.approx(0.8333333))
    assert (candidate["overall"]["fixed"], candidate["overall"]["broke"]) == (2, 1)
    assert [c["case_id"] for c in candidate["broken_cases"]] == ["q8"]


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("reducer", REDUCERS)
def test_own_reduction_matches_the_logs_stored_reductions(version, reducer, monkeypatch):
    """A log without reductions is reduced here: the same values Inspect stored, sample by sample."""
    for log in sorted((THIRD / version / f"reducer-{reducer}").glob("*.eval")):
        stored = read_inspect(log)
        monkeypatch.setattr(inspect_epochs, "stored_reductions", lambda *a: None)
        computed = read_inspect(log)
        monkeypatch.undo()
        column = "passed" if "passed" in stored.columns else "score"
        assert computed[column].tolist() == pytest.approx(stored[column].tolist())


@pytest.mark.parametrize("version", VERSIONS)
def test_two_reducers_need_a_choice(tmp_path, version):
    folder = THIRD / version / "reducers-two"
    with pytest.raises(InputError) as info:
        load_results([Source(folder)])
    assert "2 reducers (mean, at_least_1)" in str(info.value) and "--reducer" in str(info.value)
    mean = _report(tmp_path, folder, "--reducer", "mean")
    assert mean["candidates"][0]["overall"]["baseline_rate"] == pytest.approx(25 / 36)  # runs kept, mean
    assert "reducer" not in mean["inputs"][0]
    least = _report(tmp_path, folder, "--reducer", "at_least_1")["candidates"][0]["overall"]
    assert (least["baseline_rate"], least["candidate_rate"]) == (pytest.approx(0.75), pytest.approx(0.8333333))
    with pytest.raises(InputError, match="no epochs reducer 'max'"):
        load_results([Source(folder)], options=AdapterOptions(values={"reducer": "max"}))


@pytest.mark.parametrize("version", VERSIONS)
def test_error_log_beside_its_retry_reads_the_retry(version):
    folder = THIRD / version / "retry-dir"
    logs = sorted(folder.glob("*.eval"))
    statuses = [_load_log(p)[0]["status"] for p in logs]
    assert statuses == ["error", "success"]
    loaded = load_results([Source(folder)])
    assert [Path(i.path).name for i in loaded.inputs] == [logs[1].name]
    assert loaded.table["case_id"].tolist() == ["q1", "q2", "q3", "q4"]
    with pytest.raises(InputError, match="eval-retry"):  # the failed log named alone is still refused
        load_results([Source(logs[0])])


@pytest.mark.parametrize("version", VERSIONS)
def test_eval_set_of_two_tasks_and_task_flag(version):
    folder = THIRD / version / "two-tasks"
    with pytest.raises(InputError, match="different tasks .*--task numbers"):
        load_results([Source(folder)])
    for task, n in (("words", 12), ("numbers", 6)):
        loaded = load_results([Source(folder)], options=AdapterOptions(values={"task": task}))
        assert {str(r) for r in loaded.table["release"].unique()} == {"mockllm/base", "mockllm/cand"}
        assert loaded.table["case_id"].nunique() == n
    with pytest.raises(InputError, match="no log of task 'nope'.*numbers, words"):
        load_results([Source(folder)], options=AdapterOptions(values={"task": "nope"}))


@pytest.mark.parametrize("version", VERSIONS)
def test_folder_of_log_folders_each_one_release(tmp_path, version):
    report = _report(tmp_path, THIRD / version / "parent")
    assert report["candidates"][0]["overall"]["baseline_rate"] == pytest.approx(0.75)
    mixed = tmp_path / "mixed"
    for name in ("a", "b"):
        (mixed / name).mkdir(parents=True)
    for log in sorted((THIRD / version / "reducer-max").glob("*.eval")):
        (mixed / "a" / log.name).write_bytes(log.read_bytes())  # two models in one child folder
    with pytest.raises(InputError, match="holds logs of 2 models .* each folder in it is one release"):
        load_results([Source(mixed)])


@pytest.mark.parametrize("version", VERSIONS)
def test_huge_score_says_what_is_wrong(tmp_path, version):
    (log,) = sorted((THIRD / version / "huge-score").glob("*.eval"))
    other = tmp_path / "other.eval"  # the same log with other bytes (a zip comment): one file twice is refused
    other.write_bytes(log.read_bytes())
    with zipfile.ZipFile(other, "a") as copy:
        copy.comment = b"another run"
    result = run_cli("check", f"a={log}", f"b={other}", "--baseline", "a")
    assert result.exit_code == 2
    assert "must lie within" in result.output and "1e+308" in result.output


def test_reductions_member_is_read_within_the_budget():
    (log,) = sorted((THIRD / "inspect-0.3.285" / "reducer-mode").glob("*.eval"))[:1]
    with zipfile.ZipFile(log) as archive:
        assert "reductions.json" in archive.namelist()
    header, samples = _load_log(log)
    assert header["reductions"][0]["reducer"] == "mode" and len(samples) == 36
    assert set(samples[0]) >= {"id", "epoch", "scores", "input", "output"} and "events" not in samples[0]


# ---------------------------------------------------------------- samples_df exports (item 9)

@pytest.mark.parametrize("suffix", ["csv", "parquet"])
def test_samples_df_export_reads_inspects_letters(suffix, tmp_path):
    """0.3.285's export names each row's model in model_usage; C/I map as value_to_float does; epochs are runs
    (the export holds no reducer): the mean over epochs, 25/36 and 29/36, said in a note."""
    from releasegate.load.adapters import detect_format

    path = THIRD / "inspect-0.3.285" / "samples-df" / f"samples.{suffix}"
    assert detect_format(path) == "inspect-samples"
    report = _report(tmp_path, path)
    overall = report["candidates"][0]["overall"]
    assert overall["n"] == 12
    assert (overall["baseline_rate"], overall["candidate_rate"]) == (pytest.approx(25 / 36), pytest.approx(29 / 36))
    assert any("holds no epochs reducer" in note for note in report["notes"])
    assert {i["format"] for i in report["inputs"]} == {"inspect-samples"}
    with pytest.raises(InputError, match="no scorer 'includes'.*available scorers: match"):
        load_results([Source(path)], options=AdapterOptions(values={"scorer": "includes"}))
    table = load_results([Source(path)], options=AdapterOptions(values={"category_field": "topic"})).table
    assert set(table["category"]) == {"a", "b"}


@pytest.mark.parametrize("suffix", ["csv", "parquet"])
def test_samples_df_export_without_a_model_says_how_to_export(suffix):
    path = THIRD / "inspect-0.3.130" / "samples-df" / f"samples.{suffix}"  # 0.3.130 wrote model_usage {}
    with pytest.raises(InputError, match="names no model .* 2 eval.* columns=SampleSummary \\+ EvalModel"):
        load_results([Source(path)])


# ---------------------------------------------------------------- every folder and file (issue 31, done when)

def _inputs() -> list[Path]:
    found = []
    for tool in sorted(THIRD.iterdir()):
        for item in sorted(tool.rglob("*")):
            if item.name.startswith(".") or item.name in ("logs.json", "eval-set.json"):
                continue
            found.append(item)
    return found


@pytest.mark.parametrize("item", _inputs(), ids=lambda p: str(p.relative_to(THIRD)))
def test_no_fixture_gives_an_internal_error(item):
    """Every folder and file of the third round read alone: a report, or one specific line (never 'internal
    error')."""
    result = run_cli("check", item, "--baseline", "base")
    assert result.exit_code in (0, 1, 2, 3), result.output
    assert "internal error" not in result.output and "Traceback" not in result.output, result.output
    if result.exit_code == 2:
        assert len([line for line in result.output.splitlines() if line.startswith("releasegate: error[")]) == 1
