"""bench/judge_calibration.py stays runnable (a tiny size of its grid), and docs/judge.md's published table is
the script's shape and meets the issue's bar (coverage >= 93% at 100 paired gold labels, TPR 0.9 and FPR 0.2 on
both releases; the issue's example never shown better by the corrected interval at 150 labels)."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "judge.md"


def _bench():
    spec = importlib.util.spec_from_file_location("judge_calibration", ROOT / "bench" / "judge_calibration.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["judge_calibration"] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_the_script_runs_at_a_tiny_size(tmp_path, capsys):
    bench = _bench()
    doc = tmp_path / "judge.md"
    doc.write_text(f"head\n{bench.START}\nSTALE-TEXT\n{bench.END}\ntail\n")
    cells = bench.main(["--reps", "3", "--cases", "500", "--write", str(doc)])
    assert len(cells) == len(bench.JUDGES) * (len(bench.GOLD_SIZES) + len(bench.PER_RELEASE_SIZES))
    assert all(c.reps == 3 and 0 <= c.corrected_coverage <= 1 for c in cells)
    text = doc.read_text()
    assert text.startswith("head\n") and text.endswith("tail\n") and "STALE-TEXT" not in text
    assert text.count("\n| ") == len(cells) + 1
    assert "corrected coverage" in capsys.readouterr().out


def _rows() -> dict[tuple[str, str, int], list[str]]:
    body = DOC.read_text(encoding="utf-8").split("<!-- judge-calibration:start -->")[1].split(
        "<!-- judge-calibration:end -->")[0]
    rows = {}
    for line in body.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 11 and cells[3].isdigit():
            rows[(cells[0], cells[2], int(cells[3]))] = cells
    return rows


def test_the_published_table_meets_the_issue():
    bench = _bench()
    rows = _rows()
    assert len(rows) == len(bench.JUDGES) * (len(bench.GOLD_SIZES) + len(bench.PER_RELEASE_SIZES))
    assert "500 replications a cell" in DOC.read_text(encoding="utf-8")

    def pct(text: str) -> float:
        return float(re.match(r"([\d.]+)%", text).group(1))

    assert pct(rows[("equal J 0.7 (TPR 0.9, FPR 0.2)", "paired", 100)][4]) >= 93.0
    example = rows[("unequal J 0.8 / 0.5 (the issue's: FPR 0.1 / 0.4)", "paired", 150)]
    assert pct(example[8].split("/")[0]) == 0.0  # never shown better, corrected
    assert pct(example[9].split("/")[0]) > 40.0  # the raw judge shows it better about half the time
    assert min(pct(r[4]) for r in rows.values()) >= 90.0
