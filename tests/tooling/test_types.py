"""mypy --strict on the stages that are plain data and statistics: stats/, model/, decide/ and analyze/ (issue
27), and on the whole package with a ceiling on its errors.

The strict packages and the settings are pyproject.toml's [tool.mypy]; any error there fails the test with
mypy's report, so a new untyped function or a wrong annotation there is caught where it is written. The whole
package is checked with ``--follow-imports=silent`` and the package's own sources first on mypy's path, so the
count is the same in an editable and in a non-editable install (a followed installed copy reports nothing)."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHECKED = ["src/releasegate/stats", "src/releasegate/model", "src/releasegate/decide", "src/releasegate/analyze"]
# The errors mypy --strict may still find in the whole package (the modules outside the strict packages);
# a change that adds errors past it types what it adds.
WHOLE_PACKAGE_CEILING = 100


def _mypy(*arguments: str) -> subprocess.CompletedProcess[str]:
    # The cache lives in the checkout (.mypy_cache, ignored by git): a second run takes a few seconds.
    return subprocess.run([sys.executable, "-m", "mypy", *arguments], cwd=ROOT, capture_output=True, text=True,
                          timeout=900)


def test_the_checked_packages_are_the_configured_ones() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]
    assert config["strict"] is True
    assert config["files"] == CHECKED
    assert config["mypy_path"] == "src"  # the sources, not an installed copy, whatever the install
    assert config["follow_imports"] == "silent"  # the other packages reported by neither install


def test_mypy_strict_finds_no_error() -> None:
    result = _mypy("--no-error-summary")
    assert result.returncode == 0, f"mypy --strict:\n{result.stdout}{result.stderr}"
    assert result.stdout == ""


def test_the_whole_package_stays_under_its_ceiling() -> None:
    result = _mypy("--strict", "--follow-imports=silent", "-p", "releasegate")
    errors = [line for line in result.stdout.splitlines() if re.match(r"^\S+\.py:\d+: error:", line)]
    assert not result.stderr.strip(), result.stderr
    assert result.returncode in (0, 1), f"mypy did not finish:\n{result.stdout}{result.stderr}"
    outside = [line for line in errors if not line.startswith("src/releasegate/")]
    assert outside == [], f"errors reported outside the package's sources:\n{chr(10).join(outside)}"
    assert len(errors) <= WHOLE_PACKAGE_CEILING, (
        f"mypy --strict on the whole package: {len(errors)} errors, the ceiling is {WHOLE_PACKAGE_CEILING}:\n"
        + "\n".join(errors))
    # Nothing in the strict packages: they are held to zero above, and the two runs agree.
    strict = [line for line in errors if line.startswith(tuple(f"{path}/" for path in CHECKED))]
    assert strict == [], "\n".join(strict)
