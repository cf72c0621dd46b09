"""The optional sections of a candidate's analysis: numbers and flags only (the sentences that read them are in
:mod:`releasegate.wording`, the JSON shapes in :mod:`releasegate.render.json_out`).

- the critical categories' own tests (:class:`CriticalSection`);
- :class:`ErroredCases`: cases that errored (a third state, neither pass nor fail) and left the comparison, or
  stayed in it as failures (``--missing fail``);
- :class:`CaseView`: the cases failing on both releases and the errored ones, listed.

The item and run axes and grouped cases are :mod:`releasegate.model.axes`, imported only with their input.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from releasegate.kinds import CriticalRule
from releasegate.model.cases import CaseChange
from releasegate.stats.error_rates import ErrorRateIncrease


@dataclass(frozen=True)
class CriticalTest:
    """One critical category's own one-sided test (issue 21): ``worse`` cases (broke, or a lower mean or
    majority outcome) against ``better``; ``floor`` is the smallest p those cases could give. ``cases`` is 0
    when the data holds no case of the category (it cannot be measured, so it blocks)."""

    label: str
    method: str
    cases: int
    worse: int
    better: int
    p_regression: float
    floor: float
    blocks: bool
    # Its place in the one error budget (analyze/budget.py): ``trials`` of the exact binomial test its p is
    # (worse + better; None when it is no test: zero tolerance, or no case), its adjusted p over the family;
    # with a baseline rerun ``rerun_p`` is the exchangeability test's p (``p_regression`` the larger of it and
    # the McNemar p: both must show the regression).
    trials: int | None = None
    p_adjusted: float = math.nan
    rerun_p: float = math.nan


@dataclass(frozen=True)
class CriticalScope:
    """What the critical test reads, an input of the analysis: ``categories``, the critical categories (the
    policy's ``critical``, and every category of a critical metric); ``metric``, whether the metric is critical
    as a whole (``[metrics.NAME] critical = true``), which adds the same test on every case."""

    categories: tuple[str, ...] = ()
    metric: bool = False


@dataclass(frozen=True)
class CriticalSection:
    """The critical categories' tests under the policy's ``critical_rule`` ("test" or "any") and level;
    ``overall`` is the same test on every case, set only for a critical metric (``[metrics.NAME] critical``),
    whose every category is then in ``tests``."""

    rule: CriticalRule
    alpha: float  # the family's level: the critical tests are members of the one error budget
    tests: tuple[CriticalTest, ...]
    overall: CriticalTest | None = None
    split: int = 1  # a critical metric's tests share the critical weight: ``weight`` is critical_weight / split
    weight: float = 1.0  # each test's weight in the budget, beside 1 for the overall test and each category


@dataclass(frozen=True)
class ErroredCase:
    """One case that errored on one side or both; the messages are the input's (empty on a side that did not
    error)."""

    case_id: str
    side: str  # "baseline", "candidate" or "both"
    baseline_error: str
    candidate_error: str


@dataclass(frozen=True)
class ErroredCases:
    """The errored cases of one comparison: out of the ``n_cases`` on both sides, ``excluded`` errored on
    either side: ``baseline_only`` + ``candidate_only`` + ``both``, three disjoint counts. They left the
    comparison (``compared`` remain), or, with ``counted_as_failures`` (``--missing fail``), stayed in it as
    failures (all ``n_cases`` compared). ``rate`` is the paired error-rate increase over all
    ``n_cases``, which the ``max_error_rate_increase`` guardrail reads. ``cases`` lists the first
    ``len(cases)`` of them (baseline and both-side errors first, then by case id); ``listed_cut`` more exist.
    """

    n_cases: int
    compared: int
    excluded: int
    baseline_only: int
    candidate_only: int
    both: int
    rate: ErrorRateIncrease
    cases: tuple[ErroredCase, ...]
    listed_cut: int
    # The error-rate test of the one error budget (issue 34): the exact one-sided McNemar test of the cases
    # only the candidate errored on against those only the baseline errored on, and its adjusted p.
    p_one_sided: float = 1.0
    p_adjusted: float = math.nan
    # --missing fail: the errored cases were compared as failures, not left out (analyze/errors.py).
    counted_as_failures: bool = False


CASE_VIEW_LISTED = 1_000  # cases listed per list of the case view; the counts are whole


@dataclass(frozen=True)
class CaseView:
    """One candidate's cases that fail on both releases (pass/fail only) and that errored on either
    (analyze/case_view.py): counted whole, listed up to ``MAX_LISTED`` (critical categories first).
    """

    both_fail: tuple[CaseChange, ...]
    both_fail_total: int
    errored: tuple[CaseChange, ...]
    errored_total: int
    error_column: str | None
    both_fail_defined: bool = True  # False for scores: a score has no "fail"
