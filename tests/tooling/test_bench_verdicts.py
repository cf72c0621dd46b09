"""The issue-34 studies keep running as the tree changes (bench/verdicts.py, bench/critical_designs.py,
bench/settle.py, bench/error_rate.py): a few replications each, the tables' shape checked, no rate asserted."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(("script", "args", "rows"), [
    ("verdicts.py", ("--reps", "3"), 14),
    ("verdicts.py", ("--study", "rerun", "--reps", "3"), 6),
    ("critical_designs.py", ("--reps", "2", "--workers", "1"), 7),
    ("settle.py", ("--reps", "3"), 12),
    ("error_rate.py", ("--reps", "4"), 42),
])
def test_the_study_prints_its_table(script, args, rows):
    done = subprocess.run([sys.executable, str(ROOT / "bench" / script), *args], capture_output=True, text=True,
                          timeout=600, check=False, env={"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    table = [line for line in done.stdout.splitlines() if line.startswith("| ")]
    assert len(table) == 1 + rows  # the header, then one row per cell
