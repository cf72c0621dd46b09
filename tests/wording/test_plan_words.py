"""The lines ``releasegate plan`` prints are written by wording/plan.py from the very JSON its ``-o plan.json``
writes: read back from the file, the same figures give the same lines, byte for byte (so a line and the JSON
beside it never disagree), for a simulated plan and for a gold-label plan."""

from __future__ import annotations

import json

import pytest

from conftest import run_cli
from releasegate.wording import plan as words


def test_the_printed_lines_follow_from_the_written_json(tmp_path):
    out = tmp_path / "plan.json"
    result = run_cli("plan", "--n-cases", "300", "--critical-size", "Fraud=40", "--runs", "2", "--churn", "0.06",
                     "--run-churn", "0.05", "--pass-rate", "0.97", "--replications", "10", "--seed", "3", "-o", out)
    assert result.exit_code == 0, result.output
    written = json.loads(out.read_text(encoding="utf-8"))
    assert written["reach"]["chance"] == 0.8 and written["design"]["simulated_case_ceiling"] == pytest.approx(0.06)
    assert result.output.splitlines() == words.plan_lines(written)
    assert "(capped at 6.0% of cases" in result.output


def test_the_gold_plan_lines_follow_from_the_written_json(tmp_path):
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cli"))
    from test_plan_gold import _files

    res, gold = _files(tmp_path)
    out = tmp_path / "gold.json"
    result = run_cli("plan", res, "--baseline", "r1", "--gold", gold, "--gold-width", "0.12", "-o", out)
    assert result.exit_code == 0, result.output
    written = json.loads(out.read_text(encoding="utf-8"))
    assert result.output.splitlines() == words.gold_plan_lines(written)
