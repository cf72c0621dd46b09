"""The error budget's graph (issue 46 item 1): the overall test weighs 1, the categories share 1, a critical
category adds critical_weight, the error-rate test weighs 1; under discrete-holm every member is read at most
at alpha and spends only what it can attain there, so a critical category that cannot show anything costs the
other tests nothing. The issue's case: a critical category whose p is 0.27 once multiplied the overall test's
p 0.0069 by 12 (the unconditional test counted as reaching any p at weight 11)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy.stats import binom

from conftest import run_cli
from releasegate.analyze.candidate import plan_arrays
from releasegate.policy import Policy

LABELS = ["Crit"] + [f"k{j}" for j in range(1, 9)]


def _pair(critical_changes: tuple[int, int], other_changes: tuple[int, int]) -> tuple[np.ndarray, ...]:
    """400 cases: a 50-case critical category first, 8 others of 43-44; ``(broke, fixed)`` in the critical
    category and spread evenly over the others (5 or fewer changed cases each: they cannot spend at the
    overall test's step)."""
    n, crit = 400, 50
    base = np.ones(n)
    base[crit::9] = 0  # failing baseline cases outside the critical category, to be fixed
    base[1:crit:9] = 0
    cand = base.copy()
    codes = np.zeros(n, dtype=np.int64)
    codes[crit:] = 1 + (np.arange(n - crit) * 8) // (n - crit)
    for inside, (broke, fixed) in ((codes == 0, critical_changes), (codes > 0, other_changes)):
        passing = np.flatnonzero(inside & (base == 1))
        failing = np.flatnonzero(inside & (base == 0))
        # spread evenly over the cases (so over the categories)
        cand[passing[np.linspace(0, passing.size - 1, broke).astype(int)]] = 0
        cand[failing[np.linspace(0, failing.size - 1, fixed).astype(int)]] = 1
    return base, cand, codes


def _plan(base, cand, codes, **policy):
    return plan_arrays(base, cand, Policy(critical=("Crit",), **policy), mcnemar=True, category_codes=codes,
                       category_labels=LABELS)


def test_the_issues_case_a_critical_category_showing_nothing_no_longer_costs_the_overall_test():
    base, cand, codes = _pair((5, 3), (28, 12))
    plan = _plan(base, cand, codes)
    o = plan.overall
    assert (o.broke, o.fixed) == (33, 15)
    assert o.p_one_sided == pytest.approx(binom.sf(32, 48, 0.5), rel=1e-12)  # 0.0066
    crit = plan.critical.tests[0]
    assert (crit.worse, crit.better) == (5, 3) and crit.p_regression == pytest.approx(93 / 256)
    # The critical member (8 changed cases, weight 1/9 + 10) is read at min(alpha, lambda w) = alpha at the
    # overall test's step and spends what it attains there, P(Bin(8, 1/2) >= 7) = 9/256; the categories spend
    # nothing. Adjusted: p + 9/256 = 0.042, DON'T SHIP.
    assert o.p_adjusted == pytest.approx(o.p_one_sided + 9 / 256, rel=1e-9) and o.p_adjusted < 0.05
    # The exact unconditional test (p 0.268, R) reaches any p: it spends alpha there and the overall test is
    # not shown (the issue's x12 before the cap).
    unconditional = _plan(base, cand, codes, critical_test="unconditional")
    assert unconditional.critical.tests[0].p_regression == pytest.approx(0.267929918045, rel=1e-9)
    assert unconditional.overall.p_adjusted > 0.05


@pytest.mark.parametrize("changes", [(0, 0), (2, 1), (4, 0), (3, 1)])
def test_a_critical_category_that_cannot_reach_alpha_costs_nothing_at_any_weight(changes):
    # At most 4 changed cases: its best p is 1/16 > alpha, so the overall test's adjusted p is what it is with
    # the category not critical at all.
    base, cand, codes = _pair(changes, (28, 12))
    plain = plan_arrays(base, cand, Policy(), mcnemar=True, category_codes=codes, category_labels=LABELS)
    for weight in (1, 10, 1000):
        plan = _plan(base, cand, codes, critical_weight=weight)
        assert plan.overall.p_adjusted == pytest.approx(plain.overall.p_adjusted, rel=1e-12)
        assert plan.overall.p_adjusted < 0.05


def test_the_budgets_weights():
    base, cand, codes = _pair((5, 3), (28, 12))
    budget = _plan(base, cand, codes).budget
    weights = {m.label: m.weight for m in budget.members}
    assert weights["overall"] == 1.0
    assert weights["Crit"] == pytest.approx(1 / 9 + 10)
    assert all(weights[k] == pytest.approx(1 / 9) for k in LABELS[1:])
    # The critical member is the exact McNemar test of its 8 changed cases: its attainable p-values.
    crit = next(m for m in budget.members if m.label == "Crit")
    assert crit.trials == 8 and crit.kinds == ("category", "critical")
    # With the unconditional test the critical member and the overall test both count as reaching any p.
    members = _plan(base, cand, codes, critical_test="unconditional").budget.members
    assert [m.trials for m in members if m.label in ("overall", "Crit")] == [None, None]


def test_a_heavy_critical_weight_never_reads_the_critical_test_above_alpha():
    # A 20-point drop in the critical category: 13 broke, 1 fixed (p = 15/16384). At weight 1000 its member is
    # read at alpha, never above: its rule fires, and the overall test still gets what the member does not use.
    base, cand, codes = _pair((13, 1), (20, 14))
    plan = _plan(base, cand, codes, critical_weight=1000)
    crit = plan.critical.tests[0]
    assert crit.blocks and crit.p_adjusted < 0.05
    assert plan.budget.members[0].p_adjusted <= plan.budget.members[0].p_one_sided + 0.05


def test_with_a_rerun_a_critical_category_is_one_member_at_the_larger_of_its_two_p_values(tmp_path):
    # With the baseline run again, the critical test is the larger of McNemar's p and the exchangeability test's;
    # it is still its category's own test of the same changed cases, so the budget counts it once (both kinds),
    # at that larger p, instead of a second member that would thin the level of every other test.
    rows = ["release,case_id,category,passed"]
    for i in range(120):
        category = "Fraud" if i < 40 else ("A" if i < 80 else "B")
        base = int(i % 10 != 0)
        rerun = 1 - base if i in (10, 20, *range(21, 27)) else base  # the rerun itself changes 8 Fraud cases
        cand = 0 if 1 <= i <= 6 else base  # the candidate breaks 6 Fraud cases, fixes none
        rows += [f"r1,c{i:03d},{category},{base}", f"r1b,c{i:03d},{category},{rerun}",
                 f"r2,c{i:03d},{category},{cand}"]
    path, out = tmp_path / "results.csv", tmp_path / "note.json"
    path.write_text("\n".join(rows) + "\n")
    result = run_cli("check", path, "--baseline", "r1", "--baseline-rerun", "r1b", "--critical", "Fraud",
                     "-o", out)
    assert result.exit_code in (0, 1, 3), result.output
    members = json.loads(out.read_text())["candidates"][0]["budget"]["members"]
    fraud = [m for m in members if m["label"] == "Fraud"]
    assert len(fraud) == 1 and fraud[0]["kinds"] == ["category", "critical"]
    mcnemar = binom.sf(5, 6, 0.5)  # six broken, none fixed: 1/64
    assert fraud[0]["trials"] == 6 and fraud[0]["p_one_sided"] > mcnemar  # the exchangeability test's, larger
