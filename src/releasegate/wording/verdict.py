"""The sentences of the verdict: the headline, and the warnings beside the verdict.

Rules (releasegate.decide.rules) decide whether they fire and return the figures they compared; each rule's
sentence is written from them in :mod:`releasegate.wording.checks`. Formatting goes through releasegate.fmt;
nothing here computes a statistic.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from releasegate import fmt
from releasegate.model import CandidateAnalysis, Comparison, CriticalSection, CriticalTest, Parameters, case_ids
from releasegate.model.budget import Settle
from releasegate.model.judge import CORRECTED_METHOD
from releasegate.wording.checks import budget_test
from releasegate.wording.exclusions import clause
from releasegate.wording.sections import FEW_CLUSTERS

TINY_SAMPLE = 30

# How each sentence after a NOT PROVEN headline's reason opens: what would settle it, whether runs would, the
# later look, the policy's allowance. The console (``check``) starts each on a line of its own.
SETTLE = "What would settle it:"
RUNS_UNKNOWN = "Whether more runs would help is unknown:"
RUNS_CANNOT = "More runs would not:"
LATER_LOOK = "Comparing again after adding them"
ALLOWED = 'Allowed by the policy (not_proven = "warn"):'
FOLLOWING = (SETTLE, RUNS_UNKNOWN, RUNS_CANNOT, LATER_LOOK, ALLOWED)
_BEFORE_FOLLOWING = re.compile(" (?=" + "|".join(re.escape(opener) for opener in FOLLOWING) + ")")


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
        out.append(f"{t.label} (critical): {len(ids):,} {'broken' if binary else 'worsened'} case"
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


def _significance(o: Comparison, alpha: float, fired: bool) -> str:
    """The word after the overall p of a headline. The p printed is the two-sided one (the lesson's p = 0.238);
    toward a regression the word follows what the overall rule decided (``fired``: it reads the one-sided p
    adjusted in the error budget), and says so where the two disagree."""
    shown = o.p_value < alpha
    if o.diff >= 0 or not o.p_adjusted == o.p_adjusted:
        return "significant" if shown else "not significant"
    if fired == shown:
        return "significant" if fired else "not significant"
    if fired:
        return f"significant one-sided: adjusted {fmt.p_is_beside(o.p_adjusted, alpha)}"
    return f"not significant in the error budget: adjusted {fmt.p_is_beside(o.p_adjusted, alpha)}"


def because(cand: CandidateAnalysis, parameters: Parameters, binary: bool, reasons, cost_clause: str,
            settle: Settle | None = None, allowed: bool = False) -> str:
    """The verdict's reason in one sentence (the headline without "SHIP name:"); a NOT PROVEN one ends with
    what would settle it (``settle``) and, when the policy lets it pass (``allowed``), says so."""
    o = cand.overall
    # What the overall rule decided, read from its reason rather than worked out again here, so that the
    # sentence cannot say otherwise than the rule.
    regression_found = any(r.rule == "overall_regression" for r in reasons)
    p_word = _significance(o, parameters.alpha, regression_found)
    overall_text = (f"overall {diff(o, binary)} ({test_name(o)} {fmt.p_is_beside(o.p_value, parameters.alpha)}, "
                    f"{p_word})")
    if o.diff != o.diff or o.p_value != o.p_value:
        overall_text = "overall: no corrected figure (the gold labels cannot correct the judge's)"
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
        # A rerun of the baseline measures run-to-run noise for pass/fail outcomes of ungrouped cases only.
        rerun_tells = binary and cand.sections.clusters is None
        text = f"{text} {settles(settle, binary, rerun_tells)}{next_look(cand)}"
    if allowed:
        text = f'{text} {ALLOWED} the gate passes, the candidate is not shown no worse.'
    return text


def _chances(needed: Sequence[Any], targets: Sequence[Any], unit: str, first_tail: str = "") -> str:
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


def settles(settle: Settle, binary: bool = True, rerun_tells: bool = True) -> str:
    """What would settle a NOT PROVEN (issue 34 item 2, issue 46 item 4): the suite sizes that give each target
    chance of showing the candidate no worse than the margin at no true difference, and, when it measured a
    loss, the same as if that loss were its true one (or that no size would, at or beyond the margin); sizes are
    "a suite of N cases (M more)", never a number below the suite's own; then the runs, or why they cannot help.

    "What would settle it: at no true difference, a suite of 424 cases (24 more) gives an 80% chance of
    showing it no worse, 736 (336 more) 95% (these 400: 78%); at its measured loss of 3.0 points, 2.0 inside the
    5.0-point margin, 1,030 (630 more) 80%, 1,759 (1,359 more) 95% (these 400: 45%)."
    """
    p = settle.plan
    if settle.groups is not None:
        groups = fmt.plural(settle.groups, "group")
        return (f"{SETTLE} more groups, not more cases: these {p.n:,} cases come in {groups}, and below "
                f"{FEW_CLUSTERS} the interval that respects them is set by the number of groups, not of cases.")
    if p.variance == 0:
        # No case changed outcome: the discordance gives no size, only that these cases are too few to tell.
        here = "this one case is" if p.n == 1 else f"the {p.n:,} here are"
        return (f"{SETTLE} more cases; {here} too few for their spread to say how many (no figure can be computed "
                "from them).")
    parts = [f"at no true difference, {_suites(p.cases_needed, p.targets, p.n, p.power, ' of showing it no worse')}"]
    if settle.observed_diff is not None:
        loss = (f"{fmt.size_points(settle.observed_diff)} points" if binary
                else fmt.number(abs(settle.observed_diff)))
        margin = f"{fmt.size_points(p.margin)}-point" if binary else fmt.number(p.margin)
        observed = settle.observed
        if observed is None:
            parts.append(f"but it measured {loss} worse, at or beyond the {margin} margin: more cases are more likely "
                         "to show it worse than within the margin")
        else:
            inside = f"{fmt.size_points(observed.margin)} points" if binary else fmt.number(observed.margin)
            parts.append(f"at its measured loss of {loss}, {inside} inside the {margin} margin, "
                         f"{_suites(observed.cases_needed, observed.targets, p.n, observed.power, '')}")
    text = f"{SETTLE} " + "; ".join(parts)
    runs = [(r, t) for r, t in zip(p.runs_needed, p.targets) if r is not None and r > p.runs]
    if runs:
        text += (f"; or {_chances([r for r, _ in runs], [t for _, t in runs], 'runs of every case')} "
                 f"(it has {p.runs})")
    if runs and len(runs) < len(p.targets):
        text += "; more runs alone cannot reach the higher chance, the rest being case-level change"
    elif not runs and p.runs_reason == "unknown" and rerun_tells:
        text += (f". {RUNS_UNKNOWN} one run of each release cannot tell run-to-run noise "
                 "from real change (a --baseline-rerun measures it)")
    elif not runs and p.runs_reason == "unknown":
        # Scores, several runs or grouped cases: the run-to-run share is measured for pass/fail alone.
        text += f". {RUNS_UNKNOWN} the run-to-run share of the change is not measured for scores or grouped cases"
    elif not runs and p.runs_reason == "case-level change":
        text += (f". {RUNS_CANNOT} the differences are case-level change, which rerunning does not "
                 "average away")
    return text + "."


def _suites(needed: Sequence[Any], targets: Sequence[Any], n: int, power: float, tail: str) -> str:
    """"a suite of 424 cases (24 more) gives an 80% chance<tail>, 736 (336 more) 95% (these 400: 78%)": only the
    targets these cases do not reach, as whole suites and what to add; "these 400 cases give a 83% chance<tail>"
    when they reach every target."""
    above = [(k, t) for k, t in zip(needed, targets) if k is not None and k > n]
    now = fmt.pct(power, 0)
    if not above:
        these = "this one case gives" if n == 1 else f"these {n:,} cases give"
        return f"{these} {fmt.with_article(now)} chance{tail}"
    first, *rest = above
    out = (f"a suite of {first[0]:,} cases ({first[0] - n:,} more) gives {fmt.with_article(fmt.pct(first[1], 0))} "
           f"chance{tail}")
    out += "".join(f", {k:,} ({k - n:,} more) {fmt.pct(t, 0)}" for k, t in rest)
    return f"{out} ({'this one case' if n == 1 else f'these {n:,}'}: {now})"


def next_look(cand: CandidateAnalysis) -> str:
    """How a comparison of the same releases after more data will be judged (issue 46 item 3): its regression
    tests at what this look left unspent, its non-inferiority at alpha as every look's."""
    budget = cand.sections.budget
    if budget is None or budget.left != budget.left:
        return ""
    if budget.left <= 0:
        regression = ("its regression tests off (the looks so far could spend all of alpha: no figure of a later "
                      "look can show the release worse)")
    else:
        regression = (f"its regression tests at alpha {fmt.pvalue(budget.left)}, what this look left unspent "
                      f"(look {budget.look + 1})")
    return (f" {LATER_LOOK} is a later look at the same releases: give this note's JSON with "
            f"--previous, and it is judged with {regression}; non-inferiority at alpha {fmt.number(budget.alpha, 2)} "
            "as at every look.")


def headline(label: str, name: str, because_text: str, excluded: str = "") -> str:
    """"SHIP r2: ..."; with cases set apart, named first: "SHIP r2 (60 of 300 cases left out: missing on r2): ..."."""
    return f"{label} {name}{f' ({excluded})' if excluded else ''}: {because_text}"


def headline_lines(headline: str) -> list[str]:
    """The headline as lines: its verdict and reason first, then each sentence that follows the reason (what would
    settle a NOT PROVEN, the runs, the later look, the policy's allowance) on a line of its own, so that the CI
    gate's first line stays short enough to read in a job log. Joined with spaces, the lines are the headline."""
    return re.split(_BEFORE_FOLLOWING, headline)


def plan_warnings(cand: CandidateAnalysis, parameters: Parameters, binary: bool | None = None) -> list[str]:
    """Warnings from the plan's own figures (not the sections'); ``binary``: the note's differences are in points
    (the McNemar path, corrected by gold labels or not; default: read from the overall test's method)."""
    out = []
    for c in cand.categories:
        if c.broke > 0 and c.p_one_sided < parameters.alpha <= c.p_adjusted:
            out.append(f"{c.label}: {c.broke} broken, one-sided {fmt.p_is(c.p_one_sided)} before correction "
                       f"({fmt.pvalue(c.p_adjusted)} after); worth a look")
    gone = cand.categories_not_compared
    if gone:
        which = (f"category {gone[0]}" if len(gone) == 1 else f"{len(gone):,} categories ({', '.join(gone)})")
        out.append(f"no case of {which} was compared (every one was left out), so "
                   f"{'it has' if len(gone) == 1 else 'they have'} no row of figures")
    powerless = [c for c in cand.categories if c.powerless]
    if powerless:
        reachable = [c.discordant_needed for c in powerless if c.discordant_needed is not None]
        names = ", ".join(f"{c.label} {c.fixed + c.broke}" for c in powerless)
        # A critical category read at its unconditional test needs fewer changed cases than the others: the range.
        span = (f"{min(reachable)}" if min(reachable, default=0) == max(reachable, default=0)
                else f"{min(reachable)} to {max(reachable)}")
        need = (f"each needs at least {span} changed cases" if reachable
                else "no number of changed cases would be enough")
        one = len(powerless) == 1
        out.append(f"{len(powerless):,} categor{'y is' if one else 'ies are'} too small to show a regression on "
                   f"{'its' if one else 'their'} own: {need.replace('each needs', 'it needs') if one else need} "
                   f"(has: {names})")
    reach = noninferiority_reach_warning(cand, parameters, binary)
    if reach:
        out.append(reach)
    if cand.overall.degenerate:
        out.append("no case changed outcome: every p-value is 1")
    if cand.overall.n < TINY_SAMPLE:
        out.append(f"only {fmt.plural(cand.overall.n, 'paired case')}: every figure is very uncertain")
    return out


def noninferiority_reach_warning(cand: CandidateAnalysis, parameters: Parameters, binary: bool | None = None) -> str:
    """When a candidate that changes nothing has less than an even chance to be shown no worse than the
    margin on this suite (issue 21 item 5): its chance, and the cases that would give an even and a target
    chance ("" otherwise). A candidate the rule held NOT PROVEN has no such warning: its verdict says what would
    settle it (analyze/settle.py), and two figures for the same question, from two computations, disagreed."""
    r = cand.power.ni_reach
    if r is None or not r.power < 0.5 or r.n_even is None or cand.sections.settle is not None:
        return ""
    o = cand.overall
    mcnemar = o.method.startswith("McNemar")
    # The margin in the note's unit: points on the McNemar path, also when gold labels correct its difference
    # (the rules table says "margin -5.0 points" there; "no worse than 0.050" beside it was another unit).
    points = mcnemar if binary is None else binary
    churn = (f"with {fmt.pct((o.fixed + o.broke) / o.n)} of cases changing outcome here" if mcnemar
             else "at the spread of the per-case differences here")
    margin = f"{fmt.size_points(parameters.margin)} points" if points else fmt.number(parameters.margin)
    chance = fmt.with_article(fmt.pct(r.power, 0))
    return (f"the suite is too small for its margin: a candidate that changes nothing has {chance} "
            f"chance to be shown no worse than {margin} {churn}; {r.n_even:,} cases would give an even chance, "
            f"{r.n_target:,} a chance of {fmt.pct(r.target, 0)} (has {r.n:,})")


def compared_cases_note(baseline: str, excluded: list[CandidateAnalysis], one_baseline_basis: bool) -> str:
    """Under the summary table when cases were left unpaired: which cases each rate is over, and how many were
    left apart ("" when every case is paired)."""
    if not excluded:
        return ""
    parts = [f"{c.name} and {baseline} on their {c.overall.n:,} shared cases ({clause(c.exclusions, c.name)})"
             for c in excluded]
    base = ("" if one_baseline_basis else
            f" {baseline}'s own rate is over all its cases, since the candidates share different cases with it.")
    return "Rates are over the cases compared: " + "; ".join(parts) + "." + base
