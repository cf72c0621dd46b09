"""One error budget for the rules that say DON'T SHIP (issue 34 item 5, issue 46 item 1; SPEC 4.5).

The family of one candidate is every test whose rule blocks a release as worse: the overall regression test,
each category's, each critical category's own test and the error-rate test (the cases only the candidate
errored on against those only the baseline errored on, exact one-sided McNemar). They are adjusted together at
the policy's alpha, so a release that changes nothing is told DON'T SHIP by any of them at most alpha of the
time, whatever the churn, the number of categories or critical categories.

The design (docs/methods.md, one error budget) is a graphical procedure in Holm's form (Bretz, Maurer, Brannath &
Posch 2009: weights on the hypotheses, a rejected one's weight passed on to the others in proportion to theirs)
with discrete local tests (Hommel & Krummenauer 1998; Westfall & Wolfinger 1997; the weighted Bonferroni-based
tests of Bretz et al. 2011): the overall test weighs 1 (the primary hypothesis), the categories share one weight
between them (1 / K each), each critical category adds ``critical_weight`` to its category's member, the
error-rate test weighs 1. Under ``discrete-holm`` (the default) member i is read at min(alpha, lambda w_i) and
spends only the largest p it can attain there (:func:`releasegate.stats.step_down.weighted_discrete_holm` with
``cap = alpha``): a member that cannot reach alpha with its changed cases (a critical category with few of them,
a small category) spends nothing and the others keep its share, and a heavy member spends at most what it can
use at alpha. A critical category's test is by default the exact conditional McNemar test of its changed
cases, whose attainable p-values are known given them; the exact unconditional test (``critical_test =
"unconditional"``) reaches any p, so it spends its share at every step and the overall test, which reads the
same cases, is then counted as reaching any p too (the bound is taken given the other categories' changed
cases only). A critical category's own test that is its category's McNemar test (one run) is one member serving
both rules (with a baseline rerun its p is the larger of McNemar's and the exchangeability test's, for both
rules). The other corrections adjust the same family with their weighted forms (holm: weighted Holm;
bonferroni: weighted Bonferroni; hochberg, bh: on p / normalised weight; none: unadjusted). Zero tolerance
(``critical_rule = "any"``), a critical category without cases and the cost guardrails are outside the budget.
The two-sided p-values of the tables are adjusted over the overall test and the categories with Holm under
``discrete-holm``. A McNemar category is flagged *powerless* when even all its discordant pairs going one way
could not reach alpha in this family as observed.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

import numpy as np
from numpy.typing import NDArray

from releasegate.analyze.critical import UNCONDITIONAL_MAX_CASES
from releasegate.model import Comparison, CriticalSection, CriticalTest
from releasegate.model.budget import ErrorBudget, FamilyMember
from releasegate.policy import Policy
from releasegate.stats.discrete import largest_attainable_at_most
from releasegate.stats.multiplicity import adjust_pvalues
from releasegate.stats.step_down import (
    largest_spend,
    weighted_best_case,
    weighted_bonferroni,
    weighted_discrete_holm,
    weighted_holm,
    weighted_step_up,
)
from releasegate.stats.unconditional import unconditional_mcnemar

DISCRETE_HOLM = "discrete-holm"
# The graph's weights: the overall test is the primary hypothesis, the categories share one weight between them
# (so their number does not drown the overall test), each critical category adds critical_weight to its member.
OVERALL_WEIGHT = 1.0
CATEGORIES_WEIGHT = 1.0
ERROR_WEIGHT = 1.0
# The discrete step-down costs O(m^2) look-ups per adjustment (and the powerless flags m of them): above this
# many members the family is adjusted with weighted Holm (O(m log m)), which the discrete form never exceeds.
DISCRETE_MAX_FAMILY = 200
_NOTHING_LEFT = 1e-12  # a later look with nothing left is read at this level: nothing fires
METHOD_NAMES = {DISCRETE_HOLM: "weighted discrete Holm", "holm": "weighted Holm", "bonferroni": "weighted Bonferroni",
                "hochberg": "weighted Hochberg", "bh": "weighted Benjamini-Hochberg", "none": "none (unadjusted)"}
_MAX_PAIRS = 1074  # 2^-1074 is the smallest double: no search for the pairs needed goes beyond it
# What a member's adjusted p is written back to: the overall test, category k, critical test j, ...
Target = tuple[Literal["overall", "critical_overall", "error"]] | tuple[Literal["category", "critical"], int]


@dataclass
class _Member:
    label: str
    kinds: tuple[str, ...]
    p: float
    trials: int | None
    weight: float
    targets: list[Target]
    # A category member read at its critical test's exact unconditional p: the category's cases, whose
    # unconditional test gives the member's floor (all its changed cases broke), not the binomial 2^-n.
    unconditional_cases: int | None = None


@dataclass(frozen=True)
class Budgeted:
    """The family's members written back: adjusted comparisons, critical section and error-rate p."""

    overall: Comparison
    categories: list[Comparison]
    critical: CriticalSection | None
    error_p_adjusted: float | None
    budget: ErrorBudget
    level: float  # what the family leaves the overall test at its first step (the power's level)


def _same_test(test: CriticalTest, comparison: Comparison) -> bool:
    """A critical test of its category's own changed cases (one run, pass/fail): the comparison's exact McNemar
    test, or the exact unconditional test of the same broke and fixed counts; either confirmed, with a rerun,
    by the exchangeability test (its p the larger of the two)."""
    if "majority" in test.method or comparison.method != "McNemar exact":
        return False
    if test.method.startswith("exact unconditional McNemar"):
        return (test.worse, test.better) == (comparison.broke, comparison.fixed)
    if not (test.method.startswith("exact McNemar") and comparison.trials is not None
            and comparison.trials == test.trials):
        return False
    if test.rerun_p == test.rerun_p:  # with a rerun: max(McNemar p, exchangeability p)
        return test.p_regression == max(comparison.p_one_sided, test.rerun_p)
    return comparison.p_one_sided == test.p_regression


def _in_budget(test: CriticalTest) -> bool:
    return test.cases > 0  # "no case" is no test (it blocks of its own); zero tolerance has no member at all


def _members(overall: Comparison, categories: list[Comparison], critical: CriticalSection | None,
             error: tuple[float, int] | None, policy: Policy) -> list[_Member]:
    # An overall figure that does not exist (a corrected difference without enough gold labels, NaN) rejects
    # nothing: a member at p = 1, which keeps its weight, so the others are adjusted as if it were there.
    p_overall = overall.p_one_sided if overall.p_one_sided == overall.p_one_sided else 1.0
    out = [_Member("overall", ("overall",), p_overall, overall.trials, OVERALL_WEIGHT, [("overall",)])]
    index = {c.label: len(out) + k for k, c in enumerate(categories)}
    each = CATEGORIES_WEIGHT / len(categories) if categories else 0.0
    out += [_Member(c.label, ("category",), c.p_one_sided, c.trials, each, [("category", k)])
            for k, c in enumerate(categories)]
    if critical is not None and critical.rule == "test":
        weight = critical.weight
        if critical.overall is not None and _in_budget(critical.overall):
            _add(out, 0 if _same_test(critical.overall, overall) else None, critical.overall, weight,
                 ("critical_overall",))
        for j, test in enumerate(critical.tests):
            if not _in_budget(test):
                continue
            k = index.get(test.label)
            same = k is not None and _same_test(test, categories[k - 1])
            _add(out, k if same else None, test, weight, ("critical", j))
    if error is not None:
        p, trials = error
        out.append(_Member("error rate", ("error_rate",), p, trials, ERROR_WEIGHT, [("error",)]))
    if any(m.unconditional_cases is not None for m in out):
        # An unconditional critical test is bounded over its category's changed cases, not given them; the
        # overall test reads the same cases, so its bound is taken the same way: as a member reaching any p.
        out[0].trials = None
    return out


def _add(out: list[_Member], merge_into: int | None, test: CriticalTest, weight: float, target: Target) -> None:
    if merge_into is not None:
        # One member serving both rules, read by both at the critical test's p: the category's McNemar p (with a
        # rerun the larger of it and the exchangeability test's, which must agree), or the unconditional test's
        # of the same cases, a valid p of the same hypothesis that can reach smaller values (its attainable set
        # is bounded by t: trials None). The family is the same with and without a rerun and a rerun can only
        # raise a p: the step-down is monotone in every p, so it never blocks what the release without a rerun
        # would not.
        member = out[merge_into]
        member.weight += weight
        member.kinds += ("critical",)
        member.targets.append(target)
        member.p = test.p_regression
        member.trials = test.trials
        if test.method.startswith("exact unconditional"):
            member.unconditional_cases = test.cases
    else:
        unconditional = test.cases if test.method.startswith("exact unconditional") else None
        out.append(_Member(test.label, ("critical",), test.p_regression, test.trials, weight, [target],
                           unconditional))


def _method(policy: Policy, size: int) -> str:
    if policy.correction == DISCRETE_HOLM and (policy.mcnemar == "midp" or size > DISCRETE_MAX_FAMILY):
        return "holm"  # mid-p values have no attainable-set bound; large families: weighted Holm
    return policy.correction


def _adjust(p: NDArray[np.float64], w: NDArray[np.float64], trials: list[int | None],
            method: str, alpha: float) -> NDArray[np.float64]:
    if method == DISCRETE_HOLM:
        # Read at alpha with every member capped there (what fires); a member that does not fire shows the
        # step-down's value without the cap, a level-calibrated adjusted p, never below alpha when the capped
        # one is not (a cap only lowers the sums).
        capped = np.array(weighted_discrete_holm(p, w, trials, cap=alpha).adjusted)
        return np.where(capped < alpha, capped, np.array(weighted_discrete_holm(p, w, trials).adjusted))
    if method == "holm":
        return np.array(weighted_holm(p, w).adjusted)
    if method == "bonferroni":
        return np.array(weighted_bonferroni(p, w))
    if method == "none":
        return p.copy()
    return np.array(weighted_step_up(p, w, method))


@dataclass(frozen=True)
class _Family:
    """The family as arrays, built once per adjustment: the powerless search reads it ~11 times a member, and
    rebuilding it per read made a 10,000-category family quadratic (1.2e9 element copies)."""

    p: NDArray[np.float64]
    w: NDArray[np.float64]
    trials: list[int | None]  # each member's trials under discrete-holm, else None
    total_weight: float
    unconditional_cases: list[int | None]  # _Member.unconditional_cases of each member
    alpha: float  # the level every member is read at most at (discrete-holm's cap)


def _best_case(family: _Family, i: int, n_disc: int, method: str, midp: bool) -> float:
    """Member i's adjusted p if all its ``n_disc`` discordant pairs broke, the others as observed."""
    floor = 2.0 ** -(n_disc + (1 if midp else 0)) if n_disc > 0 else 1.0
    known = family.unconditional_cases[i]
    cases = max(known, n_disc) if known is not None else 0
    unconditional = known is not None and n_disc > 0 and cases <= UNCONDITIONAL_MAX_CASES
    if unconditional:
        # The unconditional test of n_disc broke cases among the category's (at least n_disc) cases: never above
        # the conditional floor, so a category it can still show is not called powerless.
        floor = unconditional_mcnemar(n_disc, 0, cases).p_regression
    if method == DISCRETE_HOLM:
        trials = list(family.trials)
        trials[i] = None if unconditional else n_disc
        return weighted_best_case(i, floor, family.p, family.w, trials, cap=family.alpha)
    if method in ("holm", "bonferroni"):
        return min(1.0, floor * family.total_weight / float(family.w[i]))  # the first step, O(1) per member
    if method == "none":
        return floor
    p = family.p.copy()
    p[i] = floor
    return float(_adjust(p, family.w, [None] * p.size, method, family.alpha)[i])


def _pairs_needed(family: _Family, i: int, method: str, policy: Policy) -> int | None:
    """Fewest discordant pairs, all broke, with which member i reaches the family's level (bisection); None when
    none can."""
    midp = policy.mcnemar == "midp"

    def reaches(k: int) -> bool:
        return _best_case(family, i, k, method, midp) < family.alpha

    if not reaches(_MAX_PAIRS):
        return None
    lo, hi = 0, _MAX_PAIRS
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if reaches(mid) else (mid, hi)
    return hi


def _first_step_level(members: list[_Member], method: str, alpha: float) -> float:
    """The level the family leaves the overall test at its first step: the largest t (the overall test counted
    as if it could reach any p, an upper bound of what it spends) with t + sum over the others of
    F_i(min(alpha, t w_i / w_overall)) <= alpha; alpha / (W / w_overall) under the continuous corrections, alpha
    under none."""
    w = np.array([m.weight for m in members])
    if method == "none" or len(members) == 1:
        return alpha
    if method != DISCRETE_HOLM:
        return alpha * float(w[0]) / float(w.sum())
    ratio = w / w[0]

    def spent(t: float) -> float:
        return t + sum(min(alpha, t * r) if m.trials is None else largest_attainable_at_most(m.trials, min(alpha, t * r))
                       for m, r in zip(members[1:], ratio[1:]))

    lo, hi = alpha * float(w[0]) / float(w.sum()), alpha  # spent(lo) <= alpha: every F_i(t) <= t
    if spent(hi) <= alpha:
        return alpha
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if spent(mid) <= alpha else (lo, mid)
    return lo


def apply_budget(overall: Comparison, categories: list[Comparison], policy: Policy, *,
                 critical: CriticalSection | None = None, error: tuple[float, int] | None = None,
                 flags: bool = True, look: int = 1, level: float | None = None) -> Budgeted:
    """Adjust the candidate's family (module docstring) and write the adjusted p back. ``error`` is the
    error-rate test's (one-sided p, trials) when the data has an error column; ``flags=False`` leaves the
    powerless flags unset (no rule reads them; simulations skip their search). ``level``: at a later look of the
    same releases (``look`` 2, 3, ...), the part of alpha the earlier looks left unspent; the family is read at
    it and its adjusted p-values are scaled by alpha / level, so each still fires below alpha exactly when it
    does at that level (docs/methods.md, later looks)."""
    members = _members(overall, categories, critical, error, policy)
    method = _method(policy, len(members))
    midp = policy.mcnemar == "midp"
    trials = [m.trials if method == DISCRETE_HOLM else None for m in members]
    p = np.array([m.p for m in members])
    w = np.array([m.weight for m in members])
    at = policy.alpha if level is None else min(policy.alpha, max(level, _NOTHING_LEFT))
    adjusted = np.minimum(1.0, _adjust(p, w, trials, method, at) * (policy.alpha / at))
    if level is not None and level <= 0:
        adjusted = np.ones_like(p)  # the earlier looks spent all of alpha: no member of this one can fire
    family = _Family(p, w, trials, float(w.sum()), [m.unconditional_cases for m in members], at)
    spent = largest_spend(w, trials, at) if method == DISCRETE_HOLM else at
    if method != DISCRETE_HOLM:
        for m in members:
            m.trials = None
    two_sided = adjust_pvalues(np.array([c.p_value if c.p_value == c.p_value else 1.0 for c in (overall, *categories)]),
                               "holm" if policy.correction == DISCRETE_HOLM else policy.correction)
    new_overall, new_categories = overall, list(categories)
    tests = list(critical.tests) if critical is not None else []
    whole = critical.overall if critical is not None else None
    error_adjusted = None
    for i, (member, value) in enumerate(zip(members, adjusted)):
        value = float(value)
        for target in member.targets:
            if target[0] == "overall":
                defined = overall.p_one_sided == overall.p_one_sided
                new_overall = replace(overall, p_adjusted=value if defined else float("nan"),
                                      p_value_adjusted=float(two_sided[0]) if defined else float("nan"))
            elif target[0] == "category":
                k = target[1]
                c = categories[k]
                powerless = flags and c.method.startswith("McNemar") and \
                    not _best_case(family, i, c.fixed + c.broke, method, midp) < policy.alpha
                needed = _pairs_needed(family, i, method, policy) if powerless else None
                # A critical category's member is read by both rules at the critical test's p (_add): the row
                # shows that p, so its adjusted p is never below the one shown.
                new_categories[k] = replace(c, p_one_sided=float(member.p), p_adjusted=value,
                                            p_value_adjusted=float(two_sided[k + 1]),
                                            powerless=powerless, discordant_needed=needed)
            elif target[0] == "critical":
                tests[target[1]] = replace(tests[target[1]], p_adjusted=value, blocks=value < policy.alpha)
            elif target[0] == "critical_overall":
                assert whole is not None  # a critical_overall member is made only from critical.overall
                whole = replace(whole, p_adjusted=value, blocks=value < policy.alpha)
            else:
                error_adjusted = value
    new_critical = None if critical is None else replace(critical, tests=tuple(tests), overall=whole)
    budget = ErrorBudget(
        METHOD_NAMES[method], policy.alpha, policy.critical_weight,
        tuple(FamilyMember(m.label, m.kinds, float(m.p), m.trials, float(m.weight), float(a))
              for m, a in zip(members, adjusted)), look, *((at, spent, max(0.0, at - spent))
                                                            if level is None or level > 0 else (0.0, 0.0, 0.0)))
    return Budgeted(new_overall, new_categories, new_critical, error_adjusted, budget,
                    _first_step_level(members, method, at))
