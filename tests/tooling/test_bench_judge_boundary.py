"""bench/judge_boundary.py stays runnable (a tiny size), and docs/judge.md's published table is its shape and
shows why gold labels that show the judge no error give no figure the rules read: with unequal error rates
those samples' corrected intervals undercover, the others' do not."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "judge.md"


def _bench():
    sys.path.insert(0, str(ROOT / "bench"))
    spec = importlib.util.spec_from_file_location("judge_boundary", ROOT / "bench" / "judge_boundary.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_script_runs_at_a_tiny_size(tmp_path):
    bench = _bench()
    doc = tmp_path / "judge.md"
    doc.write_text(f"head\n{bench.START}\nSTALE\n{bench.END}\ntail\n")
    bench.main(["--reps", "5", "--cases", "300", "--write", str(doc)])
    text = doc.read_text()
    assert "STALE" not in text and text.startswith("head\n") and text.endswith("tail\n")
    assert text.count("\n| ") == 2 * len(bench.JUDGES) + 1


def test_the_published_table_shows_the_undercoverage():
    body = DOC.read_text(encoding="utf-8").split("<!-- judge-boundary:start -->")[1].split(
        "<!-- judge-boundary:end -->")[0]
    rows = {}
    for line in body.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 6 and cells[2].isdigit():
            rows[(cells[0], cells[1])] = [float(cells[3].rstrip("%")), int(cells[4]), float(cells[5].rstrip("%"))]
    assert len(rows) == 6 and "4000 replications a row" in body
    for (judge, _), (with_error, none, without) in rows.items():
        assert with_error >= 91.0 and none > 80
        if "on both" not in judge:  # unequal rates: the samples that show no error undercover
            assert without <= 80.0
