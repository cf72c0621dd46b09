"""A file of thousands of columns reads without pandas' PerformanceWarning on stderr ("DataFrame is highly
fragmented"): the parsed frame is one block per type, and a metric's table is selected, not dropped, from it."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from conftest import ROOT


def _wide(path, columns: int = 3000) -> None:
    names = [f"m{i}" for i in range(columns)]
    rows = ["release,case_id,passed," + ",".join(names)]
    rows += [f"{r},c{i},{(i + k) % 2}," + ",".join(str((i + j) % 2) for j in range(columns))
             for k, r in enumerate(("r1", "r2")) for i in range(20)]
    path.write_text("\n".join(rows) + "\n")


@pytest.mark.parametrize("extra", [(), ("--metric", "m1")])
def test_three_thousand_columns_leave_stderr_clean(tmp_path, extra):
    _wide(tmp_path / "wide.csv")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "PYTHONWARNINGS": "default"}
    done = subprocess.run([sys.executable, "-m", "releasegate", "report", "wide.csv", "--baseline", "r1",
                           "--no-policy", *extra, "-o", "n.md"], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stderr == "wrote n.md\n", done.stderr
