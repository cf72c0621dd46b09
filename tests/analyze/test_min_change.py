"""Score metrics: a case counts as worsened or improved only when it moves by more than ``min_change`` (issue 29
item 4); the tests on scores read every difference, so their p-values do not move with it."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from conftest import run_cli
from releasegate.analyze.min_change import default_min_change, moved, resolved
from releasegate.policy import make_policy


def _frame(n: int = 200, seed: int = 3) -> tuple[pd.DataFrame, list[str]]:
    """Scores on a 0-1 scale: every candidate case a thousandth lower, 10 of them 0.3 lower (real drops)."""
    rng = np.random.default_rng(seed)
    base = rng.uniform(0.35, 1.0, n)
    cand = base - 0.001
    real = rng.choice(n, 10, replace=False)
    cand[real] = base[real] - 0.3
    ids = [f"q{i:03d}" for i in range(n)]
    frame = pd.concat([pd.DataFrame({"release": r, "case_id": ids, "score": v})
                       for r, v in (("base", base), ("cand", cand))], ignore_index=True)
    return frame, sorted(ids[i] for i in real)


def _report(tmp_path, frame, *args):
    source, out = tmp_path / "results.csv", tmp_path / "note.json"
    frame.to_csv(source, index=False)
    done = run_cli("report", source, "--baseline", "base", "--no-policy", *args, "-o", out)
    assert done.exit_code == 0, done.output
    out_data = json.loads(out.read_text())
    out.unlink()
    return out_data["candidates"][0]


def _broken_ids(candidate) -> list[str]:
    return sorted(c["case_id"] for c in candidate["broken_cases"]["records"]) \
        if isinstance(candidate["broken_cases"], dict) else sorted(c["case_id"] for c in candidate["broken_cases"])


def test_a_thousandth_of_the_scale_is_not_broken_ten_real_drops_are(tmp_path):
    frame, real = _frame()
    default = _report(tmp_path, frame)
    assert _broken_ids(default) == real
    assert default["overall"]["broke"] == 10 and default["item_axis"]["worsened"] == 10
    assert default["item_axis"]["unchanged"] == 190 and default["overall"]["fixed"] == 0
    every = _report(tmp_path, frame, "--min-change", "0")  # every move counts, as before
    assert len(_broken_ids(every)) == 200 and every["item_axis"]["worsened"] == 200
    # The statistics read every difference whatever the tolerance.
    for key in ("p_value", "p_one_sided", "diff", "ci_low", "ci_high"):
        assert default["overall"][key] == every["overall"][key], key
    for key in ("p_value", "p_one_sided"):
        assert default["item_axis"][key] == every["item_axis"][key], key
    wide = _report(tmp_path, frame, "--min-change", "0.5")  # beyond every drop: none listed
    assert _broken_ids(wide) == [] and wide["overall"]["broke"] == 0


def test_the_policy_and_a_metric_table_set_it(tmp_path):
    frame, real = _frame()
    frame = frame.rename(columns={"score": "faith"})
    policy = tmp_path / "releasegate.toml"
    policy.write_text("min_change = 0.5\n[metrics.faith]\nmin_change = 0.0\n")
    cand = _report(tmp_path, frame, "--metric", "faith", "--policy", policy)
    assert len(_broken_ids(cand)) == 200  # the metric's own 0 wins over the policy-wide 0.5
    policy.write_text("min_change = 0.5\n")
    assert _broken_ids(_report(tmp_path, frame, "--metric", "faith", "--policy", policy)) == []


def test_the_default_is_one_percent_of_the_range():
    assert default_min_change(np.array([0.2, 0.9, np.nan, 0.4]), None) == pytest.approx(0.007)
    assert default_min_change(np.array([3.0, 4.0]), (0.0, 10.0)) == pytest.approx(0.1)
    assert default_min_change(np.array([]), None) == 0.0
    scores = np.array([1.0, 5.0])
    assert resolved(make_policy({}), scores, scored=True).min_change == pytest.approx(0.04)
    assert resolved(make_policy({"min_change": 0.5}), scores, scored=True).min_change == 0.5
    assert resolved(make_policy({"min_change": 0.5}), scores, scored=False).min_change == 0.0
    up, down = moved(np.array([-0.05, -0.04, 0.0, 0.041]), make_policy({"min_change": 0.04}), rates=False)
    assert down.tolist() == [True, False, False, False] and up.tolist() == [False, False, False, True]
    up, down = moved(np.array([-0.01, 0.01]), make_policy({"min_change": 0.04}), rates=True)
    assert down.tolist() == [True, False] and up.tolist() == [False, True]  # pass rates: any change


@pytest.mark.parametrize("value", ["-0.1", "nan", "inf"])
def test_a_bad_min_change_is_refused(tmp_path, value):
    frame, _ = _frame(20)
    source = tmp_path / "results.csv"
    frame.to_csv(source, index=False)
    done = run_cli("check", source, "--baseline", "base", "--no-policy", "--min-change", value)
    assert done.exit_code == 2 and "min_change must be a finite number >= 0" in done.output
    assert "Traceback" not in done.output


def test_a_min_change_at_the_whole_range_of_the_scores_is_refused():
    """No difference can exceed it: "0 improved, 0 worsened" stood beside a regression the paired t showed, and a
    critical category's sign test could never block. Just below the range it stands."""
    from releasegate.errors import InputError

    scores = np.array([0.2, 0.9, 0.5, np.nan])
    with pytest.raises(InputError, match="at least the whole range of the scores"):
        resolved(make_policy({"baseline": "r1", "min_change": 0.7}), scores, True)
    assert resolved(make_policy({"baseline": "r1", "min_change": 0.69}), scores, True).min_change == 0.69
    assert resolved(make_policy({"baseline": "r1", "min_change": 5}), scores, False).min_change == 0.0
