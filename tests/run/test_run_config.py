"""CONFIG.toml of ``releasegate run``: every bad key or value is one line on stderr and exit 2."""

from __future__ import annotations

import pytest

from conftest import run_cli
from releasegate.errors import InputError
from releasegate.run.config import load_config, parse_config, stable_hash
from run_support import write_cases, write_config

FAKE = {"name": "r1", "kind": "fake"}


def _write(tmp_path, run=None, systems=None, metric=None):
    write_cases(tmp_path / "cases.csv", 3)
    return write_config(tmp_path / "run.toml", {"cases": "cases.csv", "store": "store", **(run or {})},
                        systems if systems is not None else [FAKE], metric or {"kind": "exact"})


@pytest.mark.parametrize("run,systems,metric,message", [
    ({"runs": 0}, None, None, "runs must be an integer >= 1"),
    ({"max_concurrency": "8"}, None, None, "max_concurrency must be an integer"),
    ({"timeout_s": 0}, None, None, "timeout_s must be a number > 0"),
    ({"requests_per_minute": -1}, None, None, "requests_per_minute must be a number >= 0"),
    ({"colour": 1}, None, None, "unknown key(s) colour"),
    ({}, [], None, "at least one [[run.system]]"),
    ({}, [{"name": "r1", "kind": "bard"}], None, "kind must be one of openai, python, fake"),
    ({}, [{"name": "r1", "kind": "fake", "accuracy": 2}], None, "accuracy must be a number >= 0.0 and <= 1.0"),
    ({}, [FAKE, FAKE], None, "system name(s) used twice: r1"),
    ({}, [{"name": "r1", "kind": "openai", "base_url": "localhost:1", "model": "m"}], None, "base_url must start"),
    ({}, [{"name": "r1", "kind": "openai", "base_url": "http://127.0.0.1:1", "model": "m", "system_prompt_file": "x.txt"}],
     None, "system_prompt_file not found"),
    ({}, [{"name": "r1", "kind": "python", "entry": "no_such_module_xyz:f"}], None, "cannot import 'no_such_module_xyz'"),
    ({}, [{"name": "r1", "kind": "python", "entry": "os"}], None, "entry must look like 'package.module:function'"),
    ({}, None, {"kind": "bleu"}, "kind must be one of exact, contains, regex, python, judge"),
    ({}, None, {"kind": "judge", "rubric": "{output}"}, "a judge needs a [run.metric.system]"),
    ({}, None, {"kind": "judge", "rubric": "{output}", "pattern": "PASS", "system": {"kind": "fake"}},
     "pattern must have one group"),
])
def test_bad_config_is_one_line_and_exit_2(tmp_path, run, systems, metric, message):
    path = _write(tmp_path, run, systems, metric)
    with pytest.raises(InputError) as caught:
        load_config(path)
    assert message in str(caught.value)
    done = run_cli("run", path)
    assert done.exit_code == 2
    lines = done.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("releasegate: error[run-config]: ") and message in lines[0]
    assert not (tmp_path / "store").exists()


def test_missing_files_and_bad_toml(tmp_path):
    assert run_cli("run", tmp_path / "none.toml").exit_code == 2
    (tmp_path / "bad.toml").write_text("[run\n")
    done = run_cli("run", tmp_path / "bad.toml")
    assert done.exit_code == 2 and "not valid TOML" in done.output
    (tmp_path / "long.toml").write_text("[run]\nruns = " + "9" * 5000 + "\n")
    done = run_cli("run", tmp_path / "long.toml")
    assert done.exit_code == 2 and "holds a number too long to read" in done.output
    path = _write(tmp_path)
    (tmp_path / "cases.csv").unlink()
    done = run_cli("run", path)
    assert done.exit_code == 2 and "case file not found" in done.output
    done = run_cli("run", _write(tmp_path), "-o", tmp_path / "t.xlsx")
    assert done.exit_code == 2 and "-o" in done.output


def test_duplicate_case_ids_are_refused(tmp_path):
    path = _write(tmp_path)
    (tmp_path / "cases.csv").write_text("case_id,input,reference\nA,x,y\nA,x,z\n")
    done = run_cli("run", path)
    assert done.exit_code == 2 and "lists 1 case_id(s) twice" in done.output


def test_hashes_are_canonical():
    assert stable_hash({"a": 1, "b": [1, 2]}) == stable_hash({"b": [1, 2], "a": 1})
    assert stable_hash({"a": 1}) != stable_hash({"a": 1.5})


def test_a_callable_system_hash_covers_its_source_and_version():
    def one(case, run):
        return "a"

    def two(case, run):
        return "b"

    def config(function, version=""):
        return parse_config({"cases": "c.csv", "store": "s", "metric": {"kind": "exact"},
                             "system": [{"name": "r", "kind": "python", "function": function, "version": version}]})

    assert config(one).systems[0].system_hash != config(two).systems[0].system_hash
    assert config(one).systems[0].system_hash != config(one, "2").systems[0].system_hash
    assert config(one).systems[0].system_hash == config(one).systems[0].system_hash
