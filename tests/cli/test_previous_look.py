"""Every re-comparison of the same baseline and candidate is a later look (issue 46 item 3): a note given back
with --previous makes this comparison its next look, whose regression tests are read at what the earlier looks
left unspent; refused when it is not an earlier look at these releases."""

from __future__ import annotations

import json
import os

import numpy as np
import pandas as pd
import pytest

from conftest import run_cli
from releasegate.stats.step_down import largest_spend


def _results(tmp_path, n: int = 400, churn: float = 0.2, drop: int = 0, seed: int = 8, name: str = "results.csv"):
    """One run of two releases at pass rate 0.9: ``churn`` of the cases change, half each way, and ``drop`` more
    passing cases break."""
    rng = np.random.default_rng(seed)
    base = (rng.random(n) < 0.9).astype(int)
    cand = base.copy()
    passing, failing = np.flatnonzero(base == 1), np.flatnonzero(base == 0)
    k = int(churn * n / 2)
    cand[rng.choice(passing, k + drop, replace=False)] = 0
    cand[rng.choice(failing, min(k, failing.size), replace=False)] = 1
    path = tmp_path / name
    pd.DataFrame({"release": ["r1"] * n + ["r2"] * n, "case_id": [f"c{i:04d}" for i in range(n)] * 2,
                  "passed": np.r_[base, cand]}).to_csv(path, index=False)
    return path


def _check(tmp_path, path, *extra, out="note.json"):
    result = run_cli("check", path, "--baseline", "r1", "--no-policy", *extra, "-o", tmp_path / out)
    note = json.loads((tmp_path / out).read_text()) if (tmp_path / out).exists() else None
    return result, note


def test_a_not_proven_note_says_how_the_next_look_is_judged_and_the_next_look_reads_it(tmp_path):
    path = _results(tmp_path)
    first, note = _check(tmp_path, path)
    assert first.exit_code == 3, first.output
    budget = note["candidates"][0]["budget"]
    assert budget["look"] == 1 and budget["level"] == 0.05
    assert 0 <= budget["spent"] <= 0.05 and budget["left"] == pytest.approx(0.05 - budget["spent"])
    # Every member an exact test of its changed cases: the most they can spend at 0.05 is a sum of attainable
    # p-values (stats/step_down.largest_spend on the note's own members), below 0.05, and the rest is left.
    members = budget["members"]
    assert budget["method"] == "weighted discrete Holm" and all(m["trials"] for m in members)
    most = largest_spend([m["weight"] for m in members], [m["trials"] for m in members], 0.05)
    assert budget["spent"] == pytest.approx(most) and most < 0.05
    headline = note["candidates"][0]["headline"]
    assert "give this note's JSON with --previous" in headline
    assert f"its regression tests at alpha {budget['left']:.3f}"[:40] in headline or "regression tests off" in headline
    second, again = _check(tmp_path, path, "--previous", tmp_path / "note.json", out="again.json")
    assert second.exit_code in (0, 3), second.output
    later = again["candidates"][0]["budget"]
    assert later["look"] == 2 and later["level"] == pytest.approx(budget["left"])
    # The members are read at the level left and their adjusted p scaled back to alpha: the overall test's
    # adjusted p is at least alpha / level times its adjusted p at the first look.
    o1, o2 = note["candidates"][0]["overall"], again["candidates"][0]["overall"]
    if budget["left"] > 0:
        assert o2["p_adjusted"] >= min(1.0, o1["p_adjusted"] * 0.05 / budget["left"]) - 1e-12


def test_a_later_look_cannot_block_what_the_first_look_already_read_at_alpha(tmp_path):
    # A clear regression: DON'T SHIP at look 1. Given a note whose looks left nothing (its members could reach any
    # p, as a paired t can), the regression tests cannot fire at all: a later look spends nothing it does not have.
    path = _results(tmp_path, churn=0.1, drop=30)
    first, note = _check(tmp_path, path)
    assert first.exit_code == 1, first.output
    for c in note["candidates"]:
        c["budget"].update(spent=c["budget"]["level"], left=0.0)
    (tmp_path / "old.json").write_text(json.dumps(note))
    second, again = _check(tmp_path, path, "--previous", tmp_path / "old.json", out="again.json")
    budget = again["candidates"][0]["budget"]
    assert budget["look"] == 2 and budget["level"] == 0
    assert again["candidates"][0]["overall"]["p_adjusted"] == 1.0
    assert "overall_regression" not in [r["rule"] for r in again["candidates"][0]["reasons"]]


def test_a_note_that_is_not_an_earlier_look_at_these_releases_is_refused(tmp_path):
    path = _results(tmp_path)
    _check(tmp_path, path)
    other = tmp_path / "other.json"
    note = json.loads((tmp_path / "note.json").read_text())
    other.write_text(json.dumps({**note, "baseline": "r0"}))
    result, _ = _check(tmp_path, path, "--previous", other, out="x.json")
    assert result.exit_code == 2
    assert "that note compared against r0, this comparison against r1" in result.output
    result, _ = _check(tmp_path, path, "--previous", tmp_path / "note.json", "--alpha", "0.1", out="y.json")
    assert result.exit_code == 2 and "decided at alpha 0.05, this comparison at 0.1" in result.output
    result, _ = _check(tmp_path, path, "--previous", tmp_path / "missing.json", out="z.json")
    assert result.exit_code == 2 and "no such file" in result.output
    (tmp_path / "bad.json").write_text("not json")
    result, _ = _check(tmp_path, path, "--previous", tmp_path / "bad.json", out="w.json")
    assert result.exit_code == 2 and "not a release note's JSON" in result.output
    # The note given back is an input: no output may overwrite it.
    result = run_cli("check", path, "--baseline", "r1", "--no-policy", "--previous", tmp_path / "note.json",
                     "-o", tmp_path / "note.json")
    assert result.exit_code == 2


@pytest.mark.parametrize("edit", [{"left": None}, {"left": "NaN"}, {"left": -0.01}, {"left": 0.5}, {"look": "2"},
                                  {"look": 0}, {"look": True}, "budget", "no look", "no budget"])
def test_a_damaged_budget_is_refused_never_read_as_spent(tmp_path, edit):
    # Read as a note that left nothing, a damaged budget would turn the regression tests off: a clear regression,
    # DON'T SHIP at alpha and with the note as written, would SHIP. So would a budget recording no look at all (a
    # note written before looks were recorded, or with the four fields deleted).
    path = _results(tmp_path, churn=0.1, drop=30)
    first, note = _check(tmp_path, path)
    assert first.exit_code == 1, first.output
    again, _ = _check(tmp_path, path, "--previous", tmp_path / "note.json", out="again.json")
    assert again.exit_code == 1, again.output
    budget = note["candidates"][0]["budget"]
    if edit == "no budget":
        del note["candidates"][0]["budget"]
    elif edit == "no look":
        note["candidates"][0]["budget"] = {k: v for k, v in budget.items()
                                           if k not in ("look", "level", "spent", "left")}
    else:
        note["candidates"][0]["budget"] = [] if edit == "budget" else {**budget, **edit}
    (tmp_path / "bad.json").write_text(json.dumps(note))
    result, written = _check(tmp_path, path, "--previous", tmp_path / "bad.json", out="x.json")
    assert result.exit_code == 2 and written is None, result.output
    assert "--previous" in result.output and "r2's budget" in result.output


def test_a_note_nested_too_deeply_or_a_fifo_is_refused_in_one_line(tmp_path):
    path = _results(tmp_path)
    (tmp_path / "deep.json").write_text('{"candidates": ' + "[" * 100_000 + "]" * 100_000 + "}")
    result, _ = _check(tmp_path, path, "--previous", tmp_path / "deep.json", out="x.json")
    assert result.exit_code == 2 and "not a release note's JSON (RecursionError)" in result.output
    assert "internal" not in result.output
    os.mkfifo(tmp_path / "pipe.json")  # read as it is, this would wait for a writer for ever
    result, _ = _check(tmp_path, path, "--previous", tmp_path / "pipe.json", out="y.json")
    assert result.exit_code == 2 and "is a FIFO (named pipe), not a regular file" in result.output
    (tmp_path / "alpha.json").write_text(json.dumps({"baseline": "r1", "parameters": {"alpha": "0.05"},
                                                     "candidates": []}))
    result, _ = _check(tmp_path, path, "--previous", tmp_path / "alpha.json", out="z.json")
    assert result.exit_code == 2 and 'records alpha "0.05", not a level' in result.output


def test_verify_reruns_a_later_look_at_its_level(tmp_path):
    path = _results(tmp_path)
    _check(tmp_path, path)
    run_cli("check", path, "--baseline", "r1", "--no-policy", "--previous", tmp_path / "note.json",
            "-o", tmp_path / "again.json")
    result = run_cli("verify", tmp_path / "again.json", path)
    assert result.exit_code == 0, result.output


def test_mid_p_values_take_weighted_holm_and_spend_the_whole_level(tmp_path):
    # A mid-p value is no attainable p of an exact test, so the discrete step-down's bound does not hold for it:
    # with --mcnemar midp the budget is weighted Holm, which may spend all of alpha (nothing left for a later look).
    path = _results(tmp_path)
    exact = _check(tmp_path, path, out="exact.json")[1]["candidates"][0]["budget"]
    midp = _check(tmp_path, path, "--mcnemar", "midp", out="midp.json")[1]["candidates"][0]["budget"]
    assert exact["method"] == "weighted discrete Holm" and exact["spent"] < 0.05
    assert midp["method"] == "weighted Holm" and midp["spent"] == 0.05 and midp["left"] == 0
    assert all(m["trials"] is None for m in midp["members"])


def _refused(tmp_path, path, note: dict, *extra: str) -> str:
    (tmp_path / "edited.json").write_text(json.dumps(note))
    result, written = _check(tmp_path, path, "--previous", tmp_path / "edited.json", *extra, out="x.json")
    assert result.exit_code == 2 and written is None, result.output
    lines = [line for line in result.output.splitlines() if line.startswith("releasegate: error")]
    assert len(lines) == 1, result.output
    return lines[0]


@pytest.mark.parametrize("flag, value, said", [
    ("--margin", "0.02", "that note was decided with margin 0.05, this comparison with margin 0.02"),
    ("--correction", "holm", "correction discrete-holm, this comparison with correction holm"),
    ("--mcnemar", "midp", "mcnemar exact, this comparison with mcnemar midp"),
])
def test_a_note_of_another_policy_of_the_budget_is_refused_naming_it(tmp_path, flag, value, said):
    path = _results(tmp_path)
    _check(tmp_path, path)
    result, _ = _check(tmp_path, path, "--previous", tmp_path / "note.json", flag, value, out="x.json")
    assert result.exit_code == 2 and said in result.output and "one policy of the budget" in result.output


def test_a_note_of_other_critical_categories_or_another_metric_is_refused(tmp_path):
    path = _results(tmp_path)
    _, note = _check(tmp_path, path)
    line = _refused(tmp_path, path, {**note, "policy": {**note["policy"], "critical": ["Fraud"]}})
    assert "critical [Fraud], this comparison with critical none" in line
    line = _refused(tmp_path, path, {**note, "policy": {**note["policy"], "metric": ["acc"]}})
    assert "that note gated [acc], this comparison the outcome column: another metric" in line
    line = _refused(tmp_path, path, {**note, "outcome_kind": "continuous"})
    assert "that note compared continuous outcomes, this comparison binary ones" in line


def test_a_note_of_more_cases_or_a_category_this_suite_lacks_is_refused(tmp_path):
    path = _results(tmp_path)
    _, note = _check(tmp_path, path)
    line = _refused(tmp_path, path, {**note, "n_cases": 500})
    assert "that note held 500 cases, this comparison 400" in line and "not an earlier look" in line
    releases = [{**r, "n_cases": 450} if r["name"] == "r2" else r for r in note["releases"]]
    assert "that note held 450 cases of r2, this comparison 400" in _refused(tmp_path, path,
                                                                            {**note, "releases": releases})
    candidate = {**note["candidates"][0], "categories": [{**note["candidates"][0]["overall"], "category": "Fraud"}]}
    line = _refused(tmp_path, path, {**note, "candidates": [candidate]})
    assert "that note compared r2 in category 'Fraud', which this comparison of it does not have" in line
    # A note that records no policy or no count of cases cannot be checked: refused, never read as a look.
    assert "records no policy" in _refused(tmp_path, path, {k: v for k, v in note.items() if k != "policy"})
    assert "records no count of cases" in _refused(tmp_path, path, {k: v for k, v in note.items() if k != "n_cases"})


def test_a_later_look_with_more_cases_and_its_categories_is_read(tmp_path):
    # The first look on 300 of the cases, the second on all 400, each case in the same category: a later look.
    full = pd.read_csv(_results(tmp_path))
    full["category"] = np.where(full["case_id"].str[-1].isin(list("01234")), "A", "B")
    first = tmp_path / "first.csv"
    full[full["case_id"] < "c0300"].to_csv(first, index=False)
    full.to_csv(tmp_path / "all.csv", index=False)
    one, note = _check(tmp_path, first)
    assert one.exit_code in (0, 1, 3) and {c["category"] for c in note["candidates"][0]["categories"]} == {"A", "B"}
    two, again = _check(tmp_path, tmp_path / "all.csv", "--previous", tmp_path / "note.json", out="again.json")
    assert two.exit_code in (0, 1, 3), two.output
    assert again["candidates"][0]["budget"]["look"] == 2 and again["n_cases"] == 400
    # Given the other way round (the later note as the earlier look of the 300 cases), it is refused.
    result, _ = _check(tmp_path, first, "--previous", tmp_path / "again.json", out="y.json")
    assert result.exit_code == 2 and "that note held 400 cases, this comparison 300" in result.output
