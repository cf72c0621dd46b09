"""bench/run.py keeps working as the tree changes: it times a command, writes the table and names what this tree
lacks. Timings are not asserted (the machine decides them)."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_run_writes_the_table(tmp_path):
    out = tmp_path / "RESULTS.md"
    done = subprocess.run(
        # No warm-up runs: the table's form is tested here, not the figures (6 s of commands rather than 14).
        [sys.executable, str(ROOT / "bench" / "run.py"), "--only", "start-up", "--only", "CI gate", "--only", "HTML",
         "--runs", "1", "--warmups", "0", "--out", str(out), "--workdir", str(tmp_path / "work")],
        capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    text = out.read_text()
    assert text in done.stdout  # printed and written alike
    assert "nproc" in text and "pandas" in text  # the machine and versions head the table
    assert "1 runs of each small command after no warm-up run" in text
    lines = {line.split(" | ")[0].lstrip("| "): line for line in text.splitlines() if line.startswith("| ")}
    assert "<= 0.15 s: **" in lines["start-up"]
    assert "<= 1 s: **" in lines["CI gate, bank-assistant example"]
    html = lines["HTML report, example"]
    if importlib.util.find_spec("releasegate.render.html") is None:
        assert "n/a (not available in this tree)" in html and "HTML report" in text.split("Closing note")[1]
    else:
        # Paired run by run with the lesson's script, even when its own row is not selected.
        assert re.search(r"<= 2x the lesson's script \(\d+\.\d\dx, run by run\): \*\*", html), html
    # Only the large rows need the generated inputs: none were written for these.
    assert not list((tmp_path / "work").glob("*.csv"))
