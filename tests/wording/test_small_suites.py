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


def test_a_not_proven_on_few_groups_asks_for_more_groups_not_cases(tmp_path):
    """300 cases in 2 groups: the interval that respects them is [-100, +100] and the verdict NOT PROVEN, while
    "what would settle it", sized on cases counted alone, said "these 300 cases give a >99% chance of showing it
    no worse"."""
    from conftest import run_cli

    rows = ["release,case_id,passed,cluster"]
    for i in range(300):
        base = int(i % 7 != 0)
        rows += [f"r1,c{i},{base},P{i % 2}", f"r2,c{i},{0 if i in (1, 2, 3) else base},P{i % 2}"]
    path = tmp_path / "results.csv"
    path.write_text("\n".join(rows) + "\n")
    out, text = tmp_path / "note.json", tmp_path / "note.txt"
    result = run_cli("check", path, "--baseline", "r1", "--cluster-col", "cluster", "-o", out, "-o", text)
    assert result.exit_code == 3, result.output
    assert "more groups, not more cases: these 300 cases come in 2 groups" in result.output, result.output
    assert "chance of showing it no worse" not in result.output, result.output
    import json

    assert "more groups, not more cases" in json.loads(out.read_text())["candidates"][0]["headline"]
    assert "Next: compare again on more groups: these 300 cases come in 2," in text.read_text(), text.read_text()


@pytest.mark.parametrize("n", [1, 40])
def test_a_not_proven_with_no_case_changed_does_not_say_these_cases_could_settle_it(tmp_path, n):
    """No case changed, so there is no spread to size a suite from: "what would settle it" said "more cases; the
    40 here are too few ...", and the paragraph beside it "these cases could settle it and did not"."""
    from conftest import plain_note

    rows = ["release,case_id,passed"] + [f"{r},c{i},{int(i % 5 != 0)}" for r in ("r1", "r2") for i in range(n)]
    text = plain_note(tmp_path, rows, "--baseline", "r1")
    assert "could settle it and did not" not in text, text
    here = "this one case is" if n == 1 else f"the {n} here are"
    assert f"Next: compare again on more cases: with no case changed, {here} too few" in text, text
