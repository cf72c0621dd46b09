"""Rule 4, guardrail: a cost or latency ratio, or the paired error-rate increase, whose interval's upper bound
exceeds the policy's limit, or that cannot be measured.

Each guardrail limits one ratio of the candidate's cost section (candidate / baseline): its estimate and interval
(:meth:`releasegate.model.CostComparison.bounds`, which the JSON also records). A guardrail the data cannot
measure (no such column, every value invalid, totals that overflow, fewer than two valid pairs) fires: a gate
must not pass what it could not check.
"""

from __future__ import annotations

import math

from releasegate.model import Analysis, CandidateAnalysis, CostComparison, ErroredCases, Figure, RuleCheck
from releasegate.model.costs import GUARDRAIL_RATIOS
from releasegate.policy import Policy

NAME = "guardrail"
# The error-rate guardrail limits the paired difference of error rates (the errored-cases section), not a ratio.
ERROR_RATE = "max_error_rate_increase"


def _unmeasured(costs: CostComparison | None, name: str, limit: float) -> Figure:
    """Why a guardrail's ratio has no usable figure (asked only for one that the bounds left out)."""
    r = getattr(costs, GUARDRAIL_RATIOS[name]) if costs is not None else None
    if r is None:
        return Figure("guardrail", name, limit=limit, fired=True, unmeasured="no_figures")
    code = "no_pairs" if r.n == 0 else "not_finite" if not math.isfinite(r.ratio) else "too_few"
    return Figure("guardrail", name, limit=limit, cases=r.n, excluded=r.excluded, fired=True, unmeasured=code)


def _error_rate(errors: ErroredCases | None, limit: float) -> Figure:
    """The error-rate increase is exceeded when its interval's upper bound is above the limit; without an error
    column, or with no case on both sides, it cannot be measured."""
    if errors is None:
        return Figure("guardrail", ERROR_RATE, limit=limit, fired=True, unmeasured="no_error_column")
    r = errors.rate
    if r.n == 0:
        return Figure("guardrail", ERROR_RATE, limit=limit, cases=0, fired=True, unmeasured="no_shared_case")
    return Figure("guardrail", ERROR_RATE, value=r.increase, ci_low=r.ci_low, ci_high=r.ci_high, limit=limit,
                  cases=r.n, fired=r.ci_high > limit)


def check(cand: CandidateAnalysis, analysis: Analysis, policy: Policy) -> RuleCheck:
    if not policy.guardrails:
        return RuleCheck(NAME, False, (Figure("count", "guardrails", value=0),), applies=False)
    costs = cand.sections.costs
    bounds = costs.bounds() if costs is not None else {}
    figures = []
    for name, limit in sorted(policy.guardrails.items()):
        if name == ERROR_RATE:
            figures.append(_error_rate(cand.sections.errors, limit))
        elif name not in bounds:
            figures.append(_unmeasured(costs, name, limit))
        else:
            estimate, low, high = bounds[name]
            figures.append(Figure("guardrail", name, value=estimate, ci_low=low, ci_high=high, limit=limit,
                                  cases=getattr(costs, GUARDRAIL_RATIOS[name]).n, fired=high > limit))
    return RuleCheck(NAME, any(f.fired for f in figures), tuple(figures))
