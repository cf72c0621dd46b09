"""mypy --strict on the stages that are plain data and statistics: stats/, model/, decide/ and analyze/ (issue
27). The packages and the settings are pyproject.toml's [tool.mypy]; any error fails the test with mypy's
report, so a new untyped function or a wrong annotation there is caught where it is written."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHECKED = ["src/releasegate/stats", "src/releasegate/model", "src/releasegate/decide", "src/releasegate/analyze"]


def test_the_checked_packages_are_the_configured_ones() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]
    assert config["strict"] is True
    assert config["files"] == CHECKED


def test_mypy_strict_finds_no_error() -> None:
    # The cache lives in the checkout (.mypy_cache, ignored by git): a second run takes a few seconds.
    result = subprocess.run([sys.executable, "-m", "mypy", "--no-error-summary"], cwd=ROOT, capture_output=True,
                            text=True, timeout=600)
    assert result.returncode == 0, f"mypy --strict:\n{result.stdout}{result.stderr}"
    assert result.stdout == ""
