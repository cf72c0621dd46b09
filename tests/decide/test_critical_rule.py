"""The critical rule by a test (issue 21 item 1): each critical category's own exact one-sided test, a member of
the one error budget at alpha with weight critical_weight (issue 34 item 5), zero tolerance as the opt-in, every
broken critical case named; checked on examples and on the operating characteristics of simulated releases
(plan/evaluate.py through the library's own plan)."""

from __future__ import annotations

import numpy as np
import pytest

from releasegate.analyze.candidate import plan_arrays
from releasegate.analyze.critical import critical_section
from releasegate.errors import InputError
from releasegate.model import CriticalScope
from releasegate.plan.evaluate import operating_characteristics
from releasegate.plan.gate import plan_gate
from releasegate.plan.simulate import ReleaseScenario
from releasegate.policy import Policy, make_policy
from releasegate.stats.unconditional import unconditional_mcnemar

FRAUD = CriticalScope(("Fraud",))  # the one critical category of the section tests


def _fraud(broke: int, fixed: int, passing: int = 45, failing: int = 5) -> tuple[np.ndarray, np.ndarray]:
    base = np.r_[np.ones(passing), np.zeros(failing)]
    cand = base.copy()
    cand[:broke] = 0
    cand[passing:passing + fixed] = 1
    return base, cand


def _section(base, cand, **policy):
    """The critical section after the budget (the data is the category, as its only one)."""
    pol = Policy(critical=("Fraud",), **policy)
    codes = np.zeros(base.size, dtype=np.int64)
    return plan_arrays(base, cand, pol, mcnemar=True, category_codes=codes, category_labels=["Fraud"]).critical


def test_the_lesson_fraud_case_blocks_at_one_in_64():
    # The default, critical_test = "conditional": the exact McNemar test of the changed cases alone.
    (t,) = _section(*_fraud(6, 0)).tests
    assert t.method == "exact McNemar" and (t.worse, t.better, t.cases) == (6, 0, 50)
    assert t.p_regression == pytest.approx(1 / 64, abs=1e-15) and t.blocks


def test_the_lesson_fraud_case_blocks_by_the_unconditional_test():
    # critical_test = "unconditional": the exact unconditional test of 6 broke, none fixed among the category's 50
    # cases, 0.0076733 (R, tests/stats/test_stats_unconditional.py), half the conditional 1/64.
    (t,) = _section(*_fraud(6, 0), critical_test="unconditional").tests
    assert t.method == "exact unconditional McNemar" and (t.worse, t.better, t.cases) == (6, 0, 50)
    assert t.p_regression == pytest.approx(0.007673338916, rel=1e-9) and t.blocks and t.trials is None


@pytest.mark.parametrize(("broke", "fixed", "p"), [
    (2, 0, 0.107785120406),
    (3, 0, 0.049488044154),  # under 0.05, where the conditional test's 1/8 is far above
    (4, 0, 0.023921587714),
    (5, 0, 0.016419568782),
    (5, 3, 0.267929918045),
])
def test_the_unconditional_test_and_its_place_in_the_budget(broke, fixed, p):
    # R's values (tests/stats/test_stats_unconditional.py). The category is the data's only one, so its McNemar
    # member and the overall member hold the same cases: the critical member (weight 1 + 10) is adjusted against
    # the overall test (weight 1), which then counts as reaching any p: adjusted at most 12/11 p.
    (t,) = _section(*_fraud(broke, fixed), critical_test="unconditional").tests
    assert t.p_regression == pytest.approx(p, rel=1e-9)
    assert t.p_regression <= t.p_adjusted <= 12 / 11 * t.p_regression + 1e-12
    assert t.blocks == (t.p_adjusted < 0.05)
    assert t.floor == pytest.approx(unconditional_mcnemar(broke + fixed, 0, 50).p_regression)


@pytest.mark.parametrize(("broke", "fixed", "p"), [
    (2, 0, 0.25),  # 2^-2
    (3, 0, 0.125),  # 2^-3
    (4, 0, 0.0625),  # 2^-4: above the budget's alpha 0.05, so it does not block
    (5, 0, 0.03125),  # 2^-5 blocks: the overall member (the same cases) cannot reach p / 5 = 0.00625
    (5, 3, 0.36328125),  # P(Bin(8, 1/2) >= 5) = 93/256
])
def test_the_test_is_the_exact_binomial_tail(broke, fixed, p):
    (t,) = _section(*_fraud(broke, fixed), critical_test="conditional").tests
    assert t.p_regression == pytest.approx(p, abs=1e-15)
    assert t.p_adjusted >= t.p_regression and t.blocks == (t.p_adjusted < 0.05) == (p < 0.05)
    assert t.floor == pytest.approx(2.0 ** -(broke + fixed))
    # Zero tolerance blocks on any broken case, whatever the test says.
    (z,) = _section(*_fraud(broke, fixed), critical_rule="any", critical_test="conditional").tests
    assert z.blocks and z.worse == broke


def test_majority_outcomes_with_runs_and_the_sign_test_on_scores():
    base = np.array([1.0, 1.0, 1.0, 0.6, 0.4, 0.0])
    cand = np.array([0.8, 0.4, 0.0, 0.4, 0.6, 0.0])  # majority: case 2, 3 and 4 broke, case 5 fixed
    pol = Policy(critical=("Fraud",), critical_test="conditional")
    codes = np.zeros(6, dtype=np.int64)
    (t,) = critical_section(base, cand, pol, FRAUD, mcnemar=False, rates=True, category_codes=codes,
                            category_labels=["Fraud"]).tests
    assert (t.method, t.worse, t.better) == ("exact McNemar on majority outcomes", 3, 1)
    assert t.p_regression == pytest.approx(5 / 16)  # P(Bin(4, 1/2) >= 3)
    (s,) = critical_section(base, cand, pol, FRAUD, mcnemar=False, rates=False, category_codes=codes,
                            category_labels=["Fraud"]).tests
    assert (s.method, s.worse, s.better) == ("exact sign test on per-case scores", 4, 1)
    assert s.p_regression == pytest.approx(6 / 32)  # P(Bin(5, 1/2) >= 4)
    # The default policy keeps the conditional test here: the unconditional one is for one run, pass/fail (the
    # category's own member), not for a member apart whose p would spend its share at every step.
    pol = Policy(critical=("Fraud",))
    (t,) = critical_section(base, cand, pol, FRAUD, mcnemar=False, rates=True, category_codes=codes,
                            category_labels=["Fraud"]).tests
    assert (t.method, t.p_regression) == ("exact McNemar on majority outcomes", pytest.approx(5 / 16))
    (s,) = critical_section(base, cand, pol, FRAUD, mcnemar=False, rates=False, category_codes=codes,
                            category_labels=["Fraud"]).tests
    assert (s.method, s.p_regression) == ("exact sign test on per-case scores", pytest.approx(6 / 32))


def test_the_sign_test_on_scores_counts_the_moves_the_case_lists_count():
    """A score that moved by min_change or less is a tie, as in the case lists and the category table: the test's
    worsened and improved counts are theirs, and a drift within min_change on every case is no evidence."""
    base = np.array([0.50, 0.60, 0.70, 0.80, 0.90, 0.55, 0.65])
    cand = np.array([0.495, 0.40, 0.69, 0.75, 0.97, 0.555, 0.649])  # moves -0.005 -0.2 -0.01 -0.05 +0.07 +0.005 -0.001
    codes = np.zeros(base.size, dtype=np.int64)
    for min_change, worse, better, p in ((None, 5, 2, 29 / 128), (0.0, 5, 2, 29 / 128), (0.0075, 3, 1, 5 / 16),
                                         (0.06, 1, 1, 3 / 4)):
        pol = Policy(critical=("Fraud",), min_change=min_change)
        (s,) = critical_section(base, cand, pol, FRAUD, mcnemar=False, rates=False, category_codes=codes,
                                category_labels=["Fraud"]).tests
        assert (s.method, s.worse, s.better) == ("exact sign test on per-case scores", worse, better)
        assert s.p_regression == pytest.approx(p)  # P(Bin(worse + better, 1/2) >= worse)
    # Every case 0.004 lower, min_change 0.01: no case worsened, so nothing to test (it blocked at p = 1/2^20).
    drift = np.linspace(0.3, 0.9, 20)
    (s,) = critical_section(drift, drift - 0.004, Policy(critical=("Fraud",), min_change=0.01), FRAUD, mcnemar=False,
                            rates=False, category_codes=np.zeros(20, dtype=np.int64), category_labels=["Fraud"]).tests
    assert (s.worse, s.better, s.p_regression) == (0, 0, 1.0)
    # Zero tolerance counts the same moves: a drift within min_change breaks nothing.
    (z,) = critical_section(drift, drift - 0.004, Policy(critical=("Fraud",), min_change=0.01, critical_rule="any"),
                            FRAUD, mcnemar=False, rates=False, category_codes=np.zeros(20, dtype=np.int64),
                            category_labels=["Fraud"]).tests
    assert (z.worse, z.blocks) == (0, False)


def _score_blocks(min_change, *, noise, drift=0.0, share=0.0, drop=0.0, reps=300, n=60):
    """How often the critical test blocks simulated score releases of one 60-case critical category: uniform
    0.2-0.9 baseline scores, the candidate the baseline plus normal noise and ``drift``, ``share`` of its cases
    ``drop`` lower."""
    rng = np.random.default_rng(7)
    policy = Policy(critical=("Fraud",), min_change=min_change)
    blocked = 0
    for _ in range(reps):
        base = rng.uniform(0.2, 0.9, n)
        cand = base + rng.normal(0.0, noise, n) + drift
        cand[rng.random(n) < share] -= drop
        result = plan_arrays(base, cand, policy, mcnemar=False, rates=False, category_codes=np.zeros(n, np.int64),
                             category_labels=["Fraud"], verdict_only=True)
        blocked += result.critical.tests[0].blocks
    return blocked / reps


def test_counting_moves_beyond_min_change_keeps_the_level_and_gains_power_on_scores():
    """Simulated releases, 300 each (standard error about 1.3 points at 5%): with min_change = 0.01 (1% of the
    range, the default) the test holds its level on harmless releases, no longer blocks a drift within
    min_change on every case (every move counted: blocked all 300), and catches a 0.1 drop on 30% of the cases
    more often, the noise within min_change no longer diluting it."""
    for noise in (0.003, 0.02):
        assert _score_blocks(0.01, noise=noise) <= 0.05 + 3 * 0.013
    assert _score_blocks(0.0, noise=0.003, drift=-0.004) == 1.0
    assert _score_blocks(0.01, noise=0.003, drift=-0.004) <= 0.05
    for noise in (0.003, 0.02):
        counted_all = _score_blocks(0.0, noise=noise, share=0.3, drop=0.1)
        assert _score_blocks(0.01, noise=noise, share=0.3, drop=0.1) >= counted_all + 0.05


def test_a_critical_category_without_cases_blocks():
    base, cand = _fraud(0, 0)
    pol = Policy(critical=("Fraud", "Safety"))
    tests = critical_section(base, cand, pol, CriticalScope(("Fraud", "Safety")), mcnemar=True, rates=True,
                             category_codes=np.zeros(50, np.int64), category_labels=["Fraud"]).tests
    assert [(t.label, t.cases, t.blocks) for t in tests] == [("Fraud", 50, False), ("Safety", 0, True)]
    # Nothing measured: no case either way, and p and its floor are 1 (nothing shown), yet it blocks.
    assert (tests[1].worse, tests[1].better, tests[1].p_regression, tests[1].floor) == (0, 0, 1.0, 1.0)
    assert critical_section(base, cand, Policy(), CriticalScope(), mcnemar=True, rates=True, category_codes=None,
                            category_labels=()) is None


@pytest.mark.parametrize(("values", "message"), [
    ({"critical_rule": "none"}, "unknown critical_rule 'none'"),
    ({"critical_weight": 0}, "critical_weight must be a number above 0"),
    ({"critical_weight": "4"}, "critical_weight must be a number"),
    ({"critical_alpha": 0.1}, "critical_alpha is retired: .* set critical_weight"),
])
def test_policy_refuses_bad_critical_settings(values, message):
    with pytest.raises(InputError, match=message):
        make_policy(values)


def test_the_lesson_blocks_r2_for_fraud_and_names_every_broken_case(example_report):
    r2 = next(v for v in example_report.verdicts if v.candidate == "r2-new-prompt")
    assert r2.reasons[0].rule == "critical_broken"
    assert "6 of 45 passing Fraud cases (fixed none), one-sided exact McNemar p = 0.016" in r2.reasons[0].message
    assert r2.warnings[0].startswith("Fraud (critical): 6 broken cases: ")
    r3 = next(v for v in example_report.verdicts if v.candidate == "r3-small-model")
    assert not r3.ship
    # r3 broke 2 Fraud and 3 Safety cases: named first among the warnings, though the test does not block.
    assert [w.split(":")[0] for w in r3.warnings[:2]] == ["Fraud (critical)", "Safety (critical)"]
    assert all("does not block" in w for w in r3.warnings[:2])


# ------------------------------------------------------------------------------ operating characteristics

REPS = 400


def _rate(policy: Policy, **scenario) -> float:
    sc = ReleaseScenario(n=400, p0=0.9, critical=(50,), **scenario)
    (cell,) = operating_characteristics(plan_gate(policy, rules={"critical_broken"}), [sc], reps=REPS, seed=21)
    return cell.block.rate


@pytest.mark.parametrize("churn", [0.05, 0.10])
def test_the_test_rarely_blocks_a_release_that_changes_nothing_where_zero_tolerance_nearly_always_does(churn):
    # Measured (issue 21, 4,000 reps): test 1.3% / 3.4%, zero tolerance 72% / 92% at 5% / 10% churn.
    test = _rate(Policy(), churn=churn)
    zero = _rate(Policy(critical_rule="any"), churn=churn)
    assert test <= 0.08  # the level 0.10 bounds it; 0.08 leaves 3 Monte Carlo SE above the measured rate
    assert zero >= 0.6 and zero > test + 0.5


def test_the_test_catches_a_20_point_drop_in_the_critical_category():
    # Measured: 84.3% at 10% churn for a 50-case category in the one error budget (issue 34; 91.1% when the
    # test ran alone at critical_alpha 0.10: the exact test at the whole 5% can reach at most about 84%).
    assert _rate(Policy(), churn=0.10, critical_drop=0.20) >= 0.78


def test_with_five_runs_the_majority_test_holds_its_level_and_still_detects():
    # Zero tolerance over runs ("any drop of a case's mean") blocks nearly every harmless release.
    assert _rate(Policy(), churn=0.10, runs=5) <= 0.03
    assert _rate(Policy(critical_rule="any"), churn=0.10, runs=5) >= 0.95
    assert _rate(Policy(), churn=0.10, runs=5, critical_drop=0.20) >= 0.9


@pytest.mark.parametrize("churn", [0.05, 0.17])
def test_a_rerun_never_blocks_a_release_the_gate_would_pass_without_it(churn):
    # Issue 34 item 7: the exchangeability test alone once raised false blocks (1.0% -> 3.8% at 5% churn).
    # Now McNemar and the exchangeability test must both show it, in the same family: pathwise, a release
    # blocked with its rerun is blocked without it, harmless or not.
    from dataclasses import replace

    import numpy as np

    from releasegate.plan.evaluate import verdict_of
    from releasegate.plan.simulate import draw_releases

    gate = plan_gate(Policy())
    removed = 0
    for drop in (0.0, 0.20):
        sc = ReleaseScenario(n=400, churn=churn, critical=(50,), categories=8, rerun=True, noise="reproduce",
                             critical_drop=drop)
        for sample in draw_releases(sc, 150, np.random.default_rng(34)):
            with_rerun = verdict_of(gate(sample)) == "dont_ship"
            without = verdict_of(gate(replace(sample, rerun_runs=None))) == "dont_ship"
            assert without or not with_rerun
            removed += without and not with_rerun
    assert removed > 0 or churn < 0.1  # and where the baseline churns, the rerun does remove blocks


@pytest.mark.parametrize("test, powerless", [("conditional", True), ("unconditional", False)])
def test_a_critical_category_is_powerless_by_its_own_test_floor(test, powerless):
    # 2 broke and 2 fixed among the category's 50 cases: all 4 broken would give the conditional test 2^-4 =
    # 0.0625, never below 0.05 (powerless), and the unconditional test 0.0239 (stats/unconditional.py), which
    # the category's member (weight 1 + 10 of 12, the overall test with 4 changed cases spends nothing) reaches.
    base, cand = _fraud(2, 2)
    codes = np.r_[np.zeros(50, dtype=np.int64), np.ones(50, dtype=np.int64)]
    base, cand = np.r_[base, np.ones(50)], np.r_[cand, np.ones(50)]
    result = plan_arrays(base, cand, Policy(critical=("Fraud",), critical_test=test), mcnemar=True,
                         category_codes=codes, category_labels=["Fraud", "Other"])
    fraud = result.categories[0]
    assert (fraud.broke, fraud.fixed, fraud.powerless) == (2, 2, powerless)
    assert unconditional_mcnemar(4, 0, 50).p_regression == pytest.approx(0.023921587713788356, rel=1e-9)
    assert fraud.discordant_needed == (5 if powerless else None)


def test_an_even_split_of_runs_fails_on_both_sides():
    # Two runs each: a mean of 0.5 is one pass in two, not a majority, so it fails on either side. Case 1 stays
    # failing (0.5 -> 0), case 2 is fixed (0.5 -> 1), case 3 broke (1 -> 0.5): one each way, P(Bin(2, 1/2) >= 1).
    base, cand = np.array([0.5, 0.5, 1.0]), np.array([0.0, 1.0, 0.5])
    (t,) = critical_section(base, cand, Policy(critical=("Fraud",)), FRAUD, mcnemar=False, rates=True,
                            category_codes=np.zeros(3, dtype=np.int64), category_labels=["Fraud"]).tests
    assert (t.worse, t.better, t.p_regression) == (1, 1, pytest.approx(3 / 4))


@pytest.mark.parametrize(("cases", "unconditional"), [(1000, True), (1001, False)])
def test_the_unconditional_test_runs_up_to_its_largest_category(cases, unconditional):
    # 3 broke, none fixed: the conditional test's p is 2^-3 = 1/8 by hand; the unconditional test's is below it.
    base = np.ones(cases)
    cand = base.copy()
    cand[:3] = 0
    pol = Policy(critical=("Fraud",), critical_test="unconditional")
    (t,) = critical_section(base, cand, pol, FRAUD, mcnemar=True, rates=False,
                            category_codes=np.zeros(cases, dtype=np.int64), category_labels=["Fraud"]).tests
    assert (t.method == "exact unconditional McNemar") == unconditional
    assert (t.p_regression < 1 / 8) if unconditional else t.p_regression == pytest.approx(1 / 8, abs=1e-15)


def test_the_unconditional_floor_when_as_many_fixed_as_broke():
    # 2 broke and 2 fixed: the floor is every one of the 4 changed cases broken, 0.023921587714 (R, above).
    (t,) = _section(*_fraud(2, 2), critical_test="unconditional").tests
    assert (t.worse, t.better) == (2, 2) and t.floor == pytest.approx(0.023921587714, rel=1e-9)


def test_nothing_changed_has_the_floor_one_by_the_unconditional_test():
    (t,) = _section(*_fraud(0, 0), critical_test="unconditional").tests
    assert (t.worse, t.better, t.p_regression, t.floor) == (0, 0, 1.0, 1.0)


def test_a_critical_metric_splits_the_critical_weight_over_its_overall_test_and_categories():
    # Two categories and the overall test: three tests sharing the default weight 10, 10 / 3 each.
    base = np.ones(8)
    codes = np.r_[np.zeros(4, dtype=np.int64), np.ones(4, dtype=np.int64)]
    section = critical_section(base, base.copy(), Policy(), CriticalScope(("A", "B"), metric=True), mcnemar=True,
                               rates=False, category_codes=codes, category_labels=["A", "B"])
    assert (section.split, section.weight) == (3, pytest.approx(10 / 3))
    # Zero tolerance is outside the budget, and without a critical metric each category has its whole weight.
    for pol, metric in ((Policy(critical_rule="any"), True), (Policy(), False)):
        section = critical_section(base, base.copy(), pol, CriticalScope(("A", "B"), metric=metric), mcnemar=True,
                                   rates=False, category_codes=codes, category_labels=["A", "B"])
        assert (section.split, section.weight) == (1, 10.0)


def test_zero_tolerance_counts_a_single_failed_run_whatever_min_change_says():
    # Pass rates over 5 runs: 1.0 -> 0.8 is one run that broke; a tolerance is for scores, never for passes.
    pol = Policy(critical=("Fraud",), critical_rule="any", min_change=0.5)
    (t,) = critical_section(np.array([1.0, 0.6]), np.array([0.8, 0.6]), pol, FRAUD, mcnemar=False, rates=True,
                            category_codes=np.zeros(2, dtype=np.int64), category_labels=["Fraud"]).tests
    assert (t.worse, t.better, t.blocks) == (1, 0, True)
