"""One conditional test for sparse outcomes, whatever the coding (issue 21 item 6a).

1,000 cases, 4 broke and 0 fixed: as one run the exact one-sided McNemar p is 1/16 = 0.0625 (SHIP at
alpha 0.05). On main before this change the same rows as two identical runs went through the paired t test
(p 0.023, DON'T SHIP) and with cluster = case id through Durkalski (p 0.023, DON'T SHIP)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from conftest import build_report

N, BROKE = 1000, 4


def rows(runs: int = 1, cluster: str | None = None) -> pd.DataFrame:
    frames = []
    for release in ("base", "cand"):
        passed = [1] * N
        if release == "cand":
            passed[:BROKE] = [0] * BROKE
        for run in range(runs):
            frame = pd.DataFrame({"release": release, "case_id": [f"c{i:04d}" for i in range(N)], "passed": passed})
            if runs > 1:
                frame["run"] = run
            if cluster == "case":
                frame["group"] = frame["case_id"]
            elif cluster == "pairs":  # the broken cases in different groups of two
                frame["group"] = [f"g{i // 2:04d}" if i >= 2 * BROKE else f"g{i:04d}" for i in range(N)]
            frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def overall(tmp_path: Path, frame: pd.DataFrame, **overrides):
    path = tmp_path / "results.csv"
    frame.to_csv(path, index=False)
    if "group" in frame.columns:
        overrides["columns"] = {"cluster": "group"}
    report = build_report(path, baseline="base", **overrides)
    cand = report.analysis.candidates[0]
    return cand.overall, report.verdicts[0]


@pytest.mark.parametrize("runs, cluster", [(1, None), (2, None), (3, None), (1, "case"), (2, "case"),
                                           (1, "pairs")])
def test_every_coding_gives_the_exact_conditional_p(tmp_path, runs, cluster):
    comparison, verdict = overall(tmp_path, rows(runs, cluster))
    assert comparison.broke == BROKE and comparison.fixed == 0
    assert comparison.p_one_sided == pytest.approx(0.0625, abs=1e-12)  # P(X >= 4), X ~ Bin(4, 1/2)
    assert comparison.p_value == pytest.approx(0.125, abs=1e-12)
    assert verdict.ship
    assert not any(r.fired for r in verdict.checks if r.rule == "overall_regression")


def test_identical_runs_give_the_one_run_interval(tmp_path):
    one, _ = overall(tmp_path, rows(1))
    two, _ = overall(tmp_path, rows(2))
    assert (two.ci_low, two.ci_high, two.ni_low, two.ni_high) == pytest.approx(
        (one.ci_low, one.ci_high, one.ni_low, one.ni_high), abs=1e-12)
    assert two.ci_low < 0 < two.ci_high  # the interval agrees with p 0.0625 > alpha


def test_mid_p_is_followed_in_every_coding(tmp_path):
    for runs, cluster in ((1, None), (2, None), (1, "case")):
        comparison, _ = overall(tmp_path, rows(runs, cluster), mcnemar="midp")
        assert comparison.p_one_sided == pytest.approx(1 / 32, abs=1e-12)  # P(X > 4) + P(X = 4) / 2


def test_runs_that_disagree_keep_the_paired_t(tmp_path):
    frame = rows(2)
    # run 1 of the candidate fixes case c0000 again: its mean difference is -0.5, not sparse
    frame.loc[(frame.release == "cand") & (frame.run == 1) & (frame.case_id == "c0000"), "passed"] = 1
    comparison, _ = overall(tmp_path, frame)
    assert comparison.method == "paired t"


def test_categories_get_the_same_adjusted_p_in_one_run_and_two_identical_runs(tmp_path):
    # Under the family's correction (discrete Holm by default) the sparse runs comparisons are exact McNemar
    # tests too, so the adjustment reads the same attainable p-values.
    def with_categories(frame):
        frame = frame.copy()
        frame["category"] = ["A" if int(c[1:]) % 2 == 0 else "B" for c in frame["case_id"]]
        return frame

    one, _ = overall(tmp_path, with_categories(rows(1)))
    two, _ = overall(tmp_path, with_categories(rows(2)))
    assert two.method == one.method == "McNemar exact"
    assert (two.p_one_sided, two.p_adjusted) == pytest.approx((one.p_one_sided, one.p_adjusted), abs=1e-12)
