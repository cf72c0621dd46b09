"""Several metrics from harness files (issue 16, part 2): an Inspect log gated on three scorers at once
(``--metric scorer`` or ``scorer/key``), a promptfoo file on its named metrics and ``success``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import run_cli
from metrics_support import promptfoo_with_named_metrics

TESTS = Path(__file__).resolve().parents[1]
POPULARITY = TESTS / "fixtures" / "inspect" / "2025-05-12T20-28-13-04-00_popularity.json"


def _inspect(tmp_path, name: str, safe: list[str], tone: list[float]) -> Path:
    log = json.loads(POPULARITY.read_text())
    log["status"] = "success"  # the fixture's log was cancelled after 3 samples; read it as a finished one
    for sample, s, t in zip(log["samples"], safe, tone):
        sample["scores"]["safe"] = {"value": s}
        sample["scores"]["style"] = {"value": {"tone": t, "length": 1}}
    path = tmp_path / name
    path.write_text(json.dumps(log))
    return path


def test_an_inspect_log_gated_on_three_scorers(tmp_path):
    live = _inspect(tmp_path, "live.json", ["C", "C", "C"], [0.5, 0.5, 0.5])
    new = _inspect(tmp_path, "new.json", ["C", "I", "I"], [0.5, 0.5, 0.5])
    out = tmp_path / "note.json"
    result = run_cli("check", f"live={live}", f"new={new}", "--baseline", "live", "--margin", "0.9",
                     "--metric", "match", "--metric", "safe", "--metric", "style/tone", "-o", out)
    data = json.loads(out.read_text())
    assert data["metrics_gated"] == ["match", "safe", "style/tone"]
    cells = data["candidates"][0]["metrics"]
    assert cells["safe"]["diff"] == pytest.approx(-2 / 3) and cells["match"]["diff"] == 0.0 and cells["style/tone"]["diff"] == 0.0
    assert data["metrics"]["style/tone"]["outcome_kind"] == "continuous"
    # Each scorer's figures are the single-scorer run's (the --scorer choice of today).
    single = tmp_path / "safe.json"
    run_cli("report", f"live={live}", f"new={new}", "--baseline", "live", "--margin", "0.9", "--scorer", "safe",
            "-o", single)
    alone = json.loads(single.read_text())["candidates"][0]["overall"]
    assert data["metrics"]["safe"]["candidates"][0]["overall"]["diff"] == alone["diff"]
    assert data["metrics"]["safe"]["candidates"][0]["overall"]["ci_low"] == alone["ci_low"]
    assert result.exit_code in (0, 1, 3)


def test_a_scorer_that_does_not_exist_is_named(tmp_path):
    live = _inspect(tmp_path, "live.json", ["C", "C", "C"], [0.5, 0.5, 0.5])
    new = _inspect(tmp_path, "new.json", ["C", "I", "C"], [0.5, 0.5, 0.5])
    result = run_cli("check", f"live={live}", f"new={new}", "--baseline", "live", "--metric", "match",
                     "--metric", "nope")
    assert result.exit_code == 2 and "no scorer 'nope'" in result.output


def test_a_promptfoo_file_gated_on_named_metrics_and_success(tmp_path):
    path = promptfoo_with_named_metrics(tmp_path)
    out = tmp_path / "note.json"
    run_cli("check", path, "--baseline", "gpt-4o-mini", "--margin", "0.9", "--metric", "success",
            "--metric", "correctness", "--metric", "brevity", "-o", out)
    report = json.loads(out.read_text())
    assert report["metrics_gated"] == ["success", "correctness", "brevity"]
    cells = report["candidates"][0]["metrics"]
    assert cells["brevity"]["diff"] == 0.0
    assert cells["correctness"]["diff"] < 0
    success = report["metrics"]["success"]["candidates"][0]
    assert success["errors"]["excluded"] == 1  # the provider error left every metric's comparison
