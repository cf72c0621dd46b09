"""bench/scaling.py and bench/stages.py run on a small file, and the scaling section of RESULTS.md is replaced,
never duplicated, while the rest of the file stays. Timings are not asserted (the machine decides them)."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _scaling():
    spec = importlib.util.spec_from_file_location("bench_scaling", ROOT / "bench" / "scaling.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_stages_times_every_stage(tmp_path):
    path = tmp_path / "r.csv"
    rows = ["case_id,release,passed,category,latency_ms"]
    rows += [f"c{k},{r},{(k + j) % 2},K{k % 3},{100 + k}" for j, r in enumerate(["r1", "r2"]) for k in range(30)]
    path.write_text("\n".join(rows) + "\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "stages.py"), str(path), "--baseline", "r1",
                           "--out", str(tmp_path / "out")], capture_output=True, text=True, env=env, timeout=300,
                          check=False)
    assert done.returncode == 0, done.stderr
    stages = json.loads(done.stdout)
    assert list(stages) == ["imports", "load", "validate", "analyze", "decide", "json", "markdown", "total"]
    assert all(stages[s]["peak_mib"] > 0 for s in stages)
    assert json.loads((tmp_path / "out" / "note.json").read_text())["baseline"] == "r1"


def test_the_section_is_replaced_and_the_rest_kept(tmp_path):
    scaling = _scaling()
    results = tmp_path / "RESULTS.md"
    results.write_text("# head\n\ntable from run.py\n")
    row = {"n": 10, "mb": 0.1, "runs": 3, "pandas": (1.0, 0.5, 100.0), "whole": (2.0, 1.5, 120.0),
           "ratio_wall": 2.0, "ratio_cpu": 3.0, "ratio_range": (1.8, 2.4), "load_average": "1",
           "stages": {s: {"wall_s": 0.1, "cpu_s": 0.1, "peak_mib": 110} for s in scaling.STAGES}}
    scaling.write_results(scaling.table([row], "1.0", "1.1"), results)
    scaling.write_results(scaling.table([row, {**row, "n": 20}], "1.0", "1.2"), results)
    text = results.read_text()
    assert text.startswith("# head\n\ntable from run.py\n")
    assert text.count(scaling.START) == 1 and text.count(scaling.END) == 1
    # the second table, with its median ratio to pandas and the lowest and highest round
    assert "| 20 |" in text and "2.0x (3.0x), 1.8-2.4" in text


def test_run_keeps_the_scaling_section(tmp_path):
    spec = importlib.util.spec_from_file_location("bench_run", ROOT / "bench" / "run.py")
    run = importlib.util.module_from_spec(spec)
    sys.modules["bench_run"] = run  # its dataclasses look their module up while it loads
    try:
        spec.loader.exec_module(run)
    finally:
        del sys.modules["bench_run"]
    results = tmp_path / "RESULTS.md"
    assert run._scaling_section(results) == ""
    results.write_text("old table\n\n<!-- scaling:start -->\ncurve\n<!-- scaling:end -->\n")
    assert run._scaling_section(results) == "\n\n<!-- scaling:start -->\ncurve\n<!-- scaling:end -->\n"
    # kept in the order the file has them, so that rewriting the table leaves the other sections where they were
    results.write_text("old\n<!-- scaling:start -->\ncurve\n<!-- scaling:end -->\n"
                       "<!-- internals:start -->\nwhere\n<!-- internals:end -->\n")
    kept = run._scaling_section(results)
    assert kept.index("scaling:start") < kept.index("internals:start") and "where" in kept and "curve" in kept


def test_the_ratio_is_the_median_of_each_rounds_own_ratio():
    scaling = _scaling()
    stages = {s: {"wall_s": 0.1, "cpu_s": 0.1, "peak_mib": 110} for s in scaling.STAGES}
    # The machine's speed drifts between rounds: the rounds' own ratios are 3, 4 and 2 (median 3), while the
    # ratio of the medians would be 8 / 2 = 4.
    rounds = [{"pandas": (p, p, 400.0), "whole": (w, w / 2, rss), "stages": stages}
              for p, w, rss in ((1.0, 3.0, 700.0), (2.0, 8.0, 720.0), (10.0, 20.0, 710.0))]
    summary = scaling.summarise(rounds)
    assert summary["ratio_wall"] == 3.0 and summary["ratio_cpu"] == 1.5 and summary["ratio_range"] == (2.0, 4.0)
    assert summary["pandas"][0] == 2.0 and summary["whole"] == (8.0, 4.0, 720.0)  # medians; the largest peak
    assert summary["runs"] == 3
