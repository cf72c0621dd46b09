"""Rule 4, guardrail: a cost or latency ratio whose interval's upper bound exceeds the policy's limit, or that
cannot be measured; or a significant rise of the error rate above its limit (on by default).

Each guardrail limits one ratio of the candidate's cost section (candidate / baseline): its estimate and interval
(:meth:`releasegate.model.CostComparison.bounds`, which the JSON also records). A guardrail the data cannot
measure (no such column, every value invalid, totals that overflow, fewer than two valid pairs) fires: a gate
must not pass what it could not check.
"""

from __future__ import annotations

import math

from releasegate.model import Analysis, CandidateAnalysis, CostComparison, ErroredCases, Figure, RuleCheck
from releasegate.model.checks import Unmeasured
from releasegate.model.costs import GUARDRAIL_RATIOS, CostTable, ReleaseCosts
from releasegate.policy import Policy

NAME = "guardrail"
# The error-rate guardrail reads the error-rate test of the one error budget (analyze/budget.py), not a ratio.
ERROR_RATE = "max_error_rate_increase"


def _unmeasured(costs: CostComparison | None, name: str, limit: float, side: Unmeasured) -> Figure:
    """Why a guardrail's ratio has no usable figure (asked only for one that the bounds left out)."""
    r = getattr(costs, GUARDRAIL_RATIOS[name]) if costs is not None else None
    if r is None:
        return Figure("guardrail", name, limit=limit, fired=True, unmeasured=side)
    code: Unmeasured = "no_pairs" if r.n == 0 else "not_finite" if not math.isfinite(r.ratio) else "too_few"
    return Figure("guardrail", name, limit=limit, cases=r.n, excluded=r.excluded, fired=True, unmeasured=code)


def _side_without(table: CostTable | None, baseline: str, candidate: str, name: str) -> Unmeasured:
    """Which release has none of the figures a guardrail needs: both ("no_figures"), or one (a cost column or
    prices for one release only), so the sentence does not say the results have none when the baseline's show."""
    rows = {r.name: r for r in table.releases} if table is not None else {}
    if baseline not in rows or candidate not in rows:
        return "no_figures"

    def has(r: ReleaseCosts) -> bool:
        if name == "max_cost_ratio":
            return math.isfinite(r.cost_per_case)
        if name == "max_tokens_ratio":
            return math.isfinite(r.input_tokens_per_case) or math.isfinite(r.output_tokens_per_case)
        return r.latency is not None

    on_baseline, on_candidate = has(rows[baseline]), has(rows[candidate])
    if on_baseline != on_candidate:
        return "none_on_candidate" if on_baseline else "none_on_baseline"
    return "no_figures"


def _error_rate(errors: ErroredCases | None, limit: float, alpha: float) -> Figure:
    """Fires when the candidate errors significantly more often (the budget's exact one-sided test, adjusted
    p below alpha) and by more than the limit as observed; without an error column no cell errored (every row
    has an outcome), the same as an error column that is empty: an increase of 0 and no test (``p`` None); an
    error column with no case on both sides cannot be measured."""
    if errors is None or (errors.rate.n and errors.excluded == 0):
        return Figure("guardrail", ERROR_RATE, value=0.0, limit=limit, alpha=alpha,
                      cases=None if errors is None else errors.rate.n, worse=0, better=0)
    r = errors.rate
    if r.n == 0:
        return Figure("guardrail", ERROR_RATE, limit=limit, alpha=alpha, cases=0, fired=True,
                      unmeasured="no_shared_case")
    return Figure("guardrail", ERROR_RATE, value=r.increase, ci_low=r.low, ci_high=r.high, limit=limit,
                  alpha=alpha, p=errors.p_adjusted, p_unadjusted=errors.p_one_sided, cases=r.n,
                  worse=r.candidate_only, better=r.baseline_only, method="exact McNemar",
                  fired=errors.p_adjusted < alpha and r.increase > limit)


def check(cand: CandidateAnalysis, analysis: Analysis, policy: Policy) -> RuleCheck:
    if not policy.guardrails:
        return RuleCheck(NAME, False, (Figure("count", "guardrails", value=0),), applies=False)
    costs = cand.sections.costs
    bounds = costs.bounds() if costs is not None else {}
    figures = []
    for name, limit in sorted(policy.guardrails.items()):
        if name == ERROR_RATE:
            figures.append(_error_rate(cand.sections.errors, limit, policy.alpha))
        elif name not in bounds:
            side = _side_without(analysis.sections.costs, analysis.baseline, cand.name, name)
            figures.append(_unmeasured(costs, name, limit, side))
        else:
            estimate, low, high = bounds[name]
            figures.append(Figure("guardrail", name, value=estimate, ci_low=low, ci_high=high, limit=limit,
                                  cases=getattr(costs, GUARDRAIL_RATIOS[name]).n, fired=high > limit))
    return RuleCheck(NAME, any(f.fired for f in figures), tuple(figures))
