"""The two-phase settling rule (plan/settle.py, issue 34 item 3): its verdict logic, its alpha spent over the
looks, and its operating characteristics on simulated releases with run-to-run churn."""

from __future__ import annotations

import math

import pytest

from releasegate.plan.settle import TwoPhase, settled_verdict, two_phase_characteristics
from releasegate.plan.simulate import ReleaseScenario
from releasegate.policy import make_policy


def test_the_verdict_of_the_looks():
    assert settled_verdict((), None) == ("ship", 1)
    assert settled_verdict(("overall_regression", "not_non_inferior"), None) == ("dont_ship", 1)
    assert settled_verdict(("not_non_inferior",), ()) == ("ship", 2)
    assert settled_verdict(("not_non_inferior",), ("not_non_inferior",)) == ("not_proven", 2)
    assert settled_verdict(("not_non_inferior",), ("critical_broken",)) == ("dont_ship", 2)
    with pytest.raises(ValueError):
        settled_verdict(("not_non_inferior",), None)


def test_the_looks_spend_no_more_than_alpha():
    TwoPhase().check(0.05)
    with pytest.raises(ValueError, match="more than alpha"):
        TwoPhase(first_alpha=0.05, second_alpha=0.01).check(0.05)
    with pytest.raises(ValueError):
        TwoPhase(extra_runs=0).check(0.05)


def test_rerunning_settles_run_to_run_churn_at_a_fraction_of_the_calls():
    # 400 cases, one 50-case critical category and 8 others, 10% run-to-run churn: one look alone leaves about
    # 8% NOT PROVEN; the second look on 5 runs settles nearly all of them.
    policy = make_policy({}, baseline="a")
    reps = 200
    sc = ReleaseScenario(n=400, churn=0.10, critical=(50,), categories=8, noise="reproduce")
    r = two_phase_characteristics(sc, policy, reps=reps, seed=7)
    blocked = r.dont_ship.rate + r.not_proven.rate
    assert blocked <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / reps)
    assert r.dont_ship.rate <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / reps)  # first_alpha + second_alpha
    assert 1 < r.mean_calls <= 2 and r.second_look.rate > 0.02
    # A 5-point regression is still caught, and more often told DON'T SHIP than by one look.
    worse = two_phase_characteristics(ReleaseScenario(n=400, churn=0.10, critical=(50,), categories=8,
                                                      noise="reproduce", drop=0.05), policy, reps=100, seed=7)
    assert worse.ship.rate <= 0.15 and worse.dont_ship.rate >= 0.7


def test_case_level_change_is_not_settled_by_rerunning():
    # The candidate changed 10% of the cases for good and runs repeat exactly: look 2 sees the same outcomes.
    policy = make_policy({}, baseline="a")
    sc = ReleaseScenario(n=400, churn=0.0, change=0.10, critical=(50,), categories=8, noise="reproduce")
    r = two_phase_characteristics(sc, policy, reps=150, seed=3)
    assert r.second_look.rate > 0.02 and r.not_proven.rate >= r.second_look.rate - 0.02


def test_with_two_runs_case_level_change_costs_no_call_and_keeps_one_looks_verdicts():
    # 20% of the cases changed for good, two runs a case in hand: the split says more runs cannot settle it,
    # so no second phase is run and the releases are decided by one look at alpha (NOT PROVEN not raised).
    policy = make_policy({}, baseline="a")
    sc = ReleaseScenario(n=400, churn=0.0, change=0.20, critical=(50,), categories=8, noise="reproduce", runs=2)
    r = two_phase_characteristics(sc, policy, reps=150, seed=5)
    assert r.one_look is not None and r.one_look.rate == 1.0
    assert r.mean_calls == 1.0 and r.second_look.rate == 0.0
    assert r.dont_ship.rate <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / 150)


def test_with_two_runs_run_to_run_noise_is_still_settled_by_rerunning():
    policy = make_policy({}, baseline="a")
    sc = ReleaseScenario(n=400, churn=0.17, critical=(50,), categories=8, noise="reproduce", runs=2)
    r = two_phase_characteristics(sc, policy, reps=100, seed=5)
    assert r.one_look is not None and r.one_look.rate <= 0.05


def test_runs_can_settle_reads_the_split():
    from releasegate.plan.settle import runs_can_settle
    from releasegate.stats.settle import DiscordanceSplit

    design = TwoPhase()
    # All case-level: 20% of 400 cases changed for good; no run helps.
    assert not runs_can_settle(DiscordanceSplit(400, 2, 0.20, 0.20, 0.0), 0.05, design)
    # All run-to-run: the same total, averaged away by 10 runs.
    assert runs_can_settle(DiscordanceSplit(400, 2, 0.10, 0.0, 0.20), 0.05, design)
    # The margin off: nothing to settle.
    assert not runs_can_settle(DiscordanceSplit(400, 2, 0.10, 0.0, 0.20), 0.0, design)
