"""The optional sections of a candidate's analysis: numbers and flags only (the sentences that read them are in
:mod:`releasegate.wording`, the JSON shapes in :mod:`releasegate.render.json_out`).

- :class:`ItemAxis`: "would other cases agree?" on the paired-mean path (paired t beside the sign flip);
- :class:`RunAxis`: "would a rerun agree?" (Welch t on per-run means) beside the case axis;
- :class:`ClusterAnalysis`: grouped cases, the clustered figures beside the naive ones;
- :class:`ErroredCases`: cases that errored (a third state, neither pass nor fail) and left the comparison.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from releasegate.kinds import CriticalRule, OutcomeKind
from releasegate.model.cases import CaseChange
from releasegate.stats.error_rates import ErrorRateIncrease


@dataclass(frozen=True)
class ItemAxis:
    """Per-case differences d = candidate - baseline (each case's mean over its runs).

    ``signflip_kind`` is "exact" (all 2^m sign assignments of the m changed cases), "monte_carlo"
    (``signflip_resamples`` seeded flips) or "normal" (the normal limit, above 2,000 changed cases).
    """

    n: int
    mean_diff: float
    sd_diff: float
    se: float
    t: float
    df: int
    p_value: float
    p_one_sided: float
    ci_low: float
    ci_high: float
    signflip_p_value: float
    signflip_p_one_sided: float
    signflip_kind: str
    signflip_resamples: int
    signflip_changed: int
    improved: int
    worsened: int
    unchanged: int
    outcome_kind: OutcomeKind
    runs: bool
    clustered: bool
    # How far a score must move to count as improved or worsened (0 for pass/fail: any change counts).
    min_change: float = 0.0


@dataclass(frozen=True)
class RunRate:
    """One run's overall mean (pass rate or score) of each release over the paired cases; NaN when that
    release has no such run."""

    run: str
    baseline: float
    candidate: float


@dataclass(frozen=True)
class MajorityMcNemar:
    """McNemar's test on each case's majority outcome over its runs (pass/fail outcomes only); a case passes
    when it passes in more than half of its runs."""

    fixed: int
    broke: int
    p_value: float
    p_one_sided: float
    durkalski_p_value: float  # the clustered version when clusters are given, else NaN
    durkalski_p_one_sided: float


@dataclass(frozen=True)
class RunAxis:
    """Both axes of one candidate against the baseline, and whether they agree.

    Decisive means two-sided p below alpha; ``disagree`` is set when exactly one axis is decisive (and the run
    axis is defined). ``baseline_run_min`` .. ``candidate_run_max`` bound the per-run means.
    """

    runs_baseline: int
    runs_candidate: int
    runs_per_case_min: int
    runs_per_case_max: int
    per_run: tuple[RunRate, ...]
    baseline_run_sd: float
    candidate_run_sd: float
    run_diff: float
    run_ci_low: float
    run_ci_high: float
    run_t: float
    run_df: float
    run_p_value: float
    run_defined: bool
    case_diff: float
    case_ci_low: float
    case_ci_high: float
    case_p_value: float
    case_method: str
    run_decisive: bool
    case_decisive: bool
    disagree: bool
    majority: MajorityMcNemar | None
    baseline_run_min: float
    baseline_run_max: float
    candidate_run_min: float
    candidate_run_max: float
    # pass/fail (each case's share of passing runs, a release's figure its pass rate over runs) or scores
    outcome_kind: OutcomeKind = OutcomeKind.CONTINUOUS


@dataclass(frozen=True)
class ClusterAnalysis:
    """The clustered and the naive figures of the overall comparison, side by side.

    ``verdict_test`` names the method of the p and interval the verdict reads (analyze.clustered_verdict:
    "sparse", "signflip" or "cr2"; "none" with one group); ``binary`` says the outcomes are pass/fail;
    ``verdict_p_one_sided`` and ``verdict_ni_low`` are the clustered figures the rules read, beside
    ``naive_p_one_sided`` and ``naive_ni_low``. ``few_cluster_categories`` lists (category, groups) of the
    categories with too few groups to show a regression after the correction.
    """

    cluster_column: str
    n_cases: int
    n_clusters: int
    smallest_cluster: int
    median_cluster: float
    largest_cluster: int
    estimate: float
    naive_method: str
    naive_ci_low: float
    naive_ci_high: float
    naive_p_value: float
    naive_p_one_sided: float
    naive_se: float
    bootstrap_ci_low: float
    bootstrap_ci_high: float
    bootstrap_ni_low: float
    bootstrap_ni_high: float
    n_resamples: int
    seed: int
    confidence: float
    cr2_se: float
    cr2_df: float
    cr2_t: float
    cr2_p_value: float
    cr2_p_one_sided: float
    cr2_ci_low: float
    cr2_ci_high: float
    cr1_se: float
    durkalski_chi2: float
    durkalski_p_value: float
    durkalski_p_one_sided: float
    signflip_p_value: float
    signflip_p_one_sided: float
    signflip_exact: bool
    smallest_p_two_sided: float
    smallest_p_one_sided: float
    design_effect: float
    effective_n: float
    width_ratio: float
    verdict_test: str
    few_cluster_categories: tuple[tuple[str, int], ...]
    naive_ni_low: float
    verdict_p_one_sided: float
    verdict_ni_low: float
    clustered_ci_low: float
    clustered_ci_high: float
    binary: bool = False
    verdict_p_value: float = math.nan


# The p-values of the grouped-cases section shown beside the verdict's for comparison: no rule reads them (the
# verdict reads ``verdict_p_value`` / ``verdict_p_one_sided``, the comparison's own figures); the JSON says so.
COMPARISON_ONLY_P = ("naive_p_value", "naive_p_one_sided", "cr2_p_value", "cr2_p_one_sided", "durkalski_p_value",
                     "durkalski_p_one_sided", "signflip_p_value", "signflip_p_one_sided")


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
    either side and left it (``compared`` remain): ``baseline_only`` + ``candidate_only`` + ``both``, three
    disjoint counts. ``rate`` is the paired error-rate increase over all
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
