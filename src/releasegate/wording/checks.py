"""Each rule's sentence, written from the figures it compared (:class:`releasegate.model.RuleCheck`): what the
rules table, the reasons and the JSON's ``checks[].detail`` say. One function per rule, named in the rule's row
of :data:`releasegate.decide.rules.RULES`; formatting goes through releasegate.fmt.
"""

from __future__ import annotations

from collections.abc import Sequence

from releasegate import fmt
from releasegate.model import Figure, Parameters, RuleCheck
from releasegate.wording import judge as judge_words
from releasegate.wording.errors import error_rate_test, no_errors
from releasegate.wording.sections import beside, ni_level


def diff(f: Figure, binary: bool) -> str:
    """A figure's difference and interval: "+1.5 points [-0.7, +3.8]" or "+0.057 [+0.010, +0.104]"."""
    if binary:
        return f"{fmt.points(f.value)} points {fmt.interval_points(f.ci_low, f.ci_high)}"
    return f"{fmt.signed(f.value)} {fmt.interval_signed(f.ci_low, f.ci_high)}"


def _and(parts: Sequence[str]) -> str:
    return parts[0] if len(parts) == 1 else "; ".join(parts[:-1]) + " and " + parts[-1]


# --------------------------------------------------------------------------------------------------------
# critical_broken


def budget_test(method: str, p: float | None, adjusted: float | None, weight: float, alpha: float) -> str:
    """"one-sided exact McNemar p = 0.016 (adjusted 0.016 in the error budget, weight 10; alpha 0.05)": a
    critical category's own test, a member of the one error budget (the warnings say it too)."""
    return (f"one-sided {method} {fmt.p_is_beside(p, alpha)} (adjusted {fmt.pvalue_beside(adjusted, alpha)} in the "
            "error budget, "
            f"weight {weight:.3g}; alpha {alpha:g})")


def critical_test(f: Figure) -> str:
    return budget_test(f.method, f.p_unadjusted, f.p, f.weight, f.alpha)


def critical(check: RuleCheck, parameters: Parameters, binary: bool) -> str:
    if not check.applies:
        return "no critical categories set"
    if check.figures[0].scope == "overall":
        return _critical_metric(check, binary)
    tests = check.figures
    worse, better = ("broken", "fixed") if binary else ("worsened", "improved")
    if not check.fired:
        hit = [t for t in tests if t.worse]
        if check.critical_rule == "any" or not hit:
            return f"no {worse} case in {', '.join(t.subject for t in tests)}"
        return "; ".join(f"{t.subject}: {t.worse} {worse}, {t.better} {better}, {critical_test(t)}: not blocking"
                         for t in hit)
    blocking = [t for t in tests if t.fired]
    parts = []
    for t in blocking:
        if not t.cases:
            parts.append(f"{t.subject} has no case compared, so it cannot be checked")
            continue
        fixed = "none" if t.better == 0 else str(t.better)
        if binary:
            text = f"{t.worse} of {t.passing} passing {t.subject} cases (fixed {fixed})"
        else:  # scores or several runs: a case's outcome went down (SPEC 4.3, improved/worsened)
            text = f"{t.worse} of {t.cases} {t.subject} cases (improved {fixed})"
        if check.critical_rule == "test":
            text += f", {critical_test(t)}"
        parts.append(text)
    kind = {1: "a critical category", 2: "both critical categories"}.get(len(blocking), "all critical categories")
    if 1 < len(blocking) < len(tests):
        kind = "critical categories"
    if all(not t.cases for t in blocking):
        return f"{_and(parts)} ({kind})"
    return f"it {'broke' if binary else 'worsened'} {_and(parts)}, {kind}"


def level(alpha: float, weight: float, split: int) -> str:
    """"the error budget at alpha 0.05 (weight 2 each: critical_weight 10 shared by 5 tests)": a critical
    metric's tests share the critical weight (``weight`` is each test's)."""
    if split <= 1:
        return f"the error budget at alpha {alpha:g} (weight {weight:.3g})"
    return (f"the error budget at alpha {alpha:g} (weight {weight:.3g} each: critical_weight {weight * split:g} "
            f"shared by {split} tests)")


def _critical_metric(check: RuleCheck, binary: bool) -> str:
    """A critical metric (``[metrics.NAME] critical = true``): the critical test on every case (the first
    figure, "overall") and in every category, members of the error budget sharing critical_weight among them
    (the test rule)."""
    tests = check.figures
    split = len(tests) if check.critical_rule == "test" else 1
    shared = level(tests[0].alpha or 0.0, tests[0].weight or 0.0, split)
    if not check.fired:
        categories = len(tests) - 1
        scope = "overall" + (f" and in {categories} categor{'y' if categories == 1 else 'ies'}" if categories else "")
        if check.critical_rule == "any":
            return f"a critical metric: zero tolerance (critical_rule = any) {scope} does not block"
        smallest = min(t.p_unadjusted for t in tests if t.p_unadjusted is not None)
        return f"a critical metric: its critical test at {shared} {scope} does not block, smallest one-sided {fmt.p_is(smallest)}"
    parts = []
    for i, t in enumerate(t for t in tests if t.fired):
        if not t.cases:
            parts.append(f"{t.subject} has no compared case, so it cannot be checked")
            continue
        where = "cases overall" if t.scope == "overall" else f"{t.subject} cases"
        better = "none" if t.better == 0 else str(t.better)
        how = ("zero tolerance, critical_rule = any" if check.critical_rule == "any"
               else f"one-sided {t.method} {fmt.p_is(t.p_unadjusted)}, adjusted {fmt.pvalue(t.p)} in {shared}")
        if binary:
            parts.append(f"{t.worse} of {t.passing} passing {where} (fixed {better}; {how})")
        else:
            parts.append(f"{t.worse} of {t.cases} {where} (improved {better}; {how})")
    return f"a critical metric: it {'broke' if binary else 'worsened'} {_and(parts)}"


# --------------------------------------------------------------------------------------------------------
# overall_regression, category_regression


def overall(check: RuleCheck, parameters: Parameters, binary: bool) -> str:
    o = check.figures[0]
    # Each p told apart from the alpha beside it: "0.050; alpha 0.05" read the same fired and not.
    detail = (f"overall {diff(o, binary)}, one-sided {o.method} {fmt.p_is_beside(o.p_unadjusted, o.alpha)} "
              f"(adjusted {fmt.pvalue_beside(o.p, o.alpha)}, {parameters.correction}); alpha {o.alpha:g}")
    return f"significant overall regression: {detail}" if check.fired else detail


def category(check: RuleCheck, parameters: Parameters, binary: bool) -> str:
    if not check.applies:
        return "no categories given"
    if not check.fired:
        worst = check.figures[0]
        return (f"no category regresses significantly (smallest adjusted {fmt.p_is_beside(worst.p, worst.alpha)}, "
                f"{worst.subject})")
    return "significant regression in " + "; ".join(regression_named(f, binary) for f in check.figures)


def regression_named(f: Figure, binary: bool) -> str:
    """A category the rule names, with the test it read and the bound of the interval that inverts a test: one
    method behind the claim, or both named where the bound does not exclude no change or the two-sided interval
    beside it (another method, or the same at a stricter level) includes zero."""
    text = f"{f.subject} {diff(f, binary)}, adjusted {fmt.p_is_beside(f.p, f.alpha)} ({f.method})"
    if f.bound is None or f.bound != f.bound:
        return text
    size = (lambda x: f"{fmt.points(x)} points") if binary else fmt.signed
    level = f"one-sided {fmt.number(100 * (1 - (f.alpha or 0.05)), 0)}%"
    if not f.bound < 0:
        return (f"{text}; {f.bound_method} inverted bounds it at {size(f.bound)} ({level}), which does not exclude "
                f"no change: two methods, and the rule reads the {f.method} test")
    text += f"; {level} bound {size(f.bound)} ({f.bound_method} inverted)"
    if f.ci_high is not None and not f.ci_high < 0:
        other = "Newcombe's, another method" if binary else "the same method at 97.5% a side"
        text += f"; the two-sided 95% interval beside it is {other}, and includes zero"
    return text


# --------------------------------------------------------------------------------------------------------
# guardrail

# What each guardrail's ratio is made of, for the sentence when it cannot be measured.
MEASURES = {"max_latency_mean_ratio": "latency", "max_latency_p95_ratio": "latency", "max_tokens_ratio": "tokens",
            "max_cost_ratio": "cost"}
ERROR_RATE = "max_error_rate_increase"  # the error-rate test of the error budget, not a ratio


def _count(n: int | None) -> str:
    return f"{n:,}" if isinstance(n, int) else str(n)


# One case's figure of each measure, after "a valid": a case has a latency, a cost, and token counts.
ONE_CASE = {"tokens": "token count"}


def unmeasured_reason(f: Figure) -> str:
    """Why a guardrail has no usable figure, from its code."""
    what = MEASURES.get(f.subject, "")
    one = ONE_CASE.get(what, what)
    return {
        "no_figures": f"the results have no {what} figures",
        "none_on_candidate": f"the candidate has no {what} figures, the baseline has",
        "none_on_baseline": f"the baseline has no {what} figures, the candidate has",
        "no_pairs": f"no paired case has a valid {one} on both sides ({_count(f.excluded)} excluded)",
        "not_finite": f"the {what} ratio is not a finite number (a zero or overflowing total)",
        "too_few": f"fewer than two paired cases have a valid {one} ({_count(f.cases)} used, {_count(f.excluded)} excluded)",
        "no_shared_case": "no case is present on both sides",
    }[f.unmeasured]


def guardrail_figure(f: Figure) -> str:
    """One guardrail's figure: the rule reads the interval's upper bound, so the sentence says so."""
    if f.subject == ERROR_RATE:
        if f.p is None:  # no errored cell on either side (or no error column): no test to run
            return no_errors()
        return error_rate_test(f.value, f.ci_low, f.ci_high, f.p_unadjusted, f.p, f.limit, f.worse, f.better)
    where = "above" if f.fired else "within"
    bound = fmt.ratio(f.ci_high, fmt.apart(f.ci_high, f.limit, 2))  # told apart from the limit beside it
    return (f"{f.subject.removeprefix('max_')} {fmt.ratio(f.value)} [{fmt.ratio(f.ci_low)}, {fmt.ratio(f.ci_high)}]: "
            f"the upper bound {bound} is {where} the limit {f.limit:g}")


def guardrail(check: RuleCheck, parameters: Parameters, binary: bool) -> str:
    if not check.applies:
        return "no guardrails set"
    unmeasured = [f"{f.subject.removeprefix('max_')} could not be measured: {unmeasured_reason(f)}"
                  for f in check.figures if f.unmeasured]
    exceeded = [guardrail_figure(f) for f in check.figures if f.fired and not f.unmeasured]
    passed = [guardrail_figure(f) for f in check.figures if not f.fired]
    if exceeded and unmeasured:
        return "guardrail exceeded or not measurable: " + "; ".join(unmeasured + exceeded)
    if unmeasured:
        return "guardrail not measurable: " + "; ".join(unmeasured)
    if exceeded:
        return "guardrail exceeded: " + "; ".join(exceeded)
    return "; ".join(passed)


# --------------------------------------------------------------------------------------------------------
# not_non_inferior


def non_inferiority(check: RuleCheck, parameters: Parameters, binary: bool) -> str:
    if not check.applies:
        return "non-inferiority check off (margin = 0)"
    f = check.figures[0]
    if f.value != f.value:
        return "the data cannot show it is no worse: the corrected difference the rules read cannot be measured"
    bound, margin = told_apart(f.value, f.limit, binary)
    shown = f"the {ni_level(parameters)}% interval's lower bound is {bound}, margin {margin}"
    return f"the data cannot show it is no worse: {shown}" if check.fired else f"non-inferior: {shown}"


def told_apart(value: float, margin: float, binary: bool) -> tuple[str, str]:
    """The bound with as many more digits as it takes to show how far it is from the margin: "-5.05 points,
    margin -5.0 points", not "-5.0 points, margin -5.0 points" beside "fired". The margin keeps its digits."""
    return beside(value, margin, binary), (f"{fmt.points(margin)} points" if binary else fmt.signed(margin))


# --------------------------------------------------------------------------------------------------------
# critical_doubt


def critical_doubt(check: RuleCheck, parameters: Parameters, binary: bool) -> str:
    """"Fraud: 8 broken, 2 fixed, -12.0 points, beyond the margin of 5.0 points, one-sided exact McNemar
    p = 0.055 <= critical_doubt 0.1, short of blocking: not shown clear"."""
    level = f"critical_doubt {check.figures[0].alpha or 0:g}"
    if not check.applies:
        return ("off (critical_doubt = 0)" if not check.figures[0].alpha else
                'not read: no critical category tested by critical_rule = "test"')
    worse, better = ("broken", "fixed") if binary else ("worsened", "improved")
    shown = [t for t in check.figures if t.fired] or [t for t in check.figures if t.worse]
    if not shown:
        return f"no {worse} case in {', '.join(t.subject for t in check.figures)}"

    def size(x: float | None) -> str:
        return f"{fmt.points(x)} points" if binary else fmt.signed(x)

    def reading(t: Figure) -> str:
        margin = (f"the margin of {size(-(t.limit or 0.0)).lstrip('+')}" if t.limit else "no change")
        where = "beyond" if t.value is not None and t.value < (t.limit or 0.0) else "within"
        # The value with the digits that tell it apart from the margin (or no change) it is read against.
        value = beside(t.value, t.limit or 0.0, binary) if fmt.is_number(t.value) else size(t.value)
        test = f"one-sided {t.method} {fmt.p_is(t.p)}"
        if t.fired and t.p is not None and t.p > (t.alpha or 0.0):
            could = fmt.plural(t.passing or 0, "passing case" if binary else "case")
            return (f"{value}, beyond {margin}, {test}: {could} {'is' if t.passing == 1 else 'are'} too few for its "
                    f"test to reach {level} however they go, so it cannot be checked: not shown clear")
        if t.fired:
            return f"{value}, beyond {margin}, {test} <= {level}, short of blocking: not shown clear"
        if t.p is not None and t.p <= (t.alpha or 0.0) and where == "beyond":
            return f"{value}, {test}: blocks in the error budget (critical_broken)"
        return f"{value}, {where} {margin}, {test}" + (f", above {level}" if t.p is None or
                                                                t.p > (t.alpha or 0.0) else "")

    return "; ".join(f"{t.subject}: {t.worse} {worse}, {t.better} {better}, {reading(t)}" for t in shown)


# --------------------------------------------------------------------------------------------------------
# judge_unreliable


def judge(check: RuleCheck, parameters: Parameters, binary: bool) -> str:
    return judge_words.gate(check, binary)


def rules_lead(not_proven_rules: list[str]) -> str:
    """The rules table's lead: what a rule that fires gives (the RULES table's ``fires``), and which is the
    headline."""
    names = (" and ".join(not_proven_rules) if len(not_proven_rules) < 3 else
             ", ".join(not_proven_rules[:-1]) + " and " + not_proven_rules[-1])
    exception = (f", except {names}, which give{'s' if len(not_proven_rules) == 1 else ''} NOT PROVEN (the data "
                 "show neither a regression nor that the candidate is no worse)") if not_proven_rules else ""
    return (f"Every rule of the policy, in order, for every candidate. A rule that fires gives DON'T SHIP{exception}; "
            "the worst verdict wins, and the first rule that fires is the headline.")
