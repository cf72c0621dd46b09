"""bench/csv_pieces.py keeps working as the reader changes: every setting reads every row. Timings are not
asserted (the machine decides them)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_setting_reads_every_row(tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    rows = [f"c{i},r{1 + i % 2},Category {i % 3},{i % 2},{10 + i % 7}.5" for i in range(3_000)]
    path.write_text("case_id,release,category,passed,latency_ms\n" + "\n".join(rows) + "\n", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "csv_pieces.py"), str(path), "--pieces", "0.02,1",
                           "--blocks", "0.01", "--rounds", "1", "--stream"],
                          capture_output=True, text=True, timeout=120, check=False, env=env)
    assert done.returncode == 0, done.stderr
    reads = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(r["reader"], r["piece_mib"]) for r in reads] == [("pieces", 0.02), ("pieces", 1), ("stream", 0)]
    assert {r["rows"] for r in reads} == {3_000}
    assert all(r["peak_mib"] > 0 and r["wall_s"] > 0 for r in reads)
