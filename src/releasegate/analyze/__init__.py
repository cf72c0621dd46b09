"""Stage 3: the fixed analysis plan (SPEC section 4), per candidate against the baseline.

One way through: :func:`analyze` pairs each candidate with the baseline and runs the plan
(:mod:`.candidate`: comparisons, clusters, the family, power, the item and run axes, the changed cases), then
summarises every release and adds the cost section (:mod:`.costs`) when the data has costs. Every section is
numbers and flags; the sentences that explain them are in :mod:`releasegate.wording`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from releasegate.analyze.candidate import analyze_candidate
from releasegate.analyze.churn import churn_section, measure_churn
from releasegate.analyze.comparisons import rate_of
from releasegate.analyze.costs import cost_sections
from releasegate.analyze.errors import split_errored
from releasegate.analyze.min_change import resolved
from releasegate.analyze.pairing import case_tables, cases_of
from releasegate.analyze.settle import settle_of
from releasegate.errors import InputError
from releasegate.kinds import OutcomeKind
from releasegate.model import (
    Analysis,
    CandidateAnalysis,
    CostComparison,
    CostTable,
    CriticalScope,
    NotJudged,
    Parameters,
    Rate,
    ReleaseSections,
    ReleaseSummary,
)
from releasegate.model.budget import PreviousLook
from releasegate.policy import Policy
from releasegate.stats.proportions import wilson_interval
from releasegate.threads import beside
from releasegate.validate import ValidatedResults

if TYPE_CHECKING:
    from concurrent.futures import Future

    from releasegate.validate.gold import ValidatedGold


def parameters_of(policy: Policy, critical: tuple[str, ...] | None = None) -> Parameters:
    """The plan's parameters as the note records them; ``critical`` the critical categories tested (without it,
    the policy's)."""
    return Parameters(
        alpha=policy.alpha,
        margin=policy.margin,
        correction=policy.correction,
        mcnemar=policy.mcnemar,
        confidence=policy.confidence,
        critical=tuple(policy.critical) if critical is None else critical,
        power=policy.power,
        seed=policy.seed,
        n_resamples=policy.n_resamples,
    )


def release_summary(data: ValidatedResults, release: str, policy: Policy,
                    tables: Mapping[str, pd.DataFrame] | None = None) -> ReleaseSummary:
    """One release on its own: its cases and pass rate (Wilson), mean (t) or clustered mean (CR2)."""
    cases = cases_of(data, release, tables)
    n = int(cases.shape[0])
    binary = data.outcome_kind == OutcomeKind.BINARY
    if data.has_clusters:
        from releasegate.analyze.clusters import clustered_rate  # grouped cases only: CR2 stays unimported otherwise

        rate = clustered_rate(cases["outcome"].to_numpy(float), cases["cluster"], policy.confidence, binary)
    elif binary and not data.has_runs:
        w = wilson_interval(float(cases["outcome"].sum()), n, policy.confidence)
        rate = Rate(n, w.estimate, w.low, w.high)
    else:  # scores, or pass rates over several runs (then within [0, 1])
        rate = rate_of(cases["outcome"].to_numpy(float), policy.confidence, binary)
    return ReleaseSummary(release, n, rate, release == data.baseline)


def _when_asked(section: Future[tuple[CostTable, dict[str, CostComparison]]] | None,
                candidate: str) -> Callable[[], CostComparison | None] | None:
    """The candidate's cost section, waited for when analyze_candidate asks for it (None: no cost section)."""
    if section is None:
        return None
    return lambda: section.result()[1].get(candidate)


def _runs_of(cand: CandidateAnalysis) -> int:
    axis = cand.sections.run_axis
    return 1 if axis is None else int(axis.runs_per_case_min)


def analyze(data: ValidatedResults, policy: Policy, *, critical: CriticalScope | None = None,
            gold: ValidatedGold | None = None, previous: Mapping[str, PreviousLook] | None = None) -> Analysis:
    """The fixed plan for every candidate, the release summaries, and the cost section when there are costs;
    ``critical`` the critical categories and whether the metric is critical as a whole (then the critical test
    runs on every case too; validation finds them, validate/metric_tables.py), without it the policy's critical
    categories; ``gold`` (human labels
    of the judged outcomes) adds each candidate's judge section (analyze/judge.py) and, under judge_correction =
    "ppi", the corrected figures in its overall test's place (analyze/judge_gated.py); ``previous`` the earlier
    looks at the same releases, by candidate (a later look reads its budget at what they left)."""
    data = split_errored(data, policy)
    if previous and not set(previous) & set(data.candidates):
        # A note about other candidates would count for nothing, unseen: this would be read as a first look.
        raise InputError(f"--previous {next(iter(previous.values())).source}: that note judged "
                         f"{', '.join(sorted(previous))}, none of the candidates compared here "
                         f"({', '.join(data.candidates)}): it is not an earlier look at them")
    scope = critical if critical is not None else CriticalScope(tuple(policy.critical))
    # Built once only with runs, where each is a group-by over every row; a single run's table is a cheap
    # re-indexing, and holding every release's at once cost 230 MB more at 1,000,000 cases.
    tables = case_tables(data) if data.has_runs else None
    # The cost section is worked out in a second thread beside the first candidate's plan, and waited for
    # before that candidate's case listings are built: numpy lets go of the interpreter in the section's
    # selections and sums, so on two cores it hides behind the plan (10^7 cases: the stage from 3.6 to 2.8 s),
    # while the listings, the plan's largest working set, are never resident beside the section's (waited for
    # after them, the peak rose from 1,800 to 2,300 MiB).
    costs = beside(cost_sections, data, policy) if data.cost_columns or policy.prices else None
    try:
        measured = measure_churn(data, policy)
        rerun = None if measured is None else measured.rerun_outcome
        # One score tolerance for every candidate (analyze/min_change.py): what the case lists count.
        plan_policy = resolved(policy, data.table["outcome"].to_numpy(np.float64),
                               data.outcome_kind == OutcomeKind.CONTINUOUS)
        candidates = [analyze_candidate(data, c, plan_policy, tables, _when_asked(costs, c), rerun,
                                        critical=scope, gold=gold, previous=(previous or {}).get(c))
                      for c in data.candidates]
    except BaseException:
        if costs is not None:
            costs.result()  # a cost error is said before any error of the plan, as when it ran first
        raise
    cost_table = costs.result()[0] if costs is not None else None
    binary = data.outcome_kind == OutcomeKind.BINARY
    one_run = binary and not data.has_runs
    candidates = [replace(c, sections=replace(c.sections, churn=churn_section(measured, c, policy, one_run),
                                              settle=settle_of(c, measured, policy, binary=binary, runs=_runs_of(c))))
                  for c in candidates]
    # The rerun is the baseline again: its figures are the churn section's, not a release of the summary.
    releases = tuple(release_summary(data, r, policy, tables) for r in data.releases if r != policy.baseline_rerun)
    return Analysis(
        baseline=data.baseline,
        outcome_kind=data.outcome_kind,
        n_cases=max(r.n_cases for r in releases),
        releases=releases,
        candidates=tuple(candidates),
        parameters=parameters_of(policy, scope.categories),
        has_categories=data.has_categories,
        has_clusters=data.has_clusters,
        has_runs=data.has_runs,
        notes=data.notes,
        sections=ReleaseSections(costs=cost_table),
        not_judged=tuple(NotJudged(release, reason) for release, reason in data.not_judged),
        excluded=data.excluded,
    )
