"""Stage 4: the policy's rules (SPEC section 5) turn each candidate's analysis into SHIP or DON'T SHIP.

Rules, in order; every rule that fires is a reason with its figures, and the first is the headline:
1. critical_broken, 2. overall_regression, 3. category_regression, 4. guardrail, 5. not_non_inferior.
Warnings never change the verdict.
"""

from __future__ import annotations

from collections.abc import Callable

from releasegate import fmt
from releasegate.model import Analysis, CandidateAnalysis, Comparison, Reason, RuleCheck, Verdict
from releasegate.policy import Policy

RULES = ("critical_broken", "overall_regression", "category_regression", "guardrail", "not_non_inferior")
TINY_SAMPLE = 30


def _diff(c: Comparison, binary: bool) -> str:
    if binary:
        return f"{fmt.points(c.diff)} points {fmt.interval_points(c.ci_low, c.ci_high)}"
    return f"{fmt.signed(c.diff)} {fmt.interval_signed(c.ci_low, c.ci_high)}"


def _unit(binary: bool) -> Callable[[float], str]:
    return (lambda x: f"{fmt.points(x)} points") if binary else fmt.signed


def _critical_broken(cand: CandidateAnalysis, policy: Policy, binary: bool = True) -> RuleCheck:
    hits = [c for c in cand.categories if c.critical and c.broke > 0]
    if not policy.critical:
        return RuleCheck("critical_broken", False, "no critical categories set")
    if not hits:
        word = "broken" if binary else "worsened"
        return RuleCheck("critical_broken", False, f"no {word} case in {', '.join(policy.critical)}")
    parts = []
    for c in hits:
        fixed = "none" if c.fixed == 0 else str(c.fixed)
        if binary:
            parts.append(f"{c.broke} of {c.both_pass + c.broke} passing {c.label} cases (fixed {fixed})")
        else:  # scores or several runs: a case's mean went down (SPEC 4.3, improved/worsened)
            parts.append(f"{c.broke} of {c.n} {c.label} cases (improved {fixed})")
    listed = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    kind = {1: "a critical category", 2: "both critical categories"}.get(len(hits), "all critical categories")
    return RuleCheck("critical_broken", True, f"it {'broke' if binary else 'worsened'} {listed}, {kind}")


def _test_name(c: Comparison) -> str:
    """The test in a headline: "McNemar" for either McNemar variant, else the method as recorded."""
    return "McNemar" if c.method.startswith("McNemar") else c.method


def _overall_regression(cand: CandidateAnalysis, policy: Policy, binary: bool) -> RuleCheck:
    o = cand.overall
    fired = o.p_adjusted < policy.alpha
    detail = (f"overall {_diff(o, binary)}, one-sided {o.method} {fmt.p_is(o.p_one_sided)} "
              f"(adjusted {fmt.pvalue(o.p_adjusted)}, {policy.correction}); alpha {policy.alpha:g}")
    if fired:
        detail = f"significant overall regression: {detail}"
    return RuleCheck("overall_regression", fired, detail)


def _category_regression(cand: CandidateAnalysis, policy: Policy, binary: bool) -> RuleCheck:
    hits = [c for c in cand.categories if c.p_adjusted < policy.alpha]
    if not cand.categories:
        return RuleCheck("category_regression", False, "no categories given")
    if not hits:
        worst = min(cand.categories, key=lambda c: c.p_adjusted)
        return RuleCheck("category_regression", False,
                         f"no category regresses significantly (smallest adjusted {fmt.p_is(worst.p_adjusted)}, "
                         f"{worst.label})")
    parts = [f"{c.label} {_diff(c, binary)}, adjusted {fmt.p_is(c.p_adjusted)}" for c in hits]
    return RuleCheck("category_regression", True, "significant regression in " + "; ".join(parts))


def _guardrails(cand: CandidateAnalysis, policy: Policy) -> tuple[RuleCheck, list[str]]:
    """Rule 4: a guardrail fires when the upper bound of its ratio's interval exceeds the limit."""
    if not policy.guardrails:
        return RuleCheck("guardrail", False, "no guardrails set"), []
    costs = cand.extras.get("costs")
    bounds = getattr(costs, "guardrail_bounds", {}) if costs is not None else {}
    fired, passed, warnings = [], [], []
    for name, limit in sorted(policy.guardrails.items()):
        if name not in bounds:
            warnings.append(f"guardrail {name} is set but the data has no figure for it")
            continue
        estimate, low, high = bounds[name]
        where = "above" if high > limit else "within"
        text = (f"{name.removeprefix('max_')} {fmt.ratio(estimate)} [{fmt.ratio(low)}, {fmt.ratio(high)}]: "
                f"the upper bound {fmt.ratio(high)} is {where} the limit {limit:g}")
        (fired if high > limit else passed).append(text)
    if fired:
        return RuleCheck("guardrail", True, "guardrail exceeded: " + "; ".join(fired)), warnings
    return RuleCheck("guardrail", False, "; ".join(passed) or "no guardrail could be checked"), warnings


def _non_inferior(cand: CandidateAnalysis, policy: Policy, binary: bool) -> RuleCheck:
    o = cand.overall
    level = round((1 - 2 * policy.alpha) * 100)
    unit = _unit(binary)
    if policy.margin == 0:
        return RuleCheck("not_non_inferior", False, "non-inferiority check off (margin = 0)")
    bound, margin = _told_apart(o.ni_low, -policy.margin, binary)
    shown = f"the {level}% interval's lower bound is {bound}, margin {margin}"
    if o.ni_low < -policy.margin:
        return RuleCheck("not_non_inferior", True, f"the data cannot show it is no worse: {shown}")
    return RuleCheck("not_non_inferior", False, f"non-inferior: {shown}")


def _told_apart(value: float, margin: float, binary: bool) -> tuple[str, str]:
    """The bound with as many more digits as it takes to show how far it is from the margin: "-5.05 points,
    margin -5.0 points", not "-5.0 points, margin -5.0 points" beside "fired". The margin keeps its digits."""
    scale = 100 if binary else 1
    base = 1 if binary else 3
    gap = abs(value - margin) * scale
    digits = base
    while digits < base + 3 and 0 < gap < 10 ** -digits:
        digits += 1
    if binary:
        return f"{fmt.points(value, digits)} points", f"{fmt.points(margin)} points"
    return fmt.signed(value, digits), fmt.signed(margin)


def _warnings(cand: CandidateAnalysis, analysis: Analysis, policy: Policy) -> list[str]:
    out = []
    for c in cand.categories:
        if c.broke > 0 and c.p_one_sided < policy.alpha <= c.p_adjusted:
            out.append(f"{c.label}: {c.broke} broken, one-sided {fmt.p_is(c.p_one_sided)} before correction "
                       f"({fmt.pvalue(c.p_adjusted)} after); worth a look")
    powerless = [c for c in cand.categories if c.powerless]
    if powerless:
        needed = powerless[0].discordant_needed
        names = ", ".join(f"{c.label} {c.fixed + c.broke}" for c in powerless)
        out.append(f"{len(powerless)} categor{'y is' if len(powerless) == 1 else 'ies are'} too small to show a regression "
                   f"on their own: each needs at least {needed} changed cases (has: {names})")
    if cand.overall.degenerate:
        out.append("no case changed outcome: every p-value is 1")
    if cand.exclusions.count:
        out.append(f"{cand.exclusions.count} case(s) excluded from the pairing (present on one side only)")
    if cand.overall.n < TINY_SAMPLE:
        out.append(f"only {cand.overall.n} paired cases: every figure is very uncertain")
    for extra in cand.extras.values():
        out.extend(getattr(extra, "warnings", ()))
    return out


def decide_candidate(cand: CandidateAnalysis, analysis: Analysis, policy: Policy) -> Verdict:
    """Apply the five rules to one candidate."""
    binary = analysis.outcome_kind == "binary" and not analysis.has_runs
    guard, guard_warnings = _guardrails(cand, policy)
    checks = (
        _critical_broken(cand, policy, binary),
        _overall_regression(cand, policy, binary),
        _category_regression(cand, policy, binary),
        guard,
        _non_inferior(cand, policy, binary),
    )
    reasons = tuple(Reason(c.rule, c.detail) for c in checks if c.fired)
    ship = not reasons
    o = cand.overall
    p_word = "not significant" if o.p_value >= policy.alpha else "significant"
    overall_text = f"overall {_diff(o, binary)} ({_test_name(o)} {fmt.p_is(o.p_value)}, {p_word})"
    if o.p_value >= policy.alpha and (o.ci_low > 0 or o.ci_high < 0) and o.method.startswith("McNemar"):
        # Newcombe's interval (score-based) and the exact McNemar test (on the changed cases alone) are
        # different methods; with few changed cases the exact test is the more cautious, and the gate reads it.
        overall_text += (" (the interval excludes zero but the exact test, which the rules read, does not reach "
                         "significance: with few changed cases it is the more cautious of the two)")
    if ship:
        ruled_out = ("any loss" if o.ni_low >= 0
                     else f"a loss larger than {_unit(binary)(o.ni_low).lstrip('+-')}")
        because = f"{overall_text}; no rule fired, and the data rule out {ruled_out}."
    elif reasons[0].rule == "overall_regression":
        because = f"{reasons[0].message}."
    else:
        because = f"{reasons[0].message}; {overall_text}."
    costs = cand.extras.get("costs")
    if getattr(costs, "summary", ""):
        # What the release saves (or costs) beside its quality, so the trade-off is read in one line.
        because = f"{because[:-1]}; {costs.summary}."
    label = "SHIP" if ship else "DON'T SHIP"
    headline = f"{label} {cand.name}: {because}"
    return Verdict(
        candidate=cand.name,
        ship=ship,
        headline=headline,
        because=because,
        reasons=reasons,
        warnings=tuple(guard_warnings + _warnings(cand, analysis, policy)),
        checks=checks,
        smallest_margin_ruled_out=o.ni_low,
    )


def decide(analysis: Analysis, policy: Policy) -> tuple[Verdict, ...]:
    """A verdict per candidate, in the analysis' order."""
    return tuple(decide_candidate(c, analysis, policy) for c in analysis.candidates)
