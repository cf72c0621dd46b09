"""A sweep ([run.grid]): candidates named after their values, ranked against the baseline with Holm."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats as scipy_stats

from conftest import run_cli
from releasegate.errors import InputError
from releasegate.run.config import load_config, parse_config
from releasegate.run.sweep import rank_candidates
from run_support import write_cases, write_config


def _sweep(tmp_path, runs=1):
    cases = write_cases(tmp_path / "cases.csv", 150)
    path = tmp_path / "run.toml"
    write_config(path, {"cases": cases.name, "store": "store", "runs": runs},
                 [{"name": "live", "kind": "fake", "accuracy": 0.7}, {"name": "cand", "kind": "fake", "seed": 5}],
                 {"kind": "exact"})
    path.write_text(path.read_text() + '\n[run.grid]\nbase = "cand"\naccuracy = [0.5, 0.72, 0.95]\n'
                    'wrong_answer = ["no", "maybe"]\n')
    return path


def _holm(p):
    """Holm by hand: sorted p times k, k-1, ..., 1, running maximum, capped at 1 (Holm 1979)."""
    p = np.asarray(p, dtype=float)
    order = np.argsort(p)
    adjusted = np.empty_like(p)
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, (len(p) - rank) * p[index])
        adjusted[index] = min(1.0, running)
    return adjusted


def test_the_grid_expands_into_named_candidates(tmp_path):
    config = load_config(_sweep(tmp_path))
    names = [s.name for s in config.systems]
    assert names[0] == "live" and len(names) == 7
    assert "cand:accuracy=0.95,wrong_answer=maybe" in names
    assert config.grid_baseline == "live" and len(config.grid_candidates) == 6
    assert len({s.system_hash for s in config.systems}) == 7


def test_the_sweep_ranks_with_holm_across_candidates(tmp_path):
    path = _sweep(tmp_path)
    done = run_cli("run", path, "-o", tmp_path / "t.csv")
    assert done.exit_code == 0, done.output
    assert "Sweep: 6 candidate(s) ranked against live, Holm across candidates" in done.output
    assert "Best: cand:accuracy=0.95," in done.output
    table = pd.read_csv(tmp_path / "t.csv", dtype={"case_id": str})
    config = load_config(path)
    ranked = rank_candidates(table, "live", config.grid_candidates)
    wide = table.pivot(index="case_id", columns="release", values="passed")
    raw = []
    for name in config.grid_candidates:
        fixed = int(((wide[name] == 1) & (wide["live"] == 0)).sum())
        broke = int(((wide[name] == 0) & (wide["live"] == 1)).sum())
        raw.append(scipy_stats.binomtest(fixed, fixed + broke, 0.5, alternative="greater").pvalue)
    expected = dict(zip(config.grid_candidates, _holm(raw)))
    for row in ranked:
        assert row.p_adjusted == pytest.approx(expected[row.name], rel=1e-9)
        assert row.p_adjusted >= row.p_better
    assert [r.difference for r in ranked] == sorted((r.difference for r in ranked), reverse=True)

    note = tmp_path / "note.md"
    assert run_cli("report", tmp_path / "store", "--baseline", "live", "-o", note).exit_code == 0
    assert "Holm across candidates" in note.read_text()

    # The store records the sweep's baseline: report and check need no --baseline (the notes say which).
    recorded = tmp_path / "recorded.md"
    assert run_cli("report", tmp_path / "store", "-o", recorded).exit_code == 0
    text = recorded.read_text()
    assert "Baseline live: the one the sweep in the run store was ranked against" in text
    assert text.replace("Baseline live: the one the sweep in the run store was ranked against (no --baseline "
                        "given).", "").count("Holm across candidates") == note.read_text().count("Holm across candidates")
    with_flag = run_cli("check", tmp_path / "store", "--baseline", "live")
    without = run_cli("check", tmp_path / "store")
    assert without.exit_code == with_flag.exit_code and without.output == with_flag.output
    other = run_cli("check", tmp_path / "store", "--baseline", "cand:accuracy=0.5,wrong_answer=no")
    assert other.exit_code in (0, 1, 3) and "live" in other.output  # a given baseline still wins


def test_with_runs_the_ranking_uses_the_paired_t_test():
    rng = np.random.default_rng(3)
    rows = []
    for case in range(40):
        for run in range(3):
            rows.append({"release": "base", "case_id": str(case), "run": run, "passed": float(rng.random() < 0.6)})
            rows.append({"release": "a", "case_id": str(case), "run": run, "passed": float(rng.random() < 0.8)})
            rows.append({"release": "b", "case_id": str(case), "run": run, "passed": float(rng.random() < 0.6)})
    table = pd.DataFrame(rows)
    ranked = {r.name: r for r in rank_candidates(table, "base", ("a", "b"))}
    means = table.groupby(["release", "case_id"])["passed"].mean().unstack("release")
    raw = [scipy_stats.ttest_rel(means[c], means["base"], alternative="greater").pvalue for c in ("a", "b")]
    for name, p, adjusted in zip(("a", "b"), raw, _holm(raw)):
        assert ranked[name].method == "paired t"
        assert ranked[name].p_better == pytest.approx(p, rel=1e-8)
        assert ranked[name].p_adjusted == pytest.approx(adjusted, rel=1e-8)


@pytest.mark.parametrize("grid,message", [
    ({"base": "nope", "accuracy": [0.1]}, "base must name a [[run.system]]"),
    ({"base": "cand", "baseline": "cand", "accuracy": [0.1]}, "baseline must name another"),
    ({"base": "cand"}, "needs at least one key"),
    ({"base": "cand", "accuracy": []}, "must be a non-empty list"),
    ({"base": "cand", "name": ["x"]}, "cannot vary 'name'"),
    ({"base": "cand", "colour": [1]}, "unknown key(s) colour"),
])
def test_bad_grids_are_refused(grid, message):
    raw = {"cases": "c.csv", "store": "s", "metric": {"kind": "exact"}, "grid": grid,
           "system": [{"name": "live", "kind": "fake"}, {"name": "cand", "kind": "fake"}]}
    with pytest.raises(InputError) as caught:
        parse_config(raw)
    assert message in str(caught.value)
