"""An output's folder is checked before the analysis starts: one that cannot be written (a read-only mount, no
permission) is refused in one line, exit 2, without a comparison run first; so are --archive, --comment,
history's and plan's outputs. Before, the whole analysis ran and the write failed at its end."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from conftest import ROOT, run_cli
from releasegate.errors import OutputError
from releasegate.render.output_guard import check_output_places

EXAMPLE = ROOT / "examples" / "bank-assistant"
INPUTS = (EXAMPLE / "eval_results.csv", "--baseline", "r1-live", "--no-policy")


def _unwritable(tmp_path: Path) -> Path:
    """A folder this process cannot write in: chmod 555 for a user; for root (who ignores permissions) sysfs."""
    if os.geteuid() != 0:
        folder = tmp_path / "locked"
        folder.mkdir(mode=0o555)
        return folder
    folder = Path("/sys")
    try:
        (folder / ".releasegate-probe").touch()
    except OSError:
        return folder
    pytest.skip("no folder here refuses a file to root")


@pytest.fixture
def no_analysis(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("the analysis ran before the output's folder was checked")

    monkeypatch.setattr("releasegate.pipeline.run", refuse)


@pytest.mark.parametrize("command,flag", [("report", "-o"), ("check", "-o"), ("report", "--comment"),
                                          ("report", "--archive")])
def test_an_unwritable_output_folder_is_refused_before_the_analysis(tmp_path, no_analysis, command, flag):
    target = _unwritable(tmp_path) / ("archive" if flag == "--archive" else "note.md")
    done = run_cli(command, *INPUTS, flag, target)
    lines = done.output.strip().splitlines()
    assert done.exit_code == 2 and len(lines) == 1, done.output
    assert lines[0].startswith("releasegate: error[output]: cannot write in "), lines[0]


def test_history_and_plan_outputs_too(tmp_path, no_analysis):
    folder = _unwritable(tmp_path)
    done = run_cli("history", EXAMPLE / "report.json", "-o", folder / "history.md")
    assert done.exit_code == 2 and "error[output]: cannot write in" in done.output
    done = run_cli("plan", *INPUTS, "-o", folder / "plan.json")
    assert done.exit_code == 2 and "error[output]: cannot write in" in done.output


def test_the_places_are_checked_once_a_folder_and_leave_nothing(tmp_path):
    check_output_places([tmp_path / "a.md", tmp_path / "b.json"])
    assert list(tmp_path.iterdir()) == []  # the probe file is gone
    with pytest.raises(OutputError, match="given twice"):
        check_output_places([tmp_path / "a.md", tmp_path / "." / "a.md"])
