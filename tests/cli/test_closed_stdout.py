"""A reader that closes the pipe early (``releasegate check ... | head -1``) does not change the exit status: a
CI step reading it sees the verdict (1 for DON'T SHIP), not 2 and a BrokenPipeError. Real pipes, real processes:
the read end is closed before the command writes (every write fails), or after one line (``head -1``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from conftest import ROOT

EXAMPLE = ROOT / "examples" / "bank-assistant"
INPUTS = (str(EXAMPLE / "eval_results.csv"), "--cases", str(EXAMPLE / "eval_cases.csv"))
ENV = {**os.environ, "PYTHONPATH": str(ROOT / "src")}


def _closed_pipes(args, cwd, *, stderr_too=False) -> subprocess.CompletedProcess:
    """Run ``releasegate ARGS`` with stdout (and stderr) a pipe whose read end is already closed."""
    read, write = os.pipe()
    os.close(read)
    try:
        return subprocess.run([sys.executable, "-m", "releasegate", *args], cwd=cwd, env=ENV, stdout=write,
                              stderr=write if stderr_too else subprocess.PIPE, timeout=300, check=False)
    finally:
        os.close(write)


def test_check_on_a_dont_ship_exits_1_into_head(tmp_path):
    command = (f"{sys.executable} -m releasegate check {' '.join(INPUTS)} --policy {EXAMPLE / 'releasegate.toml'} "
               "| head -1; exit ${PIPESTATUS[0]}")
    done = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=ENV, capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 1, done.stderr
    assert done.stdout.startswith("DON'T SHIP r2-new-prompt") and done.stdout.count("\n") == 1
    assert done.stderr == ""


@pytest.mark.parametrize("stderr_too", [False, True])
def test_check_keeps_its_status_when_nothing_reads(tmp_path, stderr_too):
    done = _closed_pipes(["check", *INPUTS, "--policy", str(EXAMPLE / "releasegate.toml")], tmp_path,
                         stderr_too=stderr_too)
    assert done.returncode == 1, done.stderr
    assert not done.stderr  # no traceback, no "internal error"
    bad = _closed_pipes(["check", "nothere.csv"], tmp_path, stderr_too=stderr_too)
    assert bad.returncode == 2


def test_report_verify_and_history_keep_theirs(tmp_path):
    report = _closed_pipes(["report", *INPUTS, "--policy", str(EXAMPLE / "releasegate.toml"), "-o", "note.json"],
                           tmp_path, stderr_too=True)
    assert report.returncode == 0 and (tmp_path / "note.json").is_file()
    verify = _closed_pipes(["verify", "note.json", *INPUTS], tmp_path, stderr_too=True)
    assert verify.returncode == 0
    note = json.loads((tmp_path / "note.json").read_text())
    note["candidates"][0]["overall"]["broke"] += 1  # a note that no longer follows from its inputs
    (tmp_path / "edited.json").write_text(json.dumps(note))
    assert _closed_pipes(["verify", "edited.json", *INPUTS], tmp_path, stderr_too=True).returncode == 1
    history = _closed_pipes(["history", "note.json", "-o", "history.md"], tmp_path, stderr_too=True)
    assert history.returncode == 0 and (tmp_path / "history.md").is_file()
