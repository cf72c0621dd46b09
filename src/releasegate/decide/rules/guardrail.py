"""Rule 4, guardrail: a cost or latency ratio whose interval's upper bound exceeds the policy's limit, or that
cannot be measured; or a significant rise of the error rate above its limit (on by default).

Each guardrail limits one ratio of the candidate's cost section (candidate / baseline); :func:`bounds` gives
(estimate, low, high) of every ratio that has a defined interval, which the JSON also records. A guardrail the
data cannot measure (no such column, every value invalid, totals that overflow, fewer than two valid pairs)
fires: a gate must not pass what it could not check.
"""

from __future__ import annotations

import math

from releasegate.model import Analysis, CandidateAnalysis, CostComparison, ErroredCases, RuleCheck
from releasegate.policy import Policy
from releasegate.wording import errors as error_words
from releasegate.wording import verdict as words

NAME = "guardrail"
# guardrail -> the CostComparison ratio it limits, in the JSON's order
RATIOS = (("max_latency_mean_ratio", "latency_mean_ratio"), ("max_latency_p95_ratio", "latency_p95_ratio"),
          ("max_tokens_ratio", "tokens_ratio"), ("max_cost_ratio", "cost_ratio"))


def bounds(costs: CostComparison | None) -> dict[str, tuple[float, float, float]]:
    """(estimate, low, high) of each guardrail's ratio; an undefined interval (fewer than two pairs) is no
    figure, so it is left out (the rule then cannot pass on it)."""
    out = {}
    for name, attribute in RATIOS if costs is not None else ():
        r = getattr(costs, attribute)
        if r is not None and math.isfinite(r.ratio) and not math.isnan(r.ci_high):
            out[name] = (r.ratio, r.ci_low, r.ci_high)
    return out


# What each guardrail's ratio is made of, for the message when it cannot be measured.
MEASURES = {"max_latency_mean_ratio": "latency", "max_latency_p95_ratio": "latency", "max_tokens_ratio": "tokens",
            "max_cost_ratio": "cost"}


def unmeasured_reason(costs: CostComparison | None, name: str) -> str:
    """Why a guardrail's ratio has no usable figure (only asked for a guardrail that :func:`bounds` left out)."""
    what = MEASURES[name]
    r = getattr(costs, dict(RATIOS)[name]) if costs is not None else None
    if r is None:
        return f"the results have no {what} figures"
    if r.n == 0:
        return f"no paired case has a valid {what} on both sides ({r.excluded} excluded)"
    if not math.isfinite(r.ratio):
        return f"the {what} ratio is not a finite number (a zero or overflowing total)"
    return f"fewer than two paired cases have a valid {what} ({r.n} used, {r.excluded} excluded)"


# The error-rate guardrail reads the error-rate test of the one error budget (analyze/budget.py), not a ratio.
ERROR_RATE = "max_error_rate_increase"


def _error_rate(errors: ErroredCases | None, limit: float, alpha: float, exceeded: list, unmeasured: list,
                passed: list) -> None:
    """Fires when the candidate errors significantly more often (the budget's exact one-sided test, adjusted
    p below alpha) and by more than the limit as observed; without an error column no cell errored (every row
    has an outcome), the same as an error column that is empty; an error column with no case on both sides
    cannot be measured."""
    if errors is None or (errors.rate.n and errors.baseline_errored == errors.candidate_errored == 0):
        passed.append(error_words.no_errors())
    elif errors.rate.n == 0:
        unmeasured.append(words.guardrail_unmeasured(ERROR_RATE, "no case is present on both sides"))
    else:
        r = errors.rate
        fired = errors.p_adjusted < alpha and r.increase > limit
        (exceeded if fired else passed).append(
            error_words.error_rate_test(r.increase, r.ci_low, r.ci_high, errors.p_one_sided, errors.p_adjusted, limit))


def check(cand: CandidateAnalysis, analysis: Analysis, policy: Policy) -> RuleCheck:
    if not policy.guardrails:
        return RuleCheck(NAME, False, words.no_guardrails())
    costs = cand.sections.costs
    figures = bounds(costs)
    exceeded, unmeasured, passed = [], [], []
    for name, limit in sorted(policy.guardrails.items()):
        if name == ERROR_RATE:
            _error_rate(cand.sections.errors, limit, policy.alpha, exceeded, unmeasured, passed)
            continue
        if name not in figures:
            unmeasured.append(words.guardrail_unmeasured(name, unmeasured_reason(costs, name)))
            continue
        estimate, low, high = figures[name]
        (exceeded if high > limit else passed).append(words.guardrail_figure(name, estimate, low, high, limit))
    return RuleCheck(NAME, bool(exceeded or unmeasured), words.guardrails(exceeded, unmeasured, passed))
