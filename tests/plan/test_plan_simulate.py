"""The plan's release simulator hits its targets (pass rates, churn, drops, ICC) and the evaluator counts
what the gate says, with Monte Carlo error; seeded and reproducible."""

from __future__ import annotations

import numpy as np
import pytest

from releasegate.plan.evaluate import operating_characteristics, rate_of, scenario_seed
from releasegate.plan.simulate import ReleaseScenario, draw_releases

REPS = 300


def samples(sc, reps=REPS, seed=1):
    return list(draw_releases(sc, reps, np.random.default_rng(seed)))


def tol(p, n):  # four Monte Carlo standard errors of a share of n Bernoulli draws
    return 4 * np.sqrt(p * (1 - p) / n)


@pytest.mark.parametrize("churn", [0.05, 0.10, 0.17])
def test_pass_rates_and_churn_hit_their_targets(churn):
    sc = ReleaseScenario(n=400, p0=0.9, churn=churn, runs=2, rerun=True)
    got = samples(sc)
    cells = REPS * 400
    assert np.mean([s.base_runs[0].mean() for s in got]) == pytest.approx(0.9, abs=tol(0.9, cells))
    assert np.mean([s.cand_runs[1].mean() for s in got]) == pytest.approx(0.9, abs=tol(0.9, cells))
    between_runs = np.mean([(s.base_runs[0] != s.base_runs[1]).mean() for s in got])
    with_rerun = np.mean([(s.base_runs[0] != s.rerun_runs[0]).mean() for s in got])
    base_cand = np.mean([(s.base_runs[0] != s.cand_runs[0]).mean() for s in got])
    for value in (between_runs, with_rerun, base_cand):
        assert value == pytest.approx(churn, abs=tol(churn, cells))


@pytest.mark.parametrize("mode", ["added", "tilted"])
def test_drops_hit_their_targets(mode):
    sc = ReleaseScenario(n=400, churn=0.10, drop=0.05, mode=mode, critical=(50,), critical_drop=0.20)
    got = samples(sc)
    inside = got[0].category == 0
    outside = ~inside
    cand_out = np.mean([s.cand[outside].mean() for s in got])
    cand_in = np.mean([s.cand[inside].mean() for s in got])
    assert cand_out == pytest.approx(0.85, abs=tol(0.85, REPS * 350))
    assert cand_in == pytest.approx(0.65, abs=tol(0.65, REPS * 50))
    churn = np.mean([(s.base != s.cand)[outside].mean() for s in got])
    if mode == "tilted":  # the changing cases stay the flaky ones: base-candidate disagreement stays near churn
        assert churn < 0.10 + 0.05
    else:  # added on top: about churn + drop (1 - churn / 2) / p0 * p0
        assert churn == pytest.approx(0.10 + 0.05 * (1 - 0.05 / 0.9), abs=0.01)


def test_clusters_with_icc_correlate_the_difference_within_clusters():
    sc = ReleaseScenario(n=400, churn=0.10, clusters=20, icc=0.2)
    got = samples(sc, 400)
    d = np.stack([s.cand - s.base for s in got])
    assert d.mean() == pytest.approx(0.0, abs=0.008)  # changes nothing on average (4 se of 400 clustered reps)
    sums = np.stack([np.bincount(got[0].cluster, weights=row) for row in d])
    m = 20
    deff = sums.var() / (d.var() * m)  # design effect 1 + (m - 1) icc
    assert 1 + (m - 1) * 0.1 < deff < 1 + (m - 1) * 0.35


def test_labels_put_critical_categories_first_and_impossible_designs_fail():
    category, cluster, critical = ReleaseScenario(n=400, critical=(30, 50), categories=3, clusters=8).labels()
    assert critical == (0, 1) and np.bincount(category).tolist()[:2] == [30, 50]
    assert sorted(set(category.tolist())) == [0, 1, 2, 3, 4] and np.bincount(cluster).tolist() == [50] * 8
    with pytest.raises(ValueError, match="impossible"):
        ReleaseScenario(p0=0.9, churn=0.20).check()
    with pytest.raises(ValueError):
        ReleaseScenario(drop=0.95).check()
    with pytest.raises(ValueError):
        ReleaseScenario(icc=0.1).check()


def test_seeded_and_reproducible_per_cell():
    a = samples(ReleaseScenario(churn=0.05), 5, seed=3)
    b = samples(ReleaseScenario(churn=0.05), 5, seed=3)
    assert all(np.array_equal(x.cand_runs, y.cand_runs) for x, y in zip(a, b))
    s1, s2 = ReleaseScenario(churn=0.05), ReleaseScenario(churn=0.10)
    assert scenario_seed(1, s1) != scenario_seed(1, s2) and scenario_seed(1, s1) == scenario_seed(1, s1)


def test_evaluator_counts_the_gate_and_its_error():
    def gate(sample):
        broke = int(np.count_nonzero((sample.base == 1) & (sample.cand == 0)))
        return ("any broke",) if broke else ()

    sc = ReleaseScenario(n=50, p0=0.9, churn=0.05)
    seen = []
    (cell,) = operating_characteristics(gate, [sc], reps=400, seed=9, progress=lambda d, t: seen.append((d, t)))
    expected = 1 - (1 - 0.05 / 2) ** 50  # the note's false-block rate of "any broken case blocks"
    assert cell.kind == "false blocks" and seen == [(1, 1)]
    assert abs(cell.block.rate - expected) < 4 * cell.block.se
    assert cell.by_rule == (("any broke", cell.block),)
    again = operating_characteristics(gate, [sc], reps=400, seed=9)
    assert again[0].block == cell.block
    assert rate_of(0, 10).se == 0.0


def test_simulated_power_at_the_exact_minimum_detectable_drop_is_80_percent():
    """The simulator and the exact power agree: at the drop minimum_detectable_drop reports, the exact test
    on simulated releases (regression added on top of 10% churn) detects it 80% of the time."""
    from releasegate.stats.mcnemar import mcnemar_test
    from releasegate.stats.power import minimum_detectable_drop

    mdd = minimum_detectable_drop(400, 0.9, 0.10, alpha=0.05)

    def gate(sample):
        broke = int(np.count_nonzero((sample.base == 1) & (sample.cand == 0)))
        fixed = int(np.count_nonzero((sample.base == 0) & (sample.cand == 1)))
        return ("overall",) if mcnemar_test(fixed, broke).p_regression <= 0.05 else ()

    (cell,) = operating_characteristics(gate, [ReleaseScenario(n=400, churn=0.10, drop=mdd.drop)], reps=1500)
    assert abs(cell.block.rate - mdd.power) < 4 * cell.block.se
