"""The sentences of the verdict: the headline, and the warnings beside the verdict.

Rules (releasegate.decide.rules) decide whether they fire and return the figures they compared; each rule's
sentence is written from them in :mod:`releasegate.wording.checks`. Formatting goes through releasegate.fmt;
nothing here computes a statistic.
"""

from __future__ import annotations

from collections.abc import Callable

from releasegate import fmt
from releasegate.model import CandidateAnalysis, Comparison, CriticalSection, CriticalTest, Parameters, case_ids
from releasegate.model.budget import Settle
from releasegate.model.judge import CORRECTED_METHOD
from releasegate.wording.checks import budget_test

TINY_SAMPLE = 30


def diff(c: Comparison, binary: bool) -> str:
    """A comparison's difference and interval: "+1.5 points [-0.7, +3.8]" or "+0.057 [+0.010, +0.104]"."""
    if binary:
        return f"{fmt.points(c.diff)} points {fmt.interval_points(c.ci_low, c.ci_high)}"
    return f"{fmt.signed(c.diff)} {fmt.interval_signed(c.ci_low, c.ci_high)}"


def unit(binary: bool) -> Callable[[float], str]:
    return (lambda x: f"{fmt.points(x)} points") if binary else fmt.signed


def test_name(c: Comparison) -> str:
    """The test in a headline: "McNemar" for either McNemar variant, else the method as recorded."""
    if c.method == CORRECTED_METHOD:
        return "corrected by the gold labels, PPI++"
    return "McNemar" if c.method.startswith("McNemar") else c.method


def _critical_test(t: CriticalTest, section: CriticalSection) -> str:
    return budget_test(t.method, t.p_regression, t.p_adjusted, section.weight, section.alpha)


def critical_warnings(cand: CandidateAnalysis, binary: bool) -> list[str]:
    """Every broken critical case by name, whatever the critical rule decides (issue 21 item 1)."""
    section = cand.sections.critical
    if section is None:
        return []
    out = []
    for t in section.tests:
        ids = case_ids(cand.broken_cases, critical_only=True, category=t.label)
        if not ids:
            continue
        # Shown under "do not change the verdict": a test that blocks is the verdict's reason, said so, not
        # a warning that blocks.
        verdict = "is the reason for the verdict" if t.blocks else "does not block"
        how = (f"{_critical_test(t, section)}" if section.rule == "test"
               else "zero tolerance (critical_rule = any)")
        out.append(f"{t.label} (critical): {len(ids)} {'broken' if binary else 'worsened'} case"
                   f"{'' if len(ids) == 1 else 's'}: {', '.join(ids)}; the critical test {verdict} ({how})")
    return out


def critical_down(cand: CandidateAnalysis, binary: bool) -> str:
    """The critical categories that went down without their own test blocking ("" when none): the check line
    names every critical category that lost ground, whatever the verdict; one whose test blocks is named by
    the critical rule's reason, which leads the headline."""
    section = cand.sections.critical
    tests = {t.label: t for t in section.tests} if section is not None else {}
    worse, better = ("broken", "fixed") if binary else ("worsened", "improved")
    parts = []
    for c in cand.categories:
        t = tests.get(c.label)
        if not c.critical or not c.diff < 0 or (t is not None and t.blocks):
            continue
        p = (f"; its own test does not block, adjusted {fmt.p_is(t.p_adjusted)}"
             if t is not None and t.p_adjusted == t.p_adjusted else "")
        parts.append(f"{c.label} {unit(binary)(c.diff)} ({c.broke} {worse}, {c.fixed} {better}{p})")
    return ("critical categories down: " if len(parts) > 1 else "critical category down: ") + ", ".join(parts) \
        if parts else ""


# --------------------------------------------------------------------------------------------------------
# headline and warnings


def _significance(o: Comparison, alpha: float) -> str:
    """The word after the overall p of a headline. The p printed is the two-sided one (the lesson's p = 0.238);
    toward a regression the word follows what the overall rule reads, the one-sided p adjusted in the error
    budget, and says so where the two disagree."""
    shown = o.p_value < alpha
    if o.diff >= 0 or not o.p_adjusted == o.p_adjusted:
        return "significant" if shown else "not significant"
    fired = o.p_adjusted < alpha
    if fired == shown:
        return "significant" if fired else "not significant"
    if fired:
        return f"significant one-sided: adjusted {fmt.p_is(o.p_adjusted)}"
    return f"not significant in the error budget: adjusted {fmt.p_is(o.p_adjusted)}"


def because(cand: CandidateAnalysis, parameters: Parameters, binary: bool, reasons, cost_clause: str,
            settle: Settle | None = None, allowed: bool = False) -> str:
    """The verdict's reason in one sentence (the headline without "SHIP name:"); a NOT PROVEN one ends with
    what would settle it (``settle``) and, when the policy lets it pass (``allowed``), says so."""
    o = cand.overall
    p_word = _significance(o, parameters.alpha)
    overall_text = f"overall {diff(o, binary)} ({test_name(o)} {fmt.p_is(o.p_value)}, {p_word})"
    if o.diff != o.diff or o.p_value != o.p_value:
        overall_text = "overall: no corrected figure (the gold labels cannot correct the judge's)"
    regression_found = o.diff < 0 and o.p_adjusted < parameters.alpha  # the overall rule fired
    if (o.p_value >= parameters.alpha and (o.ci_low > 0 or o.ci_high < 0) and o.method.startswith("McNemar")
            and not regression_found):
        # Newcombe's interval (score-based) and the exact McNemar test (on the changed cases alone) are
        # different methods; with few changed cases the exact test is the more cautious, and the gate reads it.
        overall_text += (" (the interval excludes zero but the exact test, which the rules read, does not reach "
                         "significance: with few changed cases it is the more cautious of the two)")
    if not reasons:
        ruled_out = ("any loss" if o.ni_low >= 0 else f"a loss larger than {unit(binary)(o.ni_low).lstrip('+-')}")
        text = f"{overall_text}; no rule fired, and the data rule out {ruled_out}."
    elif reasons[0].rule == "overall_regression":
        text = f"{reasons[0].message}."
    else:
        text = f"{reasons[0].message}; {overall_text}."
    down = critical_down(cand, binary)
    if down:
        text = f"{text[:-1]}; {down}."
    if cost_clause:
        # What the release saves (or costs) beside its quality, so the trade-off is read in one line.
        text = f"{text[:-1]}; {cost_clause}."
    if settle is not None:
        text = f"{text} {settles(settle, binary)}"
    if allowed:
        text = f'{text} Allowed by the policy (not_proven = "warn"): the gate passes, the candidate is not shown no worse.'
    return text


def _chances(needed, targets, unit: str, first_tail: str = "") -> str:
    """"420 cases for an 80% chance<first_tail>, 690 for 95%" from the figures at each target."""
    parts = []
    for n, t in zip(needed, targets):
        if n is None:
            continue
        if not parts:
            parts.append(f"{n:,} {unit} for {fmt.with_article(fmt.pct(t, 0))} chance{first_tail}")
        else:
            parts.append(f"{n:,} for {fmt.pct(t, 0)}")
    return ", ".join(parts)


def settles(settle: Settle, binary: bool = True) -> str:
    """What would settle a NOT PROVEN (issue 34 item 2): the cases, or the runs of every case, that give each
    target chance of showing the candidate no worse than the margin if it truly is, from the discordance these
    releases show; and why more runs cannot help when they cannot.

    "What would settle it: 206 cases for an 80% chance of showing it no worse if it truly is, 350 for 95% (it
    has 80, a 42% chance); or 3 runs of every case for an 80% chance, 5 for 95% (it has 1)."
    """
    p = settle.plan
    if settle.observed_diff is not None:
        return _settles_a_measured_loss(settle, binary)
    if p.variance == 0 or not any(n is not None and n > p.n for n in p.cases_needed):
        # No case changed outcome (or the spread here says these cases should do, yet the interval is still
        # wide): the discordance gives no size, only that these cases are too few to tell.
        return (f"What would settle it: more cases; the {p.n:,} here are too few for their spread to say how many "
                "(no figure can be computed from them).")
    options = []
    if any(n is not None for n in p.cases_needed):
        options.append(f"{_chances(p.cases_needed, p.targets, 'cases', ' of showing it no worse if it truly is')} "
                       f"(it has {p.n:,}, {fmt.with_article(fmt.pct(p.power, 0))} chance)")
    runs = [(r, t) for r, t in zip(p.runs_needed, p.targets) if r is not None and r > p.runs]
    if runs:
        options.append(f"{_chances([r for r, _ in runs], [t for _, t in runs], 'runs of every case')} "
                       f"(it has {p.runs})")
    text = "What would settle it: " + ("; or ".join(options) if options else "no design these data can measure")
    if runs and len(runs) < len(p.targets):
        text += "; more runs alone cannot reach the higher chance, the rest being case-level change"
    elif not runs and p.runs_reason == "unknown":
        text += (". Whether more runs would help is unknown: one run of each release cannot tell run-to-run noise "
                 "from real change (a --baseline-rerun measures it)")
    elif not runs and p.runs_reason == "case-level change":
        text += (". More runs would not: the differences are case-level change, which rerunning does not "
                 "average away")
    return text + "."


def _settles_a_measured_loss(settle: Settle, binary: bool) -> str:
    """The cases would do for a candidate that changes nothing; this one measured a loss, and what settles it
    is whether that loss is within the margin (analyze/settle.py)."""
    p, observed = settle.plan, settle.observed
    size = (lambda x: f"{fmt.size_points(x)} points") if binary else (lambda x: fmt.number(abs(x)))
    loss = size(settle.observed_diff or 0.0)
    margin = f"{fmt.size_points(p.margin)}-point" if binary else fmt.number(p.margin)
    enough = (f"these {p.n:,} cases would show a candidate that changes nothing no worse "
              f"({fmt.with_article(fmt.pct(p.power, 0))} chance), but this one measured {loss} worse")
    if observed is None:
        return (f"What would settle it: not more cases alone: {enough}, at or beyond the {margin} margin; more "
                "cases show whether that loss is real (the regression rules test it), not that it is within.")
    return (f"What would settle it: {enough}, {size(observed.margin)} inside the {margin} margin; if that is its "
            f"true loss, {_chances(observed.cases_needed, observed.targets, 'cases', ' of showing it within')} "
            f"(it has {p.n:,}, {fmt.with_article(fmt.pct(observed.power, 0))} chance).")


def headline(label: str, name: str, because_text: str) -> str:
    return f"{label} {name}: {because_text}"


def plan_warnings(cand: CandidateAnalysis, parameters: Parameters) -> list[str]:
    """Warnings from the plan's own figures (not the sections')."""
    out = []
    for c in cand.categories:
        if c.broke > 0 and c.p_one_sided < parameters.alpha <= c.p_adjusted:
            out.append(f"{c.label}: {c.broke} broken, one-sided {fmt.p_is(c.p_one_sided)} before correction "
                       f"({fmt.pvalue(c.p_adjusted)} after); worth a look")
    powerless = [c for c in cand.categories if c.powerless]
    if powerless:
        reachable = [c.discordant_needed for c in powerless if c.discordant_needed is not None]
        names = ", ".join(f"{c.label} {c.fixed + c.broke}" for c in powerless)
        # A critical category read at its unconditional test needs fewer changed cases than the others: the range.
        span = (f"{min(reachable)}" if min(reachable, default=0) == max(reachable, default=0)
                else f"{min(reachable)} to {max(reachable)}")
        need = (f"each needs at least {span} changed cases" if reachable
                else "no number of changed cases would be enough")
        out.append(f"{len(powerless)} categor{'y is' if len(powerless) == 1 else 'ies are'} too small to show a "
                   f"regression on their own: {need} (has: {names})")
    reach = noninferiority_reach_warning(cand, parameters)
    if reach:
        out.append(reach)
    if cand.overall.degenerate:
        out.append("no case changed outcome: every p-value is 1")
    if cand.exclusions.count:
        out.append(f"{cand.exclusions.count} case(s) excluded from the pairing (present on one side only)")
    if cand.overall.n < TINY_SAMPLE:
        out.append(f"only {cand.overall.n} paired cases: every figure is very uncertain")
    return out


def noninferiority_reach_warning(cand: CandidateAnalysis, parameters: Parameters) -> str:
    """When a candidate that changes nothing has less than an even chance to be shown no worse than the
    margin on this suite (issue 21 item 5): its chance, and the cases that would give an even and a target
    chance ("" otherwise). A candidate the rule held NOT PROVEN has no such warning: its verdict says what would
    settle it (analyze/settle.py), and two figures for the same question, from two computations, disagreed."""
    r = cand.power.ni_reach
    if r is None or not r.power < 0.5 or r.n_even is None or cand.sections.settle is not None:
        return ""
    o = cand.overall
    binary = o.method.startswith("McNemar")
    churn = (f"with {fmt.pct((o.fixed + o.broke) / o.n)} of cases changing outcome here" if binary
             else "at the spread of the per-case differences here")
    margin = f"{fmt.size_points(parameters.margin)} points" if binary else fmt.number(parameters.margin)
    chance = fmt.with_article(fmt.pct(r.power, 0))
    return (f"the suite is too small for its margin: a candidate that changes nothing has {chance} "
            f"chance to be shown no worse than {margin} {churn}; {r.n_even:,} cases would give an even chance, "
            f"{r.n_target:,} a chance of {fmt.pct(r.target, 0)} (has {r.n:,})")


def compared_cases_note(baseline: str, excluded: list[CandidateAnalysis], one_baseline_basis: bool) -> str:
    """Under the summary table when cases were left unpaired: which cases each rate is over, and how many were
    left apart ("" when every case is paired)."""
    if not excluded:
        return ""
    parts = [f"{c.name} and {baseline} on their {c.overall.n:,} shared cases ({len(c.exclusions.only_baseline):,} "
             f"only in {baseline}, {len(c.exclusions.only_candidate):,} only in {c.name}, not compared)"
             for c in excluded]
    base = ("" if one_baseline_basis else
            f" {baseline}'s own rate is over all its cases, since the candidates share different cases with it.")
    return "Rates are over the cases compared: " + "; ".join(parts) + "." + base
