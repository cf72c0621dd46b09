"""bench/generate.py's streamed writer (the 10^8-case file of bench/RESULTS.md): the shape of binary_results,
written a chunk at a time, read by the tool as any results file."""

from __future__ import annotations

import runpy
from pathlib import Path

import numpy as np
import pandas as pd

from conftest import build_report

ROOT = Path(__file__).resolve().parents[2]


def test_the_streamed_file_is_the_binary_shape_in_chunks_and_reads_as_one(tmp_path):
    streamed = runpy.run_path(str(ROOT / "bench" / "generate.py"))["streamed_binary_results"]
    path = streamed(tmp_path, 2_500, chunk=1_000)  # three chunks per release
    text = path.read_bytes()
    assert b'"' not in text  # unquoted: the reader splits it on two threads
    frame = pd.read_csv(path, dtype={"case_id": str})
    assert list(frame.columns) == ["case_id", "release", "category", "passed", "latency_ms", "input_tokens",
                                   "output_tokens"]
    base, cand = (frame[frame["release"] == r].reset_index(drop=True) for r in ("r1-live", "r2-candidate"))
    assert len(base) == len(cand) == 2_500 and frame["release"].iloc[:2_500].eq("r1-live").all()  # one block each
    assert base["case_id"].tolist() == cand["case_id"].tolist() == [f"C{i:04d}" for i in range(1, 2_501)]
    assert base["category"].tolist() == cand["category"].tolist() and base["category"].nunique() == 40
    assert 0.87 < base["passed"].mean() < 0.93  # the baseline passes 90%
    broke = int(((base["passed"] == 1) & (cand["passed"] == 0)).sum())
    fixed = int(((base["passed"] == 0) & (cand["passed"] == 1)).sum())
    assert 30 < broke < 110 and 40 < fixed < 120  # 3% of the passes broken, 30% of the failures fixed
    assert not np.array_equal(base["latency_ms"], cand["latency_ms"])
    report = build_report(path, baseline="r1-live")
    (candidate,) = report.sections[0].analysis.candidates
    assert report.sections[0].analysis.n_cases == 2_500
    assert (candidate.overall.fixed, candidate.overall.broke) == (fixed, broke)
