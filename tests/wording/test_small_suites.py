"""Small suites told what they can show (issue 46 item 5): the note's first paragraph states the smallest margin
the suite can show no worse with an 80% chance at the change seen here, whether more runs (epochs) would help,
and with runs why the verdict and its units are not one run's; `plan` says the same of a design."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

import releasegate
from releasegate.plan.suite import SuiteDesign, suite_reach
from releasegate.policy import make_policy
from releasegate.stats.settle import noninferiority_chance
from releasegate.wording import plan as plan_words
from releasegate.wording.plain import paragraphs


def _suite(n: int, runs: int, seed: int = 1) -> pd.DataFrame:
    """n cases like an Inspect task's samples, the same model twice; with runs, each epoch reproduces the
    sample's outcome with probability 0.85, else a fresh draw at 0.85."""
    rng = np.random.default_rng(seed)
    z = rng.random(n) < 0.85
    rows = []
    for release in ("r1", "r2"):
        for run in range(runs):
            passed = np.where(rng.random(n) < 0.85, z, rng.random(n) < 0.85).astype(int)
            rows += [{"release": release, "case_id": f"s{i:02d}", "run": run, "passed": int(passed[i])}
                     for i in range(n)]
    table = pd.DataFrame(rows)
    return table if runs > 1 else table.drop(columns="run")


@pytest.mark.parametrize("n", [18, 60])
def test_a_small_suite_says_the_margin_it_can_show_and_whether_epochs_would_help(n):
    result = releasegate.compare(_suite(n, 1, seed=2), baseline="r1")
    assert result.verdicts[0].decision.value == "not_proven"
    text = paragraphs(result.report)["r2"]
    cand = result.report.analysis.candidates[0]
    reach = cand.power.ni_reach
    assert reach.smallest_margin > 0.05
    assert (f"With {n} cases at the change seen here, this suite can show at best that a candidate is no more than "
            f"{100 * reach.smallest_margin:.1f} points worse (an 80% chance; the margin is 5.0 points)") in text
    assert "one run cannot tell whether more runs (epochs) would help" in text
    # The margin is the Newcombe-interval rule's own: at it the exact chance is 80%.
    o = cand.overall
    q = (o.fixed + o.broke) / o.n
    assert noninferiority_chance(n, q, o.baseline.value, reach.smallest_margin, 0.05) >= 0.8
    assert noninferiority_chance(n, q, o.baseline.value, reach.smallest_margin * 0.9, 0.05) < 0.8


def test_with_epochs_the_note_says_how_many_would_help_and_why_the_units_differ():
    result = releasegate.compare(_suite(60, 3), baseline="r1")
    text = paragraphs(result.report)["r2"]
    assert "With 3 runs (epochs) of every case, each case counts as its share of passing runs" in text
    assert "so the verdict and its units can differ from one run's" in text
    if result.verdicts[0].decision.value == "not_proven":
        assert "runs (epochs) of every case would reach the margin" in text


def reach_line(reach) -> str:
    return plan_words.reach_line(dataclasses.asdict(reach))


def test_plan_states_the_margin_a_design_can_show():
    policy = make_policy(baseline="a")
    small = suite_reach(SuiteDesign(n=60, p0=0.9, churn=0.10), policy)
    assert 0.10 < small.smallest_margin < 0.13 and small.runs_reason == "unknown"
    line = reach_line(small)
    assert line.startswith(f"what this suite can show: a candidate no more than {100 * small.smallest_margin:.1f} "
                           "points worse at best, with an 80% chance at its churn (the policy's margin: 5 points)")
    assert "whether more runs would help is unknown" in line
    # Run-to-run churn measured: runs average it away, and the line says how many would reach the margin.
    noisy = suite_reach(SuiteDesign(n=400, p0=0.9, churn=0.17, run_churn=0.16, runs=1), policy)
    assert noisy.runs_needed is not None and noisy.runs_needed > 1
    assert f"{noisy.runs_needed} runs of every case would reach the margin" in reach_line(noisy)
    # All case-level: runs cannot.
    fixed = suite_reach(SuiteDesign(n=18, p0=0.9, churn=0.15, run_churn=0.0, runs=3), policy)
    assert "more runs would not reach the margin" in reach_line(fixed)
    big = suite_reach(SuiteDesign(n=4000, p0=0.9, churn=0.05), policy)
    assert reach_line(big).endswith("it reaches the margin as it is")
