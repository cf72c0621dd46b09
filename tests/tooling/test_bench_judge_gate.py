"""bench/judge_gate.py stays runnable (a tiny size), and the published table in docs/operating-characteristics.md
is its shape and shows what the gate is for: the issue's example (unequal FPR), which the raw judge never
blocks, is blocked in most replications at 150 gold labels; a good equal judge (J 0.9) is rarely held by it."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "operating-characteristics.md"


def _bench():
    sys.path.insert(0, str(ROOT / "bench"))
    spec = importlib.util.spec_from_file_location("judge_gate", ROOT / "bench" / "judge_gate.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["judge_gate"] = module
    spec.loader.exec_module(module)
    return module


def test_the_script_runs_at_a_tiny_size(tmp_path):
    bench = _bench()
    doc = tmp_path / "oc.md"
    doc.write_text(f"head\n{bench.START}\nSTALE\n{bench.END}\nmiddle\n{bench.CORRECTION_START}\nSTALE\n"
                   f"{bench.CORRECTION_END}\ntail\n")
    cells = bench.main(["--reps", "2", "--cases", "500", "--write", str(doc)])
    assert len(cells) == len(bench.JUDGES) * len(bench.GOLD_SIZES)
    assert all(0 <= c.gated_false_blocks <= 1 and c.gated_false_blocks >= c.raw_false_blocks for c in cells)
    text = doc.read_text()
    corrections = len(bench.CORRECTION_JUDGES) * len(bench.CORRECTION_SIZES)
    assert "STALE" not in text and text.count("\n| ") == len(cells) + 1 + corrections + 1
    assert "middle" in text and "tail" in text


def _rows() -> dict[tuple[str, int], list[float]]:
    body = DOC.read_text(encoding="utf-8").split("<!-- BEGIN generated:judge-gate -->")[1].split(
        "<!-- END generated:judge-gate -->")[0]
    rows = {}
    for line in body.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 5 and cells[1].isdigit():
            figures = [float(x.rstrip("%")) for part in cells[2:] for x in part.split(" / ")]
            rows[(cells[0], int(cells[1]))] = figures
    return rows


def test_the_published_table_shows_the_gate_doing_its_job():
    rows = _rows()
    assert len(rows) == 35
    issue = rows[("unequal J 0.8 / 0.5 (the issue's: FPR 0.1 / 0.4)", 150)]
    raw_fb, gated_fb, raw_det, gated_det, fired_h, fired_r = issue
    assert raw_det == 0.0 and gated_det >= 80.0  # the raw judge ships the regression; the gate holds it
    for n in (100, 150, 200, 400):
        good = rows[("equal J 0.9", n)]
        assert good[4] <= 5.0 and good[1] - good[0] <= 5.0  # a good equal judge: the gate rarely fires


def _correction_rows(path: Path) -> dict[tuple[str, int], list[float]]:
    body = path.read_text(encoding="utf-8").split("<!-- BEGIN generated:judge-correction -->")[1].split(
        "<!-- END generated:judge-correction -->")[0]
    rows = {}
    for line in body.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 6 and cells[1].isdigit():
            rows[(cells[0], int(cells[1]))] = [float(x.rstrip("%")) for part in cells[2:] for x in part.split(" / ")]
    return rows


def test_the_correction_table_is_published_in_both_docs_and_shows_what_it_is_for():
    """The raw judge never blocks the issue's regression as DON'T SHIP; read corrected, the rules detect it
    more often the more labels there are; a harmless release is told DON'T SHIP about alpha of the time
    either way (200 replications: within 2 standard errors of 5%, about 8%)."""
    rows = _correction_rows(DOC)
    assert rows == _correction_rows(ROOT / "docs" / "judge.md") and len(rows) == 9
    issue = "unequal J 0.8 / 0.5 (the issue's: FPR 0.1 / 0.4)"
    detection = [rows[(issue, n)][5] for n in (50, 150, 400)]
    assert all(rows[(issue, n)][4] == 0.0 for n in (50, 150, 400))  # raw: DON'T SHIP never
    assert detection == sorted(detection) and detection[-1] >= 80.0
    for (judge, n), (ds_raw, ds_corr, np_raw, np_corr, det_raw, det_corr, ns_raw, ns_corr) in rows.items():
        assert ds_corr <= 8.0 and ds_raw <= 8.0, (judge, n)
    # A good equal judge at 400 labels: the correction costs little and detects as well as the raw judge.
    good = rows[("equal J 0.9", 400)]
    assert good[3] <= 10.0 and good[5] >= good[4] - 5.0
