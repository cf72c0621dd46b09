"""The operating-characteristics study (bench/operating_characteristics.py) on a tiny grid, its simulation
model, the common gates against scipy, and the published doc against its JSON."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

from opchar import gates, grid, publish, simulate
from opchar.simulate import Sample, Scenario


def _run(scenario: Scenario, reps: int, names=("default",), crosscheck: int = 10) -> dict:
    return grid.run_cell(grid.Cell(scenario, reps, names, crosscheck))


@pytest.fixture(scope="module")
def tiny() -> dict[float, dict]:
    names = ("default", "alpha 0.05, margin 0", "alpha 0.1, margin 0.02")
    return {d: _run(Scenario(n=200, share=0.1, delta=d), 150, names) for d in (0.0, -0.03, -0.10)}


def test_block_rate_rises_with_the_regression(tiny):
    blocked = [tiny[d]["policies"]["default"]["blocked"] for d in (0.0, -0.03, -0.10)]
    assert blocked[0] < blocked[1] < blocked[2]
    assert blocked[2] > 0.9 and blocked[0] < 0.5
    for gate in ("threshold", "ztest"):
        assert tiny[-0.10]["gates"][gate] > tiny[0.0]["gates"][gate]


def test_shares_are_consistent(tiny):
    for result in tiny.values():
        assert result["crosschecked"] == 10
        assert result["gates"]["seed_axis"] is None  # one run: the seed axis does not exist
        for shares in result["policies"].values():
            values = [shares["ship"], shares["blocked"], shares["blocked_without_ni"], shares["ni_only"],
                      *shares["rules"].values()]
            assert all(0.0 <= v <= 1.0 for v in values)
            assert shares["ship"] + shares["blocked"] == pytest.approx(1.0)
            assert shares["blocked_without_ni"] + shares["ni_only"] == pytest.approx(shares["blocked"])
            assert max(shares["rules"].values()) <= shares["blocked"] + 1e-12
            assert shares["ni_only"] <= shares["rules"]["not_non_inferior"] + 1e-12
            # No critical categories and no guardrails in these policies: those rules never fire.
            assert shares["rules"]["critical_broken"] == 0 and shares["rules"]["guardrail"] == 0


def test_policies_order_as_they_should(tiny):
    null = tiny[0.0]["policies"]
    # Margin 0 turns the non-inferiority rule off; a narrower margin can only block more.
    assert null["alpha 0.05, margin 0"]["rules"]["not_non_inferior"] == 0
    assert null["alpha 0.1, margin 0.02"]["blocked"] >= null["alpha 0.05, margin 0"]["blocked"]


def test_cells_are_reproducible():
    sc = Scenario(n=100, delta=-0.02, categories=3)
    first, second = _run(sc, 60, crosscheck=3), _run(sc, 60, crosscheck=3)
    assert first["policies"] == second["policies"] and first["gates"] == second["gates"]


@pytest.mark.parametrize("sc", [
    Scenario(),
    Scenario(p0=0.6, share=0.15, delta=-0.05),
    Scenario(delta=-0.10),  # one way: every change is a break
    Scenario(categories=9, delta=-0.03),
    Scenario(categories=9, spread="even", delta=-0.03),
    Scenario(clusters=20, delta=-0.02),
])
def test_simulation_hits_its_true_difference(sc):
    samples = list(simulate.draw(sc, 400, np.random.default_rng(7)))
    diffs = np.array([s.cand.mean() - s.base.mean() for s in samples])
    base = np.array([s.base.mean() for s in samples])
    se = diffs.std(ddof=1) / np.sqrt(diffs.size)
    assert abs(diffs.mean() - sc.delta) < 4 * se + 1e-9
    assert abs(base.mean() - sc.p0) < 0.01
    changing = np.mean([np.mean(s.base != s.cand) for s in samples])
    expected = max(sc.share, abs(sc.delta)) if sc.categories == 1 and not sc.clusters else None
    if expected is not None:
        assert changing == pytest.approx(expected, abs=0.005)


def test_one_category_carries_the_regression():
    sc = Scenario(n=450, categories=9, delta=-0.02)
    samples = list(simulate.draw(sc, 300, np.random.default_rng(3)))
    first = np.mean([s.cand[s.category == 0].mean() - s.base[s.category == 0].mean() for s in samples])
    others = np.mean([s.cand[s.category > 0].mean() - s.base[s.category > 0].mean() for s in samples])
    assert first == pytest.approx(-0.18, abs=0.01) and others == pytest.approx(0.0, abs=0.005)


def test_runs_keep_the_release_rates():
    sc = Scenario(n=300, runs=5, delta=-0.05)
    samples = list(simulate.draw(sc, 200, np.random.default_rng(5)))
    assert samples[0].base_runs.shape == (5, 300)
    assert np.mean([s.base_runs.mean() for s in samples]) == pytest.approx(0.9, abs=0.005)
    assert np.mean([s.cand_runs.mean() for s in samples]) == pytest.approx(0.85, abs=0.005)


def test_impossible_designs_are_refused():
    with pytest.raises(ValueError, match="infeasible"):
        simulate.Design(Scenario(p0=0.6, categories=9, delta=-0.10))
    with pytest.raises(ValueError, match="infeasible"):
        simulate.cell_probabilities(0.95, 0.05, 0.08)
    cells = grid.build_grid(10)
    assert all(c.scenario != Scenario(categories=9, delta=0.02) for c in cells)  # +18 points in one category


def _sample(base, cand, runs=None) -> Sample:
    base, cand = np.asarray(base, float), np.asarray(cand, float)
    if runs is not None:
        base_runs, cand_runs = np.asarray(runs[0]), np.asarray(runs[1])
        return Sample(base_runs.mean(0), cand_runs.mean(0), None, None, base_runs, cand_runs)
    return Sample(base, cand, None, None, None, None)


def test_threshold_gate_blocks_more_than_one_point_only():
    base = np.ones(100)
    assert not gates.threshold_gate(_sample(base, np.r_[np.zeros(1), np.ones(99)]))
    assert gates.threshold_gate(_sample(base, np.r_[np.zeros(2), np.ones(98)]))


def test_ztest_gate_matches_scipy():
    rng = np.random.default_rng(11)
    for _ in range(20):
        base = rng.random(300) < 0.9
        cand = rng.random(300) < 0.85
        sample = _sample(base, cand)
        table = [[base.sum(), 300 - base.sum()], [cand.sum(), 300 - cand.sum()]]
        p = stats.chi2_contingency(table, correction=False).pvalue  # pooled z-test squared
        assert gates.ztest_gate(sample) == bool(cand.sum() < base.sum() and p < 0.05)


def test_seed_axis_matches_scipy_welch():
    rng = np.random.default_rng(12)
    runs = (rng.random((5, 200)) < 0.9).astype(int), (rng.random((5, 200)) < 0.87).astype(int)
    t, p = gates.welch_seed_axis(_sample(None, None, runs))
    ref = stats.ttest_ind(runs[1].mean(1), runs[0].mean(1), equal_var=False)
    assert t == pytest.approx(ref.statistic) and p == pytest.approx(ref.pvalue)
    assert gates.seed_axis_gate(_sample(np.ones(3), np.ones(3))) is None


@pytest.mark.parametrize("sc", [
    Scenario(n=180, categories=9, delta=-0.03),
    Scenario(n=200, clusters=20, delta=-0.02),
    Scenario(n=150, runs=3, categories=3, delta=-0.03),
    Scenario(n=180, runs=2, clusters=12, categories=3),
])
def test_fast_path_equals_the_library_path(sc):
    """Verdict and rules from the library's functions equal validate -> analyze -> decide on the tidy table,
    for McNemar, clustered and paired-mean plans, under policies that change each rule."""
    table = grid.policies()
    # A critical category needs categories: without them the library refuses the policy (issue 15).
    names = ("default", "critical k00", "correction none", "mcnemar midp", "alpha 0.1, margin 0.02")
    chosen = [table[k] for k in names if sc.categories > 1 or k != "critical k00"]
    for sample in simulate.draw(sc, 4, np.random.default_rng(2)):
        assert gates.library_fast(sample, chosen) == gates.library_full(sample, chosen)


def test_replace_blocks_needs_its_markers():
    text = "a\n<!-- BEGIN generated:x -->\nold\n<!-- END generated:x -->\nb\n"
    assert publish.replace_blocks(text, {"x": "new"}) == text.replace("old", "new")
    with pytest.raises(ValueError, match="'y'"):
        publish.replace_blocks(text, {"y": "new"})


def test_published_doc_matches_its_json():
    doc = (ROOT / "docs" / "operating-characteristics.md").read_text(encoding="utf-8")
    data = json.loads((ROOT / "docs" / "operating-characteristics.json").read_text(encoding="utf-8"))
    res = publish.Results(data["cells"])
    for name, body in publish.blocks(res, "").items():
        if name != "run":
            assert publish.replace_blocks(doc, {name: body}) == doc, name
    base = res.policy(delta=0.0)
    assert base["blocked_without_ni"] <= 0.05  # the target, in the published run
    assert res.gate("library", delta=-0.05) >= 0.80
    assert replace(grid.BASE, delta=0.0).key() in res.by_key
