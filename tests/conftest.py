from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from releasegate.cli import main
from releasegate.demo import example_files

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"


@pytest.fixture(autouse=True)
def _reproducible_time(monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1796000000")
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)


@pytest.fixture
def example() -> dict[str, Path]:
    """The bundled bank-assistant example: eval_results.csv, eval_cases.csv, releasegate.toml."""
    return example_files()


def run_cli(*args: str, cwd: Path | None = None):
    runner = CliRunner()
    old = os.getcwd()
    try:
        if cwd:
            os.chdir(cwd)
        return runner.invoke(main, [str(a) for a in args], catch_exceptions=False)
    finally:
        os.chdir(old)


@pytest.fixture
def example_json(tmp_path, example) -> dict:
    out = tmp_path / "r.json"
    result = run_cli("report", example["eval_results.csv"], "--cases", example["eval_cases.csv"],
                     "--policy", example["releasegate.toml"], "-o", out)
    assert result.exit_code == 0, result.output
    return json.loads(out.read_text())
