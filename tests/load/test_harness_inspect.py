"""Genuine Inspect AI logs (tests/fixtures/harness/inspect-<version>/, written by scripts/fixtures/make_inspect.py).

Expected numbers come from Inspect itself: the accuracy it computed into logs.json / the log header.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import run_cli
from releasegate.errors import InputError
from releasegate.load import AdapterOptions, Source, load_results
from releasegate.load.adapters.inspect_ai import _load_log, read_inspect
from releasegate.load.directories import harness_files

HARNESS = Path(__file__).parents[1] / "fixtures" / "harness"
VERSIONS = ("inspect-0.3.285", "inspect-0.3.90")


def _one(folder: Path) -> Path:
    (log,) = sorted(folder.glob("*.eval"))
    return log


def _raises(call, *words: str) -> str:
    with pytest.raises(InputError) as info:
        call()
    message = str(info.value)
    assert "\n" not in message
    for word in words:
        assert word in message, message
    return message


@pytest.mark.parametrize("version", VERSIONS)
def test_eval_set_directory_is_read_whole_and_matches_inspects_accuracy(version):
    folder = HARNESS / version / "eval-set"
    loaded = load_results([Source(folder)], options=AdapterOptions(values={"scorer": "includes"}))
    index = json.loads((folder / "logs.json").read_text())
    assert len(loaded.inputs) == len(index) == 2
    table = loaded.table
    for header in index.values():
        model = header["eval"]["model"]
        accuracy = {s["name"]: s["metrics"]["accuracy"]["value"] for s in header["results"]["scores"]}
        rows = table[table["release"] == model]
        assert len(rows) == 4 * 2  # 4 samples x 2 epochs
        assert sorted(rows["run"].unique()) == [1, 2]
        assert rows["passed"].mean() == pytest.approx(accuracy["includes"])
    assert {i.harness for i in loaded.inputs} == {f"inspect-ai {version.split('-')[1]}"}
    assert {(i.scorer, i.release_key) for i in loaded.inputs} == {("includes", "eval.model")}


def test_eval_set_keeps_the_latest_finished_log_of_each_task(tmp_path):
    folder = tmp_path / "eval-set"
    shutil.copytree(HARNESS / "inspect-0.3.285" / "eval-set", folder)
    index = json.loads((folder / "logs.json").read_text())
    name, header = next(iter(index.items()))
    # an earlier attempt of the same task that failed, left beside the retried log (as eval-retry leaves it)
    shutil.copy(folder / name, folder / "2026-01-01T00-00-00-00-00_words_failed.eval")
    index["2026-01-01T00-00-00-00-00_words_failed.eval"] = dict(header, status="error",
                                                                eval=dict(header["eval"], created="2026-01-01"))
    (folder / "logs.json").write_text(json.dumps(index))
    original = sorted(p.name for p in (HARNESS / "inspect-0.3.285" / "eval-set").glob("*.eval"))
    assert [p.name for p in harness_files(folder)] == original
    # without logs.json a plain log directory is every log in it: both attempts, refused as one release twice
    (folder / "logs.json").unlink()
    (folder / "eval-set.json").unlink()
    assert len(harness_files(folder)) == 3


@pytest.mark.parametrize("index", ["logs.json", "eval-set.json"])
def test_index_files_alone_are_named_for_what_they_are(index):
    path = HARNESS / "inspect-0.3.285" / "eval-set" / index
    what = "eval-set index" if index == "eval-set.json" else "log-directory index"
    _raises(lambda: load_results([Source(path)]), what, "pass its directory")


@pytest.mark.parametrize("version", VERSIONS)
def test_a_log_that_stopped_with_an_error_is_refused(version):
    log = _one(HARNESS / version / "error")
    header, _ = _load_log(log)
    assert header["status"] == "error"
    _raises(lambda: read_inspect(log), "status 'error'", "simulated provider outage", "inspect eval-retry")


@pytest.mark.parametrize("version", VERSIONS)
def test_an_unscored_log_says_so(version):
    _raises(lambda: read_inspect(_one(HARNESS / version / "unscored")), "holds no scores", "inspect score")


@pytest.mark.parametrize("version", VERSIONS)
def test_two_logs_of_one_model_get_a_name_hint(version):
    folder = HARNESS / version / "single"
    options = AdapterOptions(values={"scorer": "includes"})
    message = _raises(lambda: load_results([Source(folder)], options=options),
                      "both hold release 'mockllm/model'", "(task words)", "base=", "cand=")
    assert message.count(".eval") == 4
    first, second = sorted(folder.glob("*.eval"))
    loaded = load_results([Source(first, "base"), Source(second, "cand")], options=options)
    assert sorted(loaded.table["release"].unique()) == ["base", "cand"]
    assert {i.release_key for i in loaded.inputs} == {"NAME="}


@pytest.mark.parametrize("version", VERSIONS)
def test_dict_scorer_is_named_as_inspect_names_it(version):
    log = _one(HARNESS / version / "dict-scorer")
    header, _ = _load_log(log)
    shown = {s["name"]: s for s in header["results"]["scores"]}
    assert set(shown) == {"exact", "length"}
    _raises(lambda: read_inspect(log), "2 scorers (exact, length)", "--scorer")
    exact = read_inspect(log, scorer="exact")
    assert exact.equals(read_inspect(log, scorer="graded/exact"))  # the scorer/key form is still accepted
    assert exact.attrs["scorer"] == "exact"
    assert exact["passed"].mean() == pytest.approx(shown["exact"]["metrics"]["accuracy"]["value"])
    length = read_inspect(log, scorer="length")
    assert "passed" not in length.columns
    assert length["score"].mean() == pytest.approx(shown["length"]["metrics"]["mean"]["value"])


def test_report_states_what_was_read_and_tidy_records_are_unchanged(tmp_path):
    folder = HARNESS / "inspect-0.3.285" / "eval-set"
    out_json, out_md = tmp_path / "r.json", tmp_path / "r.md"
    for out in (out_json, out_md):
        result = run_cli("report", folder, "--baseline", "mockllm/model", "--scorer", "includes", "-o", out)
        assert result.exit_code in (0, 1, 3), result.output
    inputs = json.loads(out_json.read_text())["inputs"]
    assert [i["harness"] for i in inputs] == ["inspect-ai 0.3.285"] * 2
    assert [i["scorer"] for i in inputs] == ["includes"] * 2
    assert "(inspect-ai 0.3.285; release from eval.model; scorer includes)" in out_md.read_text()
    tidy = tmp_path / "tidy.csv"
    tidy.write_text("release,case_id,passed\n" + "".join(f"{r},c{i},{(i + k) % 2}\n" for k, r in enumerate("ab")
                                                          for i in range(6)))
    result = run_cli("report", tidy, "--baseline", "a", "-o", tmp_path / "t.json")
    assert result.exit_code in (0, 1, 3), result.output
    record = json.loads((tmp_path / "t.json").read_text())["inputs"][0]
    assert sorted(record) == ["format", "path", "release", "rows", "sha256"]


@pytest.mark.parametrize("version", VERSIONS)
def test_an_eval_set_finished_by_a_rerun_reads_as_the_finished_log(version):
    # the first eval_set call stopped with an error on q3; the second, in the same directory, finished the task
    folder = HARNESS / version / "eval-set-retry"
    (header,) = json.loads((folder / "logs.json").read_text()).values()
    assert header["status"] == "success"
    table = load_results([Source(folder)]).table
    assert sorted(table["case_id"]) == ["q1", "q2", "q3", "q4"] and table["passed"].notna().all()
    assert table["passed"].mean() == pytest.approx(header["results"]["scores"][0]["metrics"]["accuracy"]["value"])


def test_an_eval_set_missing_a_tasks_log_is_refused(tmp_path):
    folder = tmp_path / "eval-set"
    shutil.copytree(HARNESS / "inspect-0.3.285" / "eval-set", folder)
    index = json.loads((folder / "logs.json").read_text())
    gone = min(index)
    (folder / gone).unlink()
    (folder / "logs.json").write_text(json.dumps({k: v for k, v in index.items() if k != gone}))
    _raises(lambda: harness_files(folder), "lists task(s) with no log", index[gone]["eval"]["task_id"],
            "incomplete")


def test_a_stopped_logs_error_message_is_kept_whole(tmp_path):
    """The exception of a log that stopped is quoted whole, on one line: it was cut at 120 characters, mid-word
    ("... Max retries e)")."""
    log = json.loads((Path(__file__).parents[1] / "fixtures" / "inspect" /
                      "2025-05-12T20-28-13-04-00_popularity.json").read_text(encoding="utf-8"))
    message = ("RetryError: HTTPSConnectionPool(host='api.example.invalid', port=443): Max retries exceeded with "
               "url: /v1/chat/completions (Caused by NewConnectionError('Failed to establish a new connection:\n"
               "[Errno 111] Connection refused'))")
    log["status"], log["error"] = "error", {"message": message, "traceback": "Traceback ..."}
    path = tmp_path / "stopped.json"
    path.write_text(json.dumps(log), encoding="utf-8")
    text = _raises(lambda: read_inspect(path), "status 'error'", "inspect eval-retry")
    assert " ".join(message.split()) in text and "\n" not in text
