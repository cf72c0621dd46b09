"""The files a run configuration names (the case table, a prompt, a template, a rubric) are regular files read
within a cap: a device, a FIFO or a directory is one line and exit 2, and so is a file over the cap; nothing is
read until memory runs out, nothing waits for a writer."""

from __future__ import annotations

import os

import pytest

from conftest import run_cli
from releasegate.errors import RunConfigError
from releasegate.run.config import load_config
from run_support import write_cases, write_config

OPENAI = {"name": "r1", "kind": "openai", "base_url": "http://127.0.0.1:1", "model": "m"}


def _config(tmp_path, run=None, system=None, metric=None):
    write_cases(tmp_path / "cases.csv", 3)
    return write_config(tmp_path / "run.toml", {"cases": "cases.csv", "store": "store", **(run or {})},
                        [system or {"name": "r1", "kind": "fake"}], metric or {"kind": "exact"})


def _fifo(tmp_path, name="pipe.txt"):
    os.mkfifo(tmp_path / name)
    return name


@pytest.mark.parametrize("make,words", [
    (lambda tmp: _config(tmp, system={**OPENAI, "system_prompt_file": "/dev/zero"}),
     "system_prompt_file /dev/zero is a character device, not a regular file"),
    (lambda tmp: _config(tmp, system={**OPENAI, "user_template_file": _fifo(tmp)}),
     "pipe.txt is a FIFO (named pipe), not a regular file"),
    (lambda tmp: _config(tmp, system={**OPENAI, "system_prompt_file": "."}),
     "is a directory, not a regular file"),
    (lambda tmp: _config(tmp, metric={"kind": "judge", "rubric_file": "/dev/zero", "system": {"kind": "fake"}}),
     "rubric_file /dev/zero is a character device"),
    (lambda tmp: _config(tmp, run={"cases": "/dev/zero"}), "case file /dev/zero is a character device"),
    (lambda tmp: _config(tmp, run={"cases": _fifo(tmp, "cases.fifo")}), "is a FIFO (named pipe)"),
])
def test_a_named_file_that_is_not_a_regular_file_is_one_line(tmp_path, make, words):
    path = make(tmp_path)
    with pytest.raises(RunConfigError, match="not a regular file"):
        load_config(path)
    done = run_cli("run", path)
    lines = done.output.strip().splitlines()
    assert done.exit_code == 2 and len(lines) == 1, done.output
    assert lines[0].startswith("releasegate: error[run-config]: ") and words in lines[0], lines[0]
    assert not (tmp_path / "store").exists()


def test_a_prompt_over_its_cap_is_refused_naming_the_cap(tmp_path):
    (tmp_path / "prompt.txt").write_bytes(b"x" * ((1 << 20) + 1))
    path = _config(tmp_path, system={**OPENAI, "system_prompt_file": "prompt.txt"})
    with pytest.raises(RunConfigError, match=r"prompt.txt is 1,048,577 bytes, over the cap of 1 MiB"):
        load_config(path)
    (tmp_path / "prompt.txt").write_bytes(b"x" * (1 << 20))  # at the cap: read
    assert load_config(path).systems[0].spec["system_prompt"] == "x" * (1 << 20)


def test_the_config_itself_is_a_regular_file(tmp_path):
    done = run_cli("run", "/dev/zero")
    assert done.exit_code == 2 and "config file /dev/zero is a character device" in done.output
    (tmp_path / "big.toml").write_bytes(b"#" * ((1 << 20) + 1))
    done = run_cli("run", tmp_path / "big.toml")
    assert done.exit_code == 2 and "over the cap of 1 MiB" in done.output
