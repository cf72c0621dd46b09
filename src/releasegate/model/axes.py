"""The optional axes of a candidate's analysis, which only some inputs have: the item axis (scores), the run axis
(several runs per case) and grouped cases (a cluster column). Numbers and flags only (the sentences that read
them are in :mod:`releasegate.wording`, the JSON shapes in :mod:`releasegate.render.json_out`).

- :class:`ItemAxis`: "would other cases agree?" on the paired-mean path (paired t beside the sign flip);
- :class:`RunAxis`: "would a rerun agree?" (Welch t on per-run means) beside the case axis;
- :class:`ClusterAnalysis`: grouped cases, the clustered figures beside the naive ones.

A module of its own, imported where such an input is found: a frozen dataclass costs about 1 ms to define, and
a pass/fail suite of one run without groups never makes these (bench/RESULTS.md, start-up).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from releasegate.kinds import OutcomeKind


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
