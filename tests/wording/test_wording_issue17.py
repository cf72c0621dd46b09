"""Messages that confused a first-time user (issue 17): each says what it means in one reading."""

from __future__ import annotations

import pandas as pd
import pytest

from conftest import run_cli
from releasegate.api import compare
from releasegate.decide.rules import detail
from releasegate.errors import InputError


def _paired(n: int, broke: int, fixed: int = 0, both_fail: int = 0, category=lambda i: "A") -> pd.DataFrame:
    rows = []
    for i in range(n):
        base = 0 if i < fixed + both_fail else 1
        cand = 1 if i < fixed else (0 if i < fixed + both_fail + broke else base)
        rows += [["r1", f"c{i:03d}", base, category(i)], ["r2", f"c{i:03d}", cand, category(i)]]
    return pd.DataFrame(rows, columns=["release", "case_id", "passed", "category"])


def test_one_release_suggests_naming_the_files(tmp_path):
    (tmp_path / "a.csv").write_text("release,case_id,passed\ngpt,c1,1\n")
    (tmp_path / "b.csv").write_text("release,case_id,passed\ngpt,c1,0\n")
    result = run_cli("check", "a.csv", "b.csv", "--baseline", "gpt", cwd=tmp_path)
    assert result.exit_code == 2
    assert "found 1: 'gpt'; if each file holds one release (two files of the same model), name them: NAME=path" \
        in result.stderr


def test_interval_excluding_zero_beside_not_significant_says_why():
    # 5 broken, none fixed, of 100: Newcombe's 95% interval [-10.8, -0.1] excludes zero; exact McNemar p = 0.0625.
    verdict = compare(_paired(100, broke=5, both_fail=10), baseline="r1", margin=0.2).verdicts[0]
    assert "p = 0.062, not significant) (the interval excludes zero but the exact test, which the rules read" \
        in verdict.because
    # Where the two agree nothing is added.
    verdict = compare(_paired(400, broke=5, both_fail=10), baseline="r1", margin=0.2).verdicts[0]
    assert "excludes zero" not in verdict.because


def test_non_inferiority_shows_the_digits_that_decide():
    note = compare(_paired(400, broke=14, fixed=1, both_fail=30), baseline="r1")
    check = next(c for c in note.verdicts[0].checks if c.rule == "not_non_inferior")
    bound = detail(check, note.analysis).split("lower bound is ")[1].split(" points")[0]
    assert check.fired == (float(bound) < -5.0)
    assert bound != "-5.0" or not check.fired


@pytest.mark.parametrize("value, margin, expected", [
    (-0.0505, -0.05, "-5.05 points"), (-0.05004, -0.05, "-5.004 points"), (-0.04, -0.05, "-4.0 points"),
    (-0.0498, -0.05, "-4.98 points"), (-0.05, -0.05, "-5.0 points"),
])
def test_told_apart(value, margin, expected):
    from releasegate.wording.checks import told_apart as _told_apart

    assert _told_apart(value, margin, True) == (expected, "-5.0 points")


def test_guardrail_says_the_upper_bound_counts(example):
    note = compare(example["eval_results.csv"], cases=example["eval_cases.csv"], policy=example["releasegate.toml"])
    r2, r3 = (next(c for c in v.checks if c.rule == "guardrail") for v in note.verdicts)
    assert r2.fired and detail(r2, note.analysis).endswith(": the upper bound 1.33x is above the limit 1.25")  # 90%
    assert not r3.fired and detail(r3, note.analysis).endswith(": the upper bound 0.62x is within the limit 1.25")
    # The sentence is written from the figures the rule compared.
    (figure,) = [f for f in r2.figures if f.subject == "max_latency_p95_ratio"]  # beside the errored-rate one
    assert (figure.subject, figure.limit, round(figure.ci_high, 2), figure.fired) == ("max_latency_p95_ratio", 1.25, 1.33,
                                                                                     True)


def test_several_critical_categories_read_as_a_sentence(example):
    # Zero tolerance (critical_rule = "any"): r3's 2 Fraud and 3 Safety breaks block; the default test would not.
    note = compare(example["eval_results.csv"], cases=example["eval_cases.csv"], policy=example["releasegate.toml"],
                   critical_rule="any")
    r3 = note.verdict("r3-small-model")
    assert r3.because.startswith("it broke 2 of 45 passing Fraud cases (fixed none) and 3 of 28 passing Safety "
                                 "cases (fixed none), both critical categories; overall -3.2 points")
    check = next(c for c in r3.checks if c.rule == "not_non_inferior")
    assert detail(check, note.analysis).endswith("lower bound is -5.05 points, margin -5.0 points")


def test_three_critical_categories():
    table = _paired(90, broke=3, category=lambda i: "ABC"[i % 3])
    verdict = compare(table, baseline="r1", critical=["A", "B", "C"], critical_rule="any").verdicts[0]
    assert ("it broke 1 of 30 passing A cases (fixed none); 1 of 30 passing B cases (fixed none) and 1 of 30 "
            "passing C cases (fixed none), all critical categories") in verdict.because


def test_single_release_from_a_frame_is_refused():
    with pytest.raises(InputError, match="name them: NAME=path"):
        compare(pd.DataFrame({"release": ["a"], "case_id": ["c"], "passed": [1]}), baseline="a")
