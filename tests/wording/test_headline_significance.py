"""The word after the overall p in a headline follows what the overall rule reads (the one-sided p adjusted in
the error budget), not the two-sided p alone: a NOT PROVEN headline used to print "(McNemar p = 0.029,
significant)" beside a rule that, adjusted over the family, did not fire."""

from __future__ import annotations

import json

import pandas as pd

import releasegate


def _release(broke_other: int, fixed_other: int) -> pd.DataFrame:
    """400 cases, a critical 100-case "fraud" category with 6 broken and 6 fixed, the rest over three categories
    with the given counts."""
    def category(i: int) -> str:
        return "fraud" if i % 4 == 0 else ("a", "b", "c")[i % 3]

    other = [i for i in range(400) if category(i) != "fraud"]
    fraud = [i for i in range(400) if category(i) == "fraud"]
    broke = set(other[:broke_other]) | set(fraud[:6])
    fixed = set(other[broke_other:broke_other + fixed_other]) | set(fraud[6:12])
    rows = []
    for i in range(400):
        rows.append(("r1", f"c{i}", int(i not in fixed), category(i)))
        rows.append(("r2", f"c{i}", int(i not in broke), category(i)))
    return pd.DataFrame(rows, columns=["release", "case_id", "passed", "category"])


def test_a_two_sided_p_below_alpha_that_the_budget_does_not_fire_is_not_called_significant():
    # The critical category's exact unconditional test spends its share at every step (issue 46), so the
    # overall test's one-sided 0.0145 is adjusted past alpha.
    result = releasegate.compare(_release(13, 1), baseline="r1",
                                 policy={"critical": ["fraud"], "critical_test": "unconditional"})
    overall = result.analysis.candidates[0].overall
    assert (overall.broke, overall.fixed) == (19, 7)
    assert overall.p_value < 0.05 <= overall.p_adjusted  # two-sided 0.029; adjusted one-sided 0.163
    headline = json.loads(result.to_json())["candidates"][0]["headline"]
    assert headline.startswith("NOT PROVEN r2")
    assert "(McNemar p = 0.029, not significant in the error budget: adjusted p = 0.163)" in headline
    assert ", significant)" not in headline


def test_agreeing_figures_keep_the_plain_word():
    result = releasegate.compare(_release(5, 5), baseline="r1", policy={"critical": ["fraud"]})
    headline = json.loads(result.to_json())["candidates"][0]["headline"]
    assert "not significant)" in headline and "error budget" not in headline
