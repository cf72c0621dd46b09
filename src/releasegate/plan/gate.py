"""The gate itself as a function of one simulated release pair: the library's array-level plan
(:func:`releasegate.analyze.candidate.plan_arrays`) and its rules (:func:`releasegate.decide.decide_candidate`),
so that the rates ``releasegate plan`` prints are the rates of the verdict the report would give.
"""

from __future__ import annotations

from collections.abc import Collection

import numpy as np

from releasegate.analyze import parameters_of
from releasegate.analyze.candidate import plan_arrays
from releasegate.decide import decide_candidate
from releasegate.kinds import OutcomeKind
from releasegate.model import Analysis, CandidateAnalysis, CandidateSections, CriticalScope, Exclusions
from releasegate.plan.evaluate import Gate
from releasegate.plan.simulate import ReleaseSample
from releasegate.policy import Policy


def category_names(sample: ReleaseSample) -> list[str]:
    """Names of the sample's category codes: "critical-0", ... for the critical ones, "category-k" else."""
    codes = int(sample.category.max()) + 1 if sample.category.size else 0
    return [f"critical-{k}" if k in sample.critical else f"category-{k}" for k in range(codes)]


def plan_gate(policy: Policy, rules: Collection[str] | None = None) -> Gate:
    """A gate running the library's plan and rules under ``policy`` (its critical categories are the
    sample's); ``rules`` keeps only those rule names (the rules "each alone"), None keeps every rule."""

    def gate(sample: ReleaseSample) -> tuple[str, ...]:
        labels = category_names(sample)
        critical = CriticalScope(tuple(labels[k] for k in sample.critical))
        runs = sample.base_runs.shape[0] > 1
        result = plan_arrays(sample.base.astype(np.float64), sample.cand.astype(np.float64), policy,
                             mcnemar=not runs, rates=True, runs=runs, verdict_only=True,
                             category_codes=sample.category if len(labels) > 1 or sample.critical else None,
                             category_labels=labels, cluster_codes=sample.cluster,
                             rerun=None if sample.rerun_runs is None or runs else
                             sample.rerun_runs[0].astype(np.float64), critical=critical)
        cand = CandidateAnalysis("candidate", result.overall, result.categories, (), (), Exclusions(),
                                 result.power, CandidateSections(result.item_axis, None, result.clusters,
                                                                 critical=result.critical))
        analysis = Analysis("baseline", OutcomeKind.BINARY, int(sample.base.size), (), (cand,),
                            parameters_of(policy, critical.categories), len(labels) > 1 or bool(sample.critical), sample.cluster is not None, runs)
        fired = tuple(c.rule for c in decide_candidate(cand, analysis, policy).checks if c.fired)
        return fired if rules is None else tuple(r for r in fired if r in rules)

    return gate
