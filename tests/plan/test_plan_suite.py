"""plan.suite / plan.measure (``releasegate plan``, issue 21 item 4): the rates' properties on small
replications, the design measured from results, and reproducibility."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from conftest import example_files
from releasegate.errors import InputError
from releasegate.load.results import load_results
from releasegate.load.sources import Source
from releasegate.plan.measure import design_from_files, design_of
from releasegate.plan.suite import ASSUMED_CHURN, SuiteDesign, plan_dict, plan_lines, plan_suite
from releasegate.policy import load_policy_file, make_policy
from releasegate.validate import validate


def _binom_tail(b: int, m: int) -> float:
    """P(X >= b), X ~ Bin(m, 1/2): the exact one-sided McNemar p of b broke among m changed cases."""
    return sum(math.comb(m, k) for k in range(b, m + 1)) / 2.0 ** m


def _known_false_blocks(n: int, churn: float, alpha: float) -> float:
    """The exact McNemar test's false-block rate under the simulation's model, by enumeration of (broke,
    fixed): each case breaks with probability churn / 2 and is fixed with churn / 2 (trinomial)."""
    q = churn / 2
    total = 0.0
    for b in range(n + 1):
        for c in range(n - b + 1):
            if b + c and _binom_tail(b, b + c) < alpha:
                total += math.comb(n, b) * math.comb(n - b, c) * q ** (b + c) * (1 - churn) ** (n - b - c)
    return total


def test_harmless_release_blocks_at_the_known_level():
    # One overall test and nothing else (no categories, margin 0: non-inferiority off): its level is known.
    n, churn, alpha, reps = 120, 0.10, 0.05, 600
    policy = make_policy({}, baseline="a", margin=0.0, alpha=alpha)
    plan = plan_suite(SuiteDesign(n, 0.9, churn=churn, churn_source="given"), policy, replications=reps,
                      seed=7, scales=())
    known = _known_false_blocks(n, churn, alpha)
    assert 0.01 < known < alpha  # the exact test is conservative here
    se = math.sqrt(known * (1 - known) / reps)
    assert abs(plan.false_blocks.rate - known) < 3.5 * se, (plan.false_blocks, known)
    assert dict(plan.false_blocks_by_rule).keys() <= {"overall_regression"}


def test_detection_rises_with_the_regression():
    policy = make_policy({}, baseline="a")
    design = SuiteDesign(400, 0.9, (("Fraud", 50),), 4, churn=0.05, churn_source="given")
    plan = plan_suite(design, policy, replications=80, seed=3, scales=())
    rates = [r.rate for _, r in plan.regressions]
    assert rates == sorted(rates) and rates[-1] - rates[0] > 0.3
    assert plan.false_blocks.rate < rates[0]
    assert [name for name, _ in plan.critical_drops] == ["Fraud"]
    assert plan.critical_drops[0][1].rate > 0.5  # a 20-point drop in 50 cases is caught most of the time


def test_same_seed_same_plan_and_the_target_search():
    policy = make_policy({}, baseline="a")
    design = SuiteDesign(200, 0.9, churn=0.05, churn_source="given")
    one = plan_suite(design, policy, replications=40, seed=11, scales=(2.0, 4.0))
    two = plan_suite(design, policy, replications=40, seed=11, scales=(2.0, 4.0))
    assert plan_dict(one) == plan_dict(two) and plan_lines(one) == plan_lines(two)
    other = plan_suite(design, policy, replications=40, seed=12, scales=())
    assert plan_dict(other)["regressions"] != plan_dict(one)["regressions"]
    t = one.target
    # 200 cases miss 80% detection of 3 points; the search went to a larger suite and says what it found.
    assert not one.current.reached and t.scale in (2.0, 4.0) and t.cases == round(200 * t.scale)
    assert t.reached == (t.detection.rate >= 0.8 and t.false_blocks.rate <= 0.05)
    assert any("3-point regression at no more than 5% false blocks" in line for line in plan_lines(one))


def test_progress_is_reported_to_the_end():
    seen = []
    plan_suite(SuiteDesign(100, 0.9), make_policy({}, baseline="a"), replications=5, seed=1,
               progress=lambda done, total: seen.append((done, total)), scales=(2.0,))
    assert seen[-1][0] == seen[-1][1] and [d for d, _ in seen] == sorted(d for d, _ in seen)


def test_design_measured_from_the_example():
    files = example_files()
    policy = make_policy(load_policy_file(files["releasegate.toml"]))
    design = design_from_files([Source(files["eval_results.csv"])], policy, files["eval_cases.csv"])
    assert (design.n, round(design.p0, 4), design.runs) == (400, 0.9175, 1)
    assert design.critical == (("Fraud", 50), ("Safety", 30)) and design.categories == 7
    # The pair's own discordance (issue 34): r2 differs from r1 on 18 of 400 cases, r3 on 15; the larger.
    assert (design.churn, design.churn_source, design.rerun) == (18 / 400, "measured between r1-live and "
                                                                 "r2-new-prompt", False)
    assert design.run_churn is None and design.case_share == design.churn  # no rerun: all case-level
    assert design_from_files([Source(files["eval_results.csv"])], policy, files["eval_cases.csv"],
                             churn=ASSUMED_CHURN).churn_source == "given"


def test_churn_measured_from_a_rerun(tmp_path):
    files = example_files()
    table = pd.read_csv(files["eval_results.csv"])
    live = table[table["release"] == "r1-live"].copy()
    flip = np.zeros(len(live), dtype=bool)
    flip[:30] = True  # 30 of 400 cases differ: churn 7.5%
    live["passed"] = np.where(flip, 1 - live["passed"], live["passed"])
    live["release"] = "r1-again"
    path = tmp_path / "results.csv"
    pd.concat([table, live]).to_csv(path, index=False)
    policy = make_policy(load_policy_file(files["releasegate.toml"]), baseline_rerun="r1-again")
    design = design_from_files([Source(path)], policy, files["eval_cases.csv"])
    # The rerun disagrees with r1 on 30 cases, more than r2 does (18): the churn is at least the run-to-run one.
    assert design.churn == pytest.approx(30 / 400) and design.rerun
    assert design.run_churn == pytest.approx(30 / 400) and design.run_churn_source == "measured from the rerun r1-again"
    assert design.churn_source.startswith("measured between r1-live and r2-new-prompt; raised to")
    assert design.case_share == 0
    assert design_from_files([Source(path)], policy, files["eval_cases.csv"], churn=0.12).churn == 0.12
    with pytest.raises(InputError, match="impossible at pass rate"):  # above 2 p (1 - p) = 0.151
        design_from_files([Source(path)], policy, files["eval_cases.csv"], churn=0.2)


def test_scores_cannot_be_planned(tmp_path):
    path = tmp_path / "s.csv"
    pd.DataFrame({"case_id": ["a", "b", "a", "b"], "release": ["x", "x", "y", "y"],
                  "score": [0.1, 0.5, 0.3, 0.2]}).to_csv(path, index=False)
    policy = make_policy({}, baseline="x")
    loaded = load_results([Source(path)])
    with pytest.raises(InputError, match="pass/fail suites"):
        design_of(validate(loaded.table, policy, loaded.metadata_columns), policy)


def _outside_rates(reps: int, churn: float, seed: int = 34) -> tuple[float, float]:
    """An independent generator (the issue's design, smaller): 200 cases at pass rate 0.9 in 4 categories,
    5 runs; each case's latent outcome pair in (both pass, broke, fixed, both fail) with probabilities
    (0.9 - s/2, s/2, s/2, 0.1 - s/2), each run reproducing it with probability 0.8, else a fresh draw at 0.9.
    Decided by the library's plan on arrays; (DON'T SHIP, NOT PROVEN) shares."""
    from releasegate.analyze.candidate import plan_arrays
    from releasegate.plan.evaluate import verdict_of
    from releasegate.analyze import parameters_of
    from releasegate.decide import decide_candidate
    from releasegate.model import Analysis, CandidateAnalysis, CandidateSections, Exclusions

    rng = np.random.default_rng(seed)
    n, p0 = 200, 0.9
    policy = make_policy({}, baseline="a")
    codes, labels = (np.arange(n) * 4) // n, [f"k{j}" for j in range(4)]
    counts = {"dont_ship": 0, "not_proven": 0, "ship": 0}
    for _ in range(reps):
        cells = rng.choice(4, size=n, p=[p0 - churn / 2, churn / 2, churn / 2, 1 - p0 - churn / 2])
        runs = []
        for z in (np.isin(cells, (0, 1)), np.isin(cells, (0, 2))):
            keep = rng.random((5, n)) < 0.8
            runs.append(np.where(keep, z, rng.random((5, n)) < p0).mean(0))
        r = plan_arrays(runs[0], runs[1], policy, mcnemar=False, runs=True, category_codes=codes,
                        category_labels=labels, verdict_only=True)
        cand = CandidateAnalysis("c", r.overall, r.categories, (), (), Exclusions(), r.power,
                                 CandidateSections(r.item_axis, budget=r.budget))
        analysis = Analysis("a", "binary", n, (), (cand,), parameters_of(policy), True, False, True)
        counts[verdict_of([c.rule for c in decide_candidate(cand, analysis, policy).checks if c.fired])] += 1
    return counts["dont_ship"] / reps, counts["not_proven"] / reps


def test_plan_agrees_with_an_outside_simulation_of_case_level_churn_with_runs():
    # Issue 34: with 5 runs and case-level change the plan once predicted 3.3% where 7.0% was measured (it
    # simulated all the churn as run noise, which 5 runs average away).
    from releasegate.plan.simulate import run_disagreement

    reps, churn = 300, 0.16
    hit, miss = 0.8 + 0.2 * 0.9, 0.2 * 0.9
    run_share = run_disagreement(0.8, 0.9)
    between = run_share + churn * (hit - miss) ** 2
    design = SuiteDesign(200, 0.9, (), 4, 5, churn=between, churn_source="given", run_churn=run_share,
                         run_churn_source="given")
    assert design.case_share == pytest.approx(churn)
    plan = plan_suite(design, make_policy({}, baseline="a"), replications=reps, seed=5, scales=())
    dont_ship, not_proven = _outside_rates(reps, churn)
    for mine, theirs in ((plan.false_dont_ship.rate, dont_ship), (plan.false_not_proven.rate, not_proven)):
        se = math.sqrt(mine * (1 - mine) / reps + theirs * (1 - theirs) / reps) or 1 / reps
        assert abs(mine - theirs) <= 2 * se + 1e-12, (mine, theirs)
    assert not_proven > 0.05  # the case-level change is seen: run noise alone would be averaged away
    run_only = replace(design, churn=run_share)
    assert plan_suite(run_only, make_policy({}, baseline="a"), replications=reps, seed=5,
                      scales=()).false_not_proven.rate < not_proven
