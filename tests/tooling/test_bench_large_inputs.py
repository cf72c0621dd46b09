"""bench/large_inputs.py stays runnable: a tiny scale of every scenario, measured the same way."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _bench():
    spec = importlib.util.spec_from_file_location("large_inputs", ROOT / "bench" / "large_inputs.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["large_inputs"] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_large_inputs_script_at_a_tiny_scale(capsys):
    bench = _bench()
    measurements = bench.main(["--scale", "0.0005", "--only", "1m-x2-broken", "200k-x5-run1", "200k-x5-x3"])
    by_name = {m.scenario: m for m in measurements}
    for name in ("1m-x2-broken", "200k-x5-run1"):
        m = by_name[name]
        assert m.exit_code in (0, 1, 3), m.note
        assert 0 < m.markdown_chars <= bench.GITHUB_COMMENT_LIMIT
        assert m.peak_mb > 10 and m.seconds > 0
    assert by_name["200k-x5-run1"].rows == 500  # 100 cases x 5 releases, run 1 only
    runs = by_name["200k-x5-x3"]
    assert runs.rows == 1500
    assert runs.exit_code in (0, 1, 3) if bench.has_runs_path() else runs.note.startswith("not run")
    assert "| scenario | rows |" in capsys.readouterr().out
