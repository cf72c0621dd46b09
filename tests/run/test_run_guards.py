"""What is checked before the first call (issue 30 items 6 and 7; issue 28 items 10, 12 and 14): what is beyond
sense is refused at once with its limit, a template's bad placeholder is one line, streaming is refused, a
missing key variable and a missing Parquet engine stop the run before it calls anything, and ``-o`` never
overwrites an input. Every refusal: one line on stderr, exit 2, nothing called, no store made."""

from __future__ import annotations

import os
import sys
import time

import pytest

from conftest import run_cli
from run_support import StubServer, write_cases, write_config


def _write(tmp_path, system=None, run=None, metric=None, n=3):
    write_cases(tmp_path / "cases.csv", n)
    system = system or {"name": "r1", "kind": "fake"}
    return write_config(tmp_path / "run.toml", {"cases": "cases.csv", "store": "store", **(run or {})}, [system],
                        metric or {"kind": "exact"})


def _refused(done, message, kind="run-config"):
    lines = done.output.strip().splitlines()
    assert done.exit_code == 2, done.output
    assert len(lines) == 1 and lines[0].startswith(f"releasegate: error[{kind}]: ") and message in lines[0], lines


OPENAI = {"name": "r1", "kind": "openai", "base_url": "http://127.0.0.1:9/v1", "model": "m"}


@pytest.mark.parametrize("system,run,metric,message", [
    (None, {"runs": 100_000_000}, None, "runs must be an integer >= 1 and <= 10,000, got 100000000"),
    ({**OPENAI, "user_template": "{input:>400000000}"}, None, None,
     "uses {input:>400000000}: a format width or precision above 10,000 is refused"),
    ({**OPENAI, "user_template": "{input.foo}"}, None, None,
     "uses {input.foo}: a template takes whole case fields ({field}), not attributes or items"),
    ({**OPENAI, "user_template": "{input[0]}"}, None, None, "not attributes or items"),
    ({**OPENAI, "user_template": "Q: {}"}, None, None, "has a positional placeholder {}"),
    ({**OPENAI, "user_template": "Q: {input"}, None, None, "user_template is not a valid template"),
    ({**OPENAI, "params": {"stream": True}}, None, None,
     "params.stream is refused: streamed replies are not supported"),
    ({**OPENAI, "params": {"stream_options": {"include_usage": True}}}, None, None, "params.stream_options is refused"),
    ({**OPENAI, "params": {"messages": []}}, None, None, "params.messages is refused"),
    (None, None, {"kind": "judge", "rubric": "{output.upper}", "system": {"kind": "fake"}},
     "rubric uses {output.upper}"),
    (None, {"max_response_bytes": 10}, None, "max_response_bytes must be an integer >= 1024"),
])
def test_beyond_sense_and_bad_templates_are_refused_at_once(tmp_path, system, run, metric, message):
    path = _write(tmp_path, system, run, metric)
    for args in (("run", path), ("run", path, "--dry-run")):
        began = time.monotonic()
        done = run_cli(*args)
        _refused(done, message)
        assert time.monotonic() - began < 5.0
    assert not (tmp_path / "store").exists()


def test_a_grid_beyond_a_thousand_candidates_is_refused(tmp_path):
    write_cases(tmp_path / "cases.csv", 3)
    path = write_config(tmp_path / "run.toml", {"cases": "cases.csv", "store": "store",
                                                "grid": {"base": "r2", "seed": list(range(40)),
                                                         "accuracy": [x / 100 for x in range(40)]}},
                        [{"name": "r1", "kind": "fake"}, {"name": "r2", "kind": "fake"}], {"kind": "exact"})
    _refused(run_cli("run", path, "--dry-run"), "[run.grid] makes 1,600 candidates; at most 1,000 are run")


def test_a_plan_beyond_a_million_cells_is_refused_with_the_limit(tmp_path):
    path = _write(tmp_path, run={"runs": 5000}, n=201)
    began = time.monotonic()
    _refused(run_cli("run", path, "--dry-run"), "the plan has 1,005,000 cells (201 cases x 5,000 runs x 1 systems); "
                                                "at most 1,000,000")
    assert time.monotonic() - began < 5.0
    assert not (tmp_path / "store").exists()


def test_a_template_field_the_cases_lack_is_refused_before_any_call(tmp_path):
    with StubServer() as stub:
        path = _write(tmp_path, {**OPENAI, "base_url": stub.base_url, "user_template": "{question}"})
        _refused(run_cli("run", path), "user_template uses {question}, which the case table does not have")
        path = _write(tmp_path, metric={"kind": "judge", "rubric": "{input} {output} {rubric_notes}",
                                        "system": {"kind": "openai", "base_url": stub.base_url, "model": "j"}})
        _refused(run_cli("run", path), "the rubric uses {rubric_notes}")
    assert stub.calls == 0 and not (tmp_path / "store").exists()


def test_stream_false_is_accepted(tmp_path):
    with StubServer() as stub:
        path = _write(tmp_path, {**OPENAI, "base_url": stub.base_url, "params": {"stream": False}})
        assert run_cli("run", path).exit_code == 0 and stub.calls == 3
    assert "stream" not in stub.bodies[0]


def test_a_missing_key_variable_stops_the_run_before_the_first_call(tmp_path, monkeypatch):
    monkeypatch.delenv("NO_SUCH_KEY_VARIABLE", raising=False)
    with StubServer() as stub:
        path = _write(tmp_path, {**OPENAI, "base_url": stub.base_url, "api_key_env": "NO_SUCH_KEY_VARIABLE"})
        _refused(run_cli("run", path), "system 'r1': the environment variable NO_SUCH_KEY_VARIABLE (api_key_env) is "
                                       "not set; nothing was called")
        judge = {"kind": "judge", "rubric": "{output}",
                 "system": {"kind": "openai", "base_url": stub.base_url, "model": "j", "api_key_env": "NO_SUCH_KEY_VARIABLE"}}
        path = _write(tmp_path, metric=judge)
        _refused(run_cli("run", path), "the judge: the environment variable NO_SUCH_KEY_VARIABLE")
    assert stub.calls == 0
    assert run_cli("run", path, "--dry-run").exit_code == 0  # a dry run calls nothing


def test_parquet_without_pyarrow_is_refused_before_the_run(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # import pyarrow now raises ImportError
    path = _write(tmp_path)
    _refused(run_cli("run", path, "-o", tmp_path / "t.parquet"), "Parquet needs pyarrow", "output")
    assert not (tmp_path / "store").exists() and not (tmp_path / "t.parquet").exists()


def test_the_table_never_overwrites_an_input(tmp_path):
    path = _write(tmp_path)
    cases, config = (tmp_path / "cases.csv").read_bytes(), path.read_bytes()
    _refused(run_cli("run", path, "-o", tmp_path / "cases.csv"), f"is the run's input {tmp_path / 'cases.csv'}",
             "output")
    _refused(run_cli("run", path, "-o", tmp_path / "sub" / ".." / "cases.csv"), "is the run's input", "output")
    os.symlink(tmp_path / "cases.csv", tmp_path / "link.csv")
    _refused(run_cli("run", path, "-o", tmp_path / "link.csv"), "is the run's input", "output")
    assert (tmp_path / "cases.csv").read_bytes() == cases and path.read_bytes() == config
    assert not (tmp_path / "store").exists()
    assert run_cli("run", path, "-o", tmp_path / "out.csv").exit_code == 0


def test_a_table_or_sheet_that_cannot_be_written_is_refused_before_the_run(tmp_path):
    path = _write(tmp_path)
    (tmp_path / "d.csv").mkdir()
    _refused(run_cli("run", path, "-o", tmp_path / "missing" / "t.csv"), "output directory does not exist", "output")
    _refused(run_cli("run", path, "-o", tmp_path / "d.csv"), "output path is a directory", "output")
    _refused(run_cli("run", path, "--labelling-sheet", tmp_path / "missing" / "s.csv"),
             "output directory does not exist", "output")
    assert not (tmp_path / "store").exists()


def test_a_python_system_beside_the_config_imports_without_pythonpath(tmp_path, monkeypatch):
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "beside_config_bot.py").write_text("def respond(case, run):\n    return case['reference']\n")
    _write(folder, {"name": "bot", "kind": "python", "entry": "beside_config_bot:respond"})
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    monkeypatch.delenv("PYTHONPATH", raising=False)
    done = run_cli("run", folder / "run.toml")
    assert done.exit_code == 0, done.output
    assert "complete: 3 cells" in done.output
