"""The run axis's row names each release's run count with its noun: one run is "1 run", not "1 runs" (a baseline
run once against a candidate run three times), in the Markdown and the HTML note."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd

from conftest import run_cli


def _results(tmp_path: Path) -> Path:
    rng = np.random.default_rng(7)
    rows = [("base", f"c{k:03d}", 1, int(rng.random() < 0.8)) for k in range(120)]
    rows += [("cand", f"c{k:03d}", run, int(rng.random() < 0.8)) for k in range(120) for run in (1, 2, 3)]
    path = tmp_path / "results.csv"
    pd.DataFrame(rows, columns=["release", "case_id", "run", "passed"]).to_csv(path, index=False)
    return path


def test_one_run_is_one_run(tmp_path: Path) -> None:
    md, html = tmp_path / "note.md", tmp_path / "note.html"
    result = run_cli("report", str(_results(tmp_path)), "--baseline", "base", "-o", str(md), "-o", str(html))
    assert result.exit_code in (0, 1, 3), result.output
    for text in (md.read_text(), re.sub(r"<[^>]+>", "", html.read_text())):
        assert "the run: 1 run of base, 3 of cand" in text
        assert "1 runs" not in text
