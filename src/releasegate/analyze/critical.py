"""The critical categories' own tests (issue 21 item 1), each a member of the candidate's one error budget
(issue 34 item 5: analyze/budget.py adjusts them with the overall test, the categories and the error-rate
test, each critical test with the policy's ``critical_weight``, and sets ``blocks`` from the adjusted p).

- Pass/fail, one run: the exact unconditional test of broke against fixed among the category's cases
  (Suissa-Shuster, stats.unconditional; the lesson's Fraud: 6 broke of 45, none fixed, p = 0.0080), or with
  ``critical_test = "conditional"`` the exact McNemar test on the changed cases alone (p = 1/64). On few
  changed cases the conditional test cannot reach small p-values: on a 50-case category with a 20-point drop
  it catches 84.0% at 0.05 where the unconditional test catches 89.4%, both at their level. Above
  ``UNCONDITIONAL_MAX_CASES`` cases the conditional test is used (the two agree there, and the sup over the
  nuisance costs time in the number of cases).
- Pass/fail over several runs: the exact McNemar test (conditional: see ``_one``) on each case's majority outcome (a case passes when more than
  half its runs pass); the simulation study (docs/operating-characteristics.md) measured it at <= 0.4% false
  blocks where "any drop of a case's mean" blocked 90-100% of releases that change nothing.
- Scores: the exact McNemar test of the cases whose mean went down against those whose mean went up (the
  exact sign test), each counted only when it moved by more than ``min_change``, as the case lists and the
  per-category table count worsened and improved cases (analyze/min_change.py). A move within it is a tie:
  counting every move, a drift of 0.004 on every case of a 0-1 score blocked the release as "20 of 20 cases
  worsened" while the note listed none of them as worsened. Under "nothing changed" a case is as likely to
  move up as down by more than any tolerance, so the test keeps its level.
- ``critical_rule = "any"`` (zero tolerance, the opt-in, outside the budget): any broken or worsened case
  blocks.
- With a baseline rerun (``baseline_rerun``, pass/fail with one run): the exact McNemar test and the exact
  exchangeability test on (baseline, rerun, candidate) per case (stats.critical.exchangeability_test) must
  both show the regression: the member's p is the larger of the two. A rerun so only ever removes blocks (the
  baseline's own churn explains the broken cases), never adds one (issue 34 item 7: the exchangeability test
  alone, at its finer attainable p-values, blocked harmless releases more often than McNemar did).

A critical category with no case compared (none in the data, or every one set apart) cannot be measured, so it
blocks (fail closed).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from releasegate.analyze.min_change import moved
from releasegate.analyze.pairing import paired_difference
from releasegate.model import CriticalScope, CriticalSection, CriticalTest
from releasegate.policy import Policy
from releasegate.stats.critical import CriticalTest as RawTest
from releasegate.stats.critical import critical_mcnemar, exchangeability_test
from releasegate.stats.unconditional import unconditional_mcnemar

# Up to this many cases in a critical category its pass/fail test is the unconditional one (0.02 s at 400
# cases, 0.1 s at 1,000); above, the conditional test, which the unconditional one approaches as cases grow.
UNCONDITIONAL_MAX_CASES = 1000


def _moved_counts(base: np.ndarray, cand: np.ndarray, policy: Policy, rates: bool) -> tuple[int, int]:
    """The cases that went down and up: scores by more than ``min_change``, pass/fail (``rates``) by any change;
    the counts of the case lists (analyze/min_change.moved on the paired differences)."""
    up, down = moved(paired_difference(base, cand), policy, rates)
    return int(np.count_nonzero(down)), int(np.count_nonzero(up))


def _one(label: str, base: np.ndarray, cand: np.ndarray, policy: Policy, *, mcnemar: bool,
         rates: bool, rerun: np.ndarray | None = None, conditional: bool = False) -> CriticalTest:
    """The category's raw test; ``blocks`` is the budget's to set for a test (False until then)."""
    if base.size == 0:
        return CriticalTest(label, "no case compared", 0, 0, 0, 1.0, 1.0, True)
    if mcnemar:
        b, c, method = base, cand, "exact McNemar"
    elif rates:
        # A mean over R runs above one half is 2 k > R passing runs: stats.critical.majority_outcome's rule
        # (an even split fails on both sides alike).
        b, c = (base > 0.5).astype(np.int8), (cand > 0.5).astype(np.int8)
        method = "exact McNemar on majority outcomes"
    else:
        # Scores: the sign test is the exact McNemar test on the indicators "went down" / "went up".
        down, up = _moved_counts(base, cand, policy, rates=False)
        b = np.r_[np.ones(down), np.zeros(up)]
        c = 1 - b
        method = "exact sign test on per-case scores"
    test = critical_mcnemar(b, c, policy.alpha)
    worse, better = test.count, test.trials - test.count
    # One run, pass/fail only: there the test is its category's own McNemar member (analyze/budget.py), read at
    # the unconditional p. On majority outcomes or scores it is a member apart, where an unconditional p (no
    # binomial tail: counted as reaching any p) spends its weight's share at every step of the budget while the
    # conditional test's coarse p-values on few changed cases spend none: with 5 runs the other members lost a
    # tenth of their power (teams' grid, 2-point regression at 5% churn: 39.6% -> 28.8% not shipped).
    unconditional = (mcnemar and not conditional and policy.critical_test == "unconditional"
                     and base.size <= UNCONDITIONAL_MAX_CASES)
    if unconditional:
        test = _unconditional(test, worse, better, int(base.size))
        method = method.replace("exact McNemar", "exact unconditional McNemar")
    if policy.critical_rule == "any":
        # Zero tolerance counts every drop of a case's outcome (any run), as the rule did before the test.
        worse, better = _moved_counts(base, cand, policy, rates=mcnemar or rates)
        return CriticalTest(label, "any broken case (zero tolerance)", int(base.size), worse, better,
                            test.p_regression, test.floor, worse > 0)
    # The unconditional test's p-values are no binomial tail: in the budget it counts as a test that can reach
    # any p (its attainable set is bounded above by t), so its trials are None.
    trials = None if unconditional else test.trials
    if mcnemar and rerun is not None:
        again = exchangeability_test(base, rerun, cand, policy.alpha)
        return CriticalTest(label, f"{method}, and the exact exchangeability test with the baseline rerun",
                            int(base.size), worse, better, max(test.p_regression, again.p_regression), test.floor,
                            False, trials=trials, rerun_p=again.p_regression)
    return CriticalTest(label, method, int(base.size), worse, better, test.p_regression, test.floor, False,
                        trials=trials)


def _unconditional(test: RawTest, worse: int, better: int, cases: int) -> RawTest:
    """The exact unconditional test of the same counts; its floor is every changed case one way."""
    result = unconditional_mcnemar(worse, better, cases)
    floor = unconditional_mcnemar(worse + better, 0, cases).p_regression if worse + better else 1.0
    return RawTest("exact unconditional McNemar", result.p_regression, worse, worse + better, floor, test.alpha)


def critical_section(base: np.ndarray, cand: np.ndarray, policy: Policy, scope: CriticalScope, *, mcnemar: bool,
                     rates: bool, category_codes: np.ndarray | None, category_labels: Sequence[str],
                     rerun: np.ndarray | None = None) -> CriticalSection | None:
    """The raw tests of the critical categories of ``scope`` on paired per-case outcomes (a case's mean over
    runs); None when there is no critical category. ``rerun``: the baseline rerun's outcome of each
    case. A critical metric (``scope.metric``) adds the same test on every case as the section's ``overall``; its
    tests (overall and every category) then share ``critical_weight`` (each weighs critical_weight / k), so a
    critical metric spends about what one critical category does: at their own level 0.10 each, 4 categories
    and the overall test blocked 14-25% of harmless releases (bench/critical_metric.py). analyze/budget.py
    adjusts them and sets ``blocks``."""
    whole = scope.metric
    split = 1 + len(scope.categories) if whole and policy.critical_rule == "test" else 1
    # A critical metric's tests (overall and every category) share one weight: there the conditional test's
    # discreteness is what lets the tests that cannot reach small p-values spend nothing of it, so they keep it
    # (an unconditional test spends its share at every step of the budget).
    overall = _one("overall", base, cand, policy, mcnemar=mcnemar, rates=rates, rerun=rerun,
                   conditional=True) if whole else None
    if not scope.categories and overall is None:
        return None
    labels = [str(x) for x in category_labels]
    tests = []
    for label in scope.categories:
        if category_codes is None or label not in labels:
            inside = np.zeros(base.size, dtype=bool)
        else:
            inside = category_codes == labels.index(label)
        tests.append(_one(label, base[inside], cand[inside], policy, mcnemar=mcnemar, rates=rates,
                          rerun=None if rerun is None else rerun[inside], conditional=whole))
    return CriticalSection(policy.critical_rule, policy.alpha, tuple(tests), overall, split,
                           policy.critical_weight / split)
