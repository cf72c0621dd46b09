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


def test_the_word_follows_the_overall_rule_on_every_verdict_of_a_grid():
    # A property over 36 releases (losses, gains and ties, with the critical category's test spending its share):
    # toward a loss the headline calls the overall figure significant exactly when the overall rule fired, and
    # a gain or a tie keeps the two-sided word.
    seen = set()
    for broke_other in (0, 4, 9, 14, 19, 30):
        for fixed_other in (0, 2, 7, 15, 25, 40):
            result = releasegate.compare(_release(broke_other, fixed_other), baseline="r1",
                                         policy={"critical": ["fraud"], "critical_test": "unconditional"})
            verdict = result.verdicts[0]
            overall = result.analysis.candidates[0].overall
            fired = any(r.rule == "overall_regression" for r in verdict.reasons)
            if fired:
                # its reason leads the sentence; the overall figure's word is then not printed again
                assert verdict.because.startswith("significant overall regression"), verdict.because
                assert overall.diff < 0 and overall.p_adjusted < 0.05
                seen.add("fired")
                continue
            word = verdict.because
            assert ", significant)" not in word or overall.p_value < 0.05, word
            if overall.diff < 0:
                assert overall.p_adjusted >= 0.05
                assert "significant one-sided" not in word
                if overall.p_value < 0.05:
                    assert "not significant in the error budget" in word
                    seen.add("budget")
                else:
                    assert "not significant)" in word
                    seen.add("plain")
    assert seen == {"fired", "budget", "plain"}
