"""Page one in plain words (issue 29 item 1): one short paragraph per candidate for a reader who is not a
statistician: what changed for users (the categories that got better or worse, by how many cases), whether it
may ship and why, what it costs, and what to do next.

No test names, p-values, levels or policy keys here: the statistics follow in the note. The verdict is read by
its Decision's value ("ship", "dont_ship", "not_proven"), so a decision added to the enum reads here by value
before this module knows its member. Every figure comes from the analysis and the rules' checks.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from releasegate import fmt
from releasegate.model import CandidateAnalysis, Figure, MetricSection, Report, RuleCheck, case_ids
from releasegate.wording.exclusions import clause

MAX_NAMED = 2  # categories named per direction; the rest counted
MAX_IDS = 3  # broken critical cases named by id


@dataclass(frozen=True)
class PlainInput:
    """What one candidate's paragraph reads of one metric: its analysis, its rules' checks, the verdict's value."""

    cand: CandidateAnalysis
    checks: tuple[RuleCheck, ...]
    decision: str  # Decision.value: "ship", "dont_ship", "not_proven"
    binary: bool
    margin: float
    # Pass/fail outcomes (one run or several), not scores. Required: a default of pass/fail once made page one of
    # the HTML, PDF and Markdown word a score's next step and runs as pass/fail while the text output did not.
    pass_fail: bool
    metric: str = ""


def _cases(n: int) -> str:
    return fmt.plural(n, "case")


def _category_moves(cand: CandidateAnalysis, binary: bool) -> tuple[list[str], list[str]]:
    """The categories that got worse and better by the net cases changed: critical first, then the largest."""
    worse, better = [], []
    for c in cand.categories:
        net = c.broke - c.fixed
        if net > 0:
            tag = " (critical)" if c.critical else ""
            worse.append(((not c.critical, -net, c.label), f"{c.label}{tag} -{net}"))
        elif net < 0:
            better.append(((net, c.label), f"{c.label} +{-net}"))
    worse.sort()
    better.sort()
    return [t[-1] for t in worse], [t[-1] for t in better]


def _and(names: list[str]) -> str:
    """"Fraud", "Fraud and Safety", "Fraud, Billing and Safety"."""
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _listed(items: list[str]) -> str:
    shown = items[:MAX_NAMED]
    more = len(items) - len(shown)
    return ", ".join(shown) + (f" and {more:,} more" if more else "")


def changed(cand: CandidateAnalysis, binary: bool, baseline: str) -> str:
    """What changed for users, e.g. "Against r1-live on 400 cases: 12 fixed, 6 broken. Worse: Fraud
    (critical) -6. Better: Transfers +3, Account access +2 and 4 more." (net cases per category); the cases set
    apart are named in the first sentence ("Against r1 on 240 cases (60 of 300 cases left out: missing on r2)")."""
    o = cand.overall
    better_word, worse_word = ("fixed", "broken") if binary else ("improved", "worsened")
    excluded = clause(cand.exclusions, cand.name)
    named = f" ({excluded})" if excluded else ""
    # Scores count a case only beyond min_change: said, so that "0 worsened" never reads as no case went down.
    item = cand.sections.item_axis
    beyond = (f" by more than {fmt.number(item.min_change)}" if not binary and item is not None
              and item.min_change > 0 else "")
    text = (f"Against {baseline} on {_cases(o.n)}{named}: {o.fixed:,} {better_word}, {o.broke:,} "
            f"{worse_word}{beyond}.")
    worse, better = _category_moves(cand, binary)
    if worse:
        text += f" Worse: {_listed(worse)}."
    if better:
        text += f" Better: {_listed(better)}."
    return text


_GUARDRAIL_WORDS = {
    "max_latency_mean_ratio": "its typical answer",
    "max_latency_p95_ratio": "its slowest answers",
    "max_tokens_ratio": "its tokens per answer",
    "max_cost_ratio": "its cost per answer",
}


def _guardrail(f: Figure) -> str:
    if f.subject == "max_error_rate_increase":
        return "it errors more often than the policy allows"
    what = _GUARDRAIL_WORDS.get(f.subject, f.subject.removeprefix("max_").replace("_", " "))
    if f.unmeasured or f.ci_high is None or f.limit is None:
        return f"{what} could not be measured, so its limit blocks it"
    # The rule reads the interval's upper end: the release may be that much slower or dearer.
    return (f"{what} may exceed the limit (up to {fmt.ratio(f.ci_high, fmt.apart(f.ci_high, f.limit, 2))} the "
            f"baseline; limit {f.limit:g}x)")


def _why_blocked(check: RuleCheck, cand: CandidateAnalysis, binary: bool, margin: float) -> list[str]:
    fired = [f for f in check.figures if f.fired]
    word = "broke" if binary else "lowered"
    if check.rule == "critical_broken":
        # Under critical_rule = "any" no test is read: one broken case blocks, which chance may well explain.
        because = ("and the policy allows none there" if check.critical_rule == "any"
                   else "more than chance explains")
        return [f"{f.subject}, a critical category, has no case compared, so it could not be checked" if not f.cases
                else f"it {word} {_cases(f.worse or 0)} in {f.subject}, a critical category, {because}"
                for f in fired]
    if check.rule == "overall_regression":
        return ["it is worse overall, by more than chance explains"]
    if check.rule == "category_regression":
        return [f"{f.subject} got clearly worse" for f in fired]
    if check.rule == "guardrail":
        return [_guardrail(f) for f in fired]
    if check.rule == "not_non_inferior":
        size = f"{fmt.size_points(margin)} points" if binary else fmt.number(margin)
        # Read corrected (gold labels), the interval narrows with the human's labels, not with cases.
        who = "the cases" if cand.judged is None else "the human's labels"
        return [f"{who} cannot show it is at most {size} worse than the baseline"]
    if check.rule == "critical_doubt":
        better = "fixed" if binary else "improved"

        def down(x: float) -> str:
            return f"{fmt.size_points(x)} points" if binary else fmt.number(x)

        def beyond(f: Figure) -> str:
            return f"more than the margin of {down(-f.limit)}" if f.limit else "a loss"

        def why(f: Figure) -> str:
            if f.p is not None and f.alpha is not None and f.p > f.alpha:  # too few cases for the test to show
                cases = fmt.plural(f.passing or 0, "passing case" if binary else "case")
                return (f"{beyond(f)}, and its {cases} {'is' if f.passing == 1 else 'are'} too few for any count "
                        "of them to show the category worse, so it could not be checked")
            return (f"{beyond(f)}, at one-sided {fmt.p_is(f.p)}, too likely by chance to block on and too unlikely "
                    "to call the category clear")

        return [f"it {word} {_cases(f.worse or 0)} in {f.subject}, a critical category, against {f.better} {better}: "
                f"{down(-(f.value or 0.0))} down, {why(f)}" for f in fired]
    if check.rule == "judge_unreliable":
        return ["the LLM judge that graded the answers is not shown reliable on both releases (checked against "
                "a human's labels), so its verdicts cannot settle the comparison"]
    return [f"a rule of the policy blocks it ({check.rule.replace('_', ' ')})"]


def _sentence_list(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def reasons(p: PlainInput) -> list[str]:
    """Why it may not ship, one clause per comparison that blocks it, in the rules' order (empty for SHIP)."""
    out: list[str] = []
    critical = {f.subject for c in p.checks if c.rule == "critical_broken" for f in c.figures if f.fired}
    for check in p.checks:
        if not check.fired:
            continue
        if check.rule == "category_regression" and all(f.subject in critical for f in check.figures if f.fired):
            continue  # said once, by the critical category's clause
        out.extend(_why_blocked(check, p.cand, p.binary, p.margin))
    return out


def _may_ship(p: PlainInput) -> str:
    """Why a SHIP ships, in what its figures show: the drops it has (named, critical first) are within chance,
    and how large a loss the cases rule out. A SHIP may have broken cases and categories that went down; the
    sentence never says nothing got worse beside them."""
    o = p.cand.overall
    unit = " points" if p.binary else ""
    loss = (", and the cases rule out any loss" if o.ni_low >= 0 else
            f", and the cases rule out a loss of more than {fmt.size_points(-o.ni_low) if p.binary else fmt.number(-o.ni_low)}"
            f"{unit}") if math.isfinite(o.ni_low) else ""
    if o.broke == 0:
        return f"It may ship: it {'broke' if p.binary else 'lowered'} no case{loss}."
    worse, _ = _category_moves(p.cand, p.binary)
    if not worse:
        return f"It may ship: no drop is more than chance explains{loss}."
    drops = "its drop" if len(worse) == 1 else "its drops"
    return (f"It may ship: {drops} ({_listed(worse)}) {'is' if len(worse) == 1 else 'are'} within what chance "
            f"explains{loss}.")


def decision(p: PlainInput) -> str:
    """May it ship, and why."""
    if p.decision == "ship":
        return _may_ship(p)
    why = reasons(p)
    if p.decision == "not_proven":
        settle = p.cand.sections.settle
        few = ("the human's labels are" if p.cand.judged is not None
               else "the groups of cases are" if settle is not None and settle.groups is not None
               else "the cases are")
        return (f"Not proven either way: {few} too few to tell whether it is worse"
                + (f" ({_sentence_list(why)})" if why else "") + ".")
    return f"It may not ship: {'; '.join(why) or 'a rule of the policy blocks it'}."


def costs(cand: CandidateAnalysis) -> str:
    """What it costs against the baseline ("" without cost or latency figures)."""
    k = cand.sections.costs
    if k is None:
        return ""
    parts = []
    cost = k.cost_ratio
    if cost is not None and math.isfinite(cost.ratio) and round(cost.ratio, 2) != 1:
        parts.append(f"{fmt.pct(abs(cost.ratio - 1), 0)} {'less' if cost.ratio < 1 else 'more'} per answer")
    p95 = k.latency_p95_ratio
    if p95 is not None and math.isfinite(p95.ratio) and round(p95.ratio, 2) != 1:
        parts.append(f"its slowest answers take {p95.ratio:.2f}x as long")
    if not parts:
        return ""
    # "It costs" leads only a cost figure; without one the latency is a sentence of its own.
    text = "; ".join(parts)
    return f"It costs {text}." if parts[0].endswith("per answer") else f"{text[0].upper()}{text[1:]}."


def _settle(cand: CandidateAnalysis) -> str:
    """What to add, in plain words: a suite size (and how many more cases) at no true difference and, when a loss
    was measured, at that loss, or that more cases are likelier to show it worse; runs where they can help."""
    s = cand.sections.settle
    if s is None:
        return "run more cases, or more runs of every case, and compare again"
    plan = s.plan
    n = plan.n
    if s.groups is not None:
        return (f"compare again on more groups: these {n:,} cases come in {s.groups}, and more cases per group "
                "cannot settle it")
    if plan.variance == 0:  # no case changed: no spread to size a suite from, as "what would settle it" says
        here = "this one case is" if n == 1 else f"the {n:,} here are"
        return f"compare again on more cases: with no case changed, {here} too few to say how many would settle it"
    target = fmt.with_article(fmt.pct(plan.targets[0], 0)) if plan.targets else "a"
    options = []
    zero = plan.cases_needed[0] if plan.cases_needed else None
    if zero is not None and zero > n:
        options.append(f"a suite of about {zero:,} cases ({zero - n:,} more) would give {target} chance of showing "
                       "it no worse at no true difference")
    if s.observed_diff is not None:
        measured = s.observed.cases_needed[0] if s.observed is not None and s.observed.cases_needed else None
        if s.observed is None:
            options.append("it measured a loss at or beyond the margin, so more cases are more likely to show it "
                           "worse than within the margin")
        elif measured is not None and measured > n:
            options.append(f"if its measured loss is its true one, about {measured:,} cases ({measured - n:,} more) "
                           f"would give {target} chance of showing it within the margin")
    runs = plan.runs_needed[0] if plan.runs_needed else None
    if runs is not None and runs > plan.runs:
        options.append(f"{runs} runs of every case would give {target} chance of settling it")
    if not options:
        return "compare again on more cases or a wider margin: these cases could settle it and did not"
    return "; ".join(options)


def next_step(p: PlainInput) -> str:
    """What to do next."""
    cand = p.cand
    fired = {c.rule for c in p.checks if c.fired}
    if ("judge_unreliable" in fired or cand.judged is not None) and fired <= {"judge_unreliable", "not_non_inferior"} \
            and fired:
        return ("Next: have a human label more of the cases (the judge section says how many), or use a better "
                "judge, then compare again.")
    if p.decision == "not_proven" and "critical_doubt" in fired and "not_non_inferior" not in fired:
        critical = case_ids(cand.broken_cases, critical_only=True)
        shown = ", ".join(critical[:MAX_IDS]) + (f" and {len(critical) - MAX_IDS:,} more" if len(critical) > MAX_IDS
                                                 else "")
        read = f"read the critical cases it {'broke' if p.binary else 'lowered'} ({shown}), then " if critical else ""
        return (f"Next: {read}compare again with more cases in the critical categories: those it has cannot tell a "
                "real loss there from chance.")
    if p.decision == "not_proven" or (p.decision != "ship" and fired == {"not_non_inferior"}):
        return f"Next: {_settle(cand)}."  # too little evidence either way: more of it, not a fix
    broken, critical = case_ids(cand.broken_cases), case_ids(cand.broken_cases, critical_only=True)
    verb = "broke" if p.binary else "lowered"
    if p.decision == "ship":
        return f"Next: ship it, and read the {_cases(len(broken))} it {verb}." if broken else "Next: ship it."
    # The cases of the categories that block it first (a category regression, a critical category), so that the
    # cases named are the ones behind the verdict, not another category's.
    blocking = list(dict.fromkeys(f.subject for c in p.checks if c.fired and c.rule != "critical_doubt"
                                  for f in c.figures if f.fired and f.scope == "category" and f.cases != 0))
    in_blocking = [i for label in blocking for i in case_ids(cand.broken_cases, category=label)]
    first = in_blocking or critical or broken
    if blocking and not in_blocking and not p.pass_fail and "overall_regression" not in fired:
        # Scores: every case of the category moved by less than the smallest change listed, together significantly.
        return (f"Next: find what lowered {_and(blocking)}, where no case moved enough to be listed, then compare "
                "again.")
    if not first:
        return "Next: fix what blocks it, then compare again."
    shown = ", ".join(first[:MAX_IDS])
    more = len(first) - MAX_IDS
    rest = f" and {more:,} more" if more > 0 else ""
    if len(first) == len(broken):
        return f"Next: fix {shown}{rest}, then compare again."
    # Only some of the cases it broke are named: say whose they are and how many others there are, so that "and
    # 2 more" is not read as all of them.
    where = "critical categories" if not in_blocking else _and(blocking)
    return (f"Next: fix the {_cases(len(first))} it {verb} in {where} ({shown}{rest}) and read the other "
            f"{len(broken) - len(first):,}, then compare again.")


def can_show(p: PlainInput) -> str:
    """What a small suite can show (issue 46 item 5), when its cases cannot show its margin with an 80% chance:
    the smallest margin they show at the change seen here, whether more runs (epochs) would help and how many;
    and with runs, why the verdict and its units are not one run's."""
    cand = p.cand
    out = []
    axis = cand.sections.run_axis
    runs = 1 if axis is None else int(axis.runs_per_case_min)
    if runs > 1 and not p.binary:
        share, unit = (("its share of passing runs", "a mean pass rate") if p.pass_fail
                       else ("its mean score over the runs", "a mean score"))
        out.append(f"With {runs} runs (epochs) of every case, each case counts as {share} and the releases are "
                   f"compared on those case by case ({unit}, a paired t test), not on one run's outcomes: a case that "
                   "changes in some runs and not others counts in part, so the verdict and its units can differ "
                   "from one run's.")
    r = cand.power.ni_reach
    # A candidate shown no worse (shipped, or held by another rule while non-inferiority held) needs no word on
    # what the suite could not show: "can show at best 7.9 points" beside "the cases rule out a loss of more than
    # 2.0 points" is moot, and reads as a contradiction.
    shown = not any(c.rule == "not_non_inferior" and c.fired for c in p.checks)
    if (p.decision == "ship" or shown or r is None or not r.smallest_margin == r.smallest_margin
            or r.smallest_margin <= p.margin):
        return " ".join(out)
    # In the note's units: points of the pass rate with one run, the per-case mean's units with runs or scores.
    size = f"{fmt.size_points(r.smallest_margin)} points" if p.binary else fmt.number(r.smallest_margin)
    margin = f"{fmt.size_points(p.margin)} points" if p.binary else fmt.number(p.margin)
    text = (f"With {_cases(r.n)} at the change seen here, this suite can show at best that a candidate is no more "
            f"than {size} worse ({fmt.with_article(fmt.pct(r.target, 0))} chance; the margin is {margin})")
    settle = cand.sections.settle
    if settle is not None:
        plan = settle.plan
        more = plan.runs_needed[0] if plan.runs_needed else None
        if more is not None and more > plan.runs:
            text += f"; {more} runs (epochs) of every case would reach the margin"
        elif plan.runs_reason == "case-level change":
            text += "; more runs (epochs) would not: the changes are the candidate's, not run-to-run noise"
        elif plan.runs_reason == "unknown" and runs == 1 and p.binary and cand.sections.clusters is None:
            text += ("; one run cannot tell whether more runs (epochs) would help (a rerun of the baseline, or "
                     "several epochs, would tell)")
        elif plan.runs_reason == "unknown":
            text += "; whether more runs would help is not measured for scores or grouped cases"
    out.insert(0, text + ".")
    return " ".join(out)


def paragraph(parts: list[PlainInput], baseline: str) -> str:
    """One candidate's paragraph: each metric's changes (named when there are several), the decision, the
    costs (once) and the next step (of the first blocking metric, else the first)."""
    several = len(parts) > 1
    out = []
    for p in parts:
        text = changed(p.cand, p.binary, baseline)
        reach = can_show(p)
        text = f"{text} {reach}" if reach else text
        out.append(f"{p.metric}: {text}" if several else text)
    blocking = [p for p in parts if p.decision != "ship"] or parts[:1]
    lead = blocking[0]
    if several and lead.decision != "ship":
        out.append(f"On {', '.join(p.metric for p in blocking)}: " + decision(lead)[0].lower() + decision(lead)[1:])
    else:
        out.append(decision(lead))
    cost = costs(parts[0].cand)
    if cost:
        out.append(cost)
    out.append(next_step(lead))
    return " ".join(out)


def inputs(report: Report) -> dict[str, list[PlainInput]]:
    """What each candidate's paragraph reads, metric by metric, by name in the report's order."""
    out = {}
    for verdict in report.verdicts:
        parts = []
        for section, own in zip(report.sections, verdict.by_metric):
            analysis = section.analysis
            cand = next(c for c in analysis.candidates if c.name == verdict.candidate)
            parts.append(PlainInput(cand, own.checks, own.decision.value, analysis.mcnemar_path,
                                    analysis.parameters.margin, analysis.outcome_kind == "binary",
                                    section.metric if report.several else ""))
        out[verdict.candidate] = parts
    return out


def paragraphs(report: Report) -> dict[str, str]:
    """Every candidate's paragraph, by name, in the report's order."""
    baseline = report.sections[0].analysis.baseline
    return {name: paragraph(parts, baseline) for name, parts in inputs(report).items()}


def section_paragraphs(section: MetricSection) -> dict[str, str]:
    """Every candidate's paragraph on one metric's section (a one-metric note), by name."""
    analysis = section.analysis
    by_name = {c.name: c for c in analysis.candidates}
    return {v.candidate: paragraph([PlainInput(by_name[v.candidate], v.checks, v.decision.value,
                                               analysis.mcnemar_path, analysis.parameters.margin,
                                               analysis.outcome_kind == "binary")],
                                   analysis.baseline)
            for v in section.verdicts}
