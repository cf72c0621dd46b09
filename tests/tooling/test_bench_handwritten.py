"""The hand-written yardsticks of bench/ give the tool's answer: the same fixed and broken counts and McNemar p
on a generated file, CSV and Parquet (the DuckDB script needs the bench extra: pip install '.[bench]')."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from conftest import run_cli

ROOT = Path(__file__).resolve().parents[2]


def _line(script: str, path: Path) -> str:
    done = subprocess.run([sys.executable, str(ROOT / "bench" / script), str(path)], capture_output=True,
                          text=True, check=True, timeout=120)
    return done.stdout.strip().splitlines()[-1]


def test_hand_scripts_agree_with_the_note(tmp_path: Path) -> None:
    pytest.importorskip("duckdb")
    sys.path.insert(0, str(ROOT / "bench"))
    from generate import binary_results

    path = binary_results(tmp_path, 3_000, n_categories=5)
    parquet = path.with_suffix(".parquet")
    pd.read_csv(path, dtype={"case_id": str}).to_parquet(parquet, index=False)
    lines = path.with_suffix(".jsonl")
    pd.read_csv(path, dtype={"case_id": str}).to_json(lines, orient="records", lines=True)
    note = tmp_path / "note.json"
    run_cli("report", path, "--baseline", "r1-live", "-o", note)
    overall = json.loads(note.read_text())["candidates"][0]["overall"]
    expected = f"r2-candidate: fixed {overall['fixed']}, broke {overall['broke']}, McNemar p = {overall['p_value']:.3g}"
    assert _line("handwritten.py", path) == expected
    assert _line("handwritten_duckdb.py", path) == expected
    assert _line("handwritten_duckdb.py", parquet) == expected
    assert _line("handwritten_duckdb.py", lines) == expected
