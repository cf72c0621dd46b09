"""The judge's sentences (issue 35): the judge gate's reason (decide/rules/judge.py's figures), the judge
section's summary and plan, and the line of a note whose outcomes are an uncalibrated judge's."""

from __future__ import annotations

from collections.abc import Sequence

from releasegate import fmt
from releasegate.model import Figure, InputFile, JudgeSection, RuleCheck
from releasegate.model.judge import CORRECTED, GATED_CORRECTED, MORE_LABELS, PLAN_LABELS, RATE_DIFFERENCE, YOUDEN


def _j(f: Figure) -> str:
    return f"{fmt.number(f.value, 2)} [{fmt.number(f.ci_low, 2)}, {fmt.number(f.ci_high, 2)}]"


def _rate(f: Figure) -> str:
    return f"{f.subject} {fmt.points(f.value)} points {fmt.interval_points(f.ci_low, f.ci_high)}"


def _count(check: RuleCheck, subject: str) -> Figure:
    return next(f for f in check.figures if f.scope == "count" and f.subject == subject)


def gate(check: RuleCheck, binary: bool) -> str:
    """The judge gate's sentence from its figures."""
    if not check.applies:
        return "no gold labels given"
    youden = [f for f in check.figures if f.method == YOUDEN]
    rates = [f for f in check.figures if f.method == RATE_DIFFERENCE]
    base, cand = youden[0].subject, youden[1].subject
    if not check.fired:
        return (f"J {_j(youden[0])} on {base} and {_j(youden[1])} on {cand}, its lower bound above the floor "
                f"{youden[0].limit:g} on both; TPR and FPR not shown apart by more than "
                f"{fmt.points(rates[0].limit)[1:]} points ({_rate(rates[0])}, {_rate(rates[1])})")
    parts = []
    for f in youden:
        if f.unmeasured:
            missing = "human fail" if not f.worse else "human pass"
            hold = "holds" if f.cases == 1 else "hold"
            parts.append(f"{f.subject}'s {fmt.plural(f.cases or 0, 'gold label')} {hold} no {missing}, so the judge's "
                         "J there cannot be measured")
        elif f.fired:
            parts.append(f"the judge's J on {f.subject}'s outputs is {_j(f)}, its lower bound below the floor "
                         f"{f.limit:g}")
    for f in rates:
        if f.unmeasured:
            parts.append(f"the judge's {f.subject} cannot be compared between the releases")
        elif f.fired:
            side = "higher" if f.value > 0 else "lower"
            parts.append(f"its {f.subject} is {fmt.points(abs(f.value))[1:]} points {side} on {cand}'s outputs "
                         f"than on {base}'s {fmt.interval_points(f.ci_low, f.ci_high)}, beyond the tolerance "
                         f"of {fmt.points(f.limit)[1:]} points: the judged difference is moved by the judge itself")
    corrected = next(f for f in check.figures if f.method == CORRECTED)
    if corrected.fired:
        # A degenerate figure with an interval of some width: the gold labels showed the judge no error, so the
        # width is the judge-only cases' sampling alone (stats.ppi.shows_no_judge_error).
        why = ("fewer than 2 gold-labelled cases on a release" if corrected.unmeasured == "too_few"
               else "no spread among the gold-labelled cases, so its interval has no width"
               if corrected.ci_low == corrected.ci_high
               else "the gold labels show no error of the judge's, so its interval would count none and be about "
                    "as narrow as the judge's own")
        unread = (f"the corrected difference the rules read cannot be measured ({why}): the overall rules have "
                  "no figure to read")
        if not parts:
            return unread + "; label more cases, at random, on both releases"
        parts.append(unread)
    text = "the judge is not shown reliable: " + "; ".join(parts)
    more = _count(check, MORE_LABELS)
    if any(f.fired and not f.unmeasured for f in youden):
        if more.value is None:
            text += ("; no number of gold labels lifts J above the floor (its estimate is at or below it): "
                     "a better judge is needed")
        else:
            text += (f"; about {fmt.plural(int(more.value), 'more gold label')} per release would lift J's bound "
                     "above it")
    if not corrected.unmeasured:
        shown = (f"{fmt.points(corrected.value)} points {fmt.interval_points(corrected.ci_low, corrected.ci_high)}"
                 if binary else f"{fmt.signed(corrected.value)} "
                 f"{fmt.interval_signed(corrected.ci_low, corrected.ci_high)}")
        text += f". The corrected difference (PPI++) is {shown}"
        plan = _count(check, PLAN_LABELS)
        if plan.value is not None and plan.value > 0:
            text += (f"; about {fmt.plural(int(plan.value), 'more gold label')} per release bring its interval to "
                     f"{_width(plan.limit, binary)} wide")
    return text


def _width(width: float, binary: bool) -> str:
    return f"{fmt.points(width)[1:]} points" if binary else f"{width:.3g}"


def summary(section: JudgeSection, binary: bool) -> str:
    """The judge section's opening sentence: how many units were labelled, and the design."""
    b, c, d = section.baseline, section.candidate, section.corrected
    design = ("paired: the same cases on both releases" if d.design == "paired"
              else f"drawn per release, {d.paired_cases:,} cases on both")
    text = (f"A human labelled {b.agreement.n:,} {section.units} of {b.release} and {c.agreement.n:,} of "
            f"{c.release} ({design}), from {section.gold_path}. The judge is "
            f"measured against those labels on each release's outputs; the corrected figures combine them with "
            f"the judge's verdict on every case (prediction-powered inference, PPI++).")
    if section.gold_unused:
        fall = "falls" if section.gold_unused == 1 else "fall"
        text += (f" {fmt.plural(section.gold_unused, 'gold label')} of these releases {fall} on cells that left the "
                 "comparison (errored or excluded) and are not read.")
    return text


def plan_line(section: JudgeSection, binary: bool) -> str:
    """How many gold labels the corrected interval's target width needs (the section's plan)."""
    plan = section.plan
    if plan is None:
        return ("No plan of gold labels: it needs the same cases labelled on both releases and a corrected "
                "interval of some width.")
    target = _width(plan.target_width, binary)
    now = _width(plan.width_now, binary)
    if not plan.reachable:
        return (f"The corrected interval is {now} wide; even every one of the {plan.n_cases:,} cases labelled "
                f"would leave it {_width(plan.width_all, binary)} wide, short of {target}.")
    if not plan.more:
        return f"The corrected interval is {now} wide, within the target of {target}."
    return (f"The corrected interval is {now} wide; about {fmt.plural(plan.more, 'more gold-labelled case')} per "
            "release "
            f"({plan.needed:,} in all) would bring it to {target}.")


def gated_line(section: JudgeSection, binary: bool, categories: bool = False) -> str:
    """Which overall figure the verdict read (the policy's judge_correction), the other beside it, and (with
    ``categories``) that the categories are the judge's own."""
    d = section.corrected
    raw = f"{_diff(section.raw_diff, section.raw_ci_low, section.raw_ci_high, binary)} ({section.raw_method})"
    cats = ("The categories and critical categories are tested on the judge's verdicts (their differences are "
            "the judge's, shrunk by its J)." if categories else "")
    if section.gated == GATED_CORRECTED:
        if not d.defined or d.degenerate:
            return (f"The rules read the corrected difference (judge_correction = \"ppi\"), which cannot be "
                    f"measured here, so the verdict cannot be SHIP; the judge's own difference, {raw}, is not read. "
                    f"{cats}").rstrip()
        p = section.test.p_regression if section.test is not None else float("nan")
        return (f"The verdict read the corrected difference (judge_correction = \"ppi\"): "
                f"{_diff(d.estimate, d.low, d.high, binary)}, one-sided {fmt.p_is(p)} that {section.candidate.release} "
                f"is worse, in the error budget in place of the judge's own test; the judge's own difference, "
                f"{raw}, is shown beside it and not read. {cats}").rstrip()
    if not d.defined or d.degenerate:
        return (f"The verdict read the judge's own difference, {raw} (judge_correction = \"none\"); the corrected "
                f"difference cannot be measured here and is not read.")
    return (f"The verdict read the judge's own difference, {raw} (judge_correction = \"none\"); the corrected "
            f"difference is shown beside it and not read.")


def unmeasured_line(section: JudgeSection) -> str:
    """Under the table: the corrected figures it does not show (n/a) although the gold labels are enough for
    them, and why. A corrected rate or difference whose gold labels show no error of the judge's (or whose
    standard error is 0) is marked ``degenerate``: its interval would count none of the judge's error, so it is
    shown as no figure, as the rules read it; empty when every defined figure is shown."""
    d = section.corrected
    if not d.defined:
        return ""  # too few gold labels: the method line says so
    figures = [f"{r.release}'s corrected {_RATE}" for r in (section.baseline, section.candidate)
               if r.corrected.degenerate]
    figures += ["the corrected difference"] if d.degenerate else []
    if not figures:
        return ""
    flat = [f for f in (*(r.corrected for r in (section.baseline, section.candidate)), d)
            if f.degenerate and f.se == 0.0]
    why = ("the gold-labelled cases have no spread, so an interval would have no width" if flat
           and len(flat) == len(figures)
           else "the gold labels show no error of the judge's, so an interval would count none of it and be about "
                "as narrow as the judge's own")
    listed = ", ".join(figures[:-1]) + (" and " if len(figures) > 1 else "") + figures[-1]
    return f"Not measured (n/a): {listed}; {why}. Label more cases, at random, on both releases."


_RATE = "rate"


def summary_gated_note(gated: list[str]) -> str:
    """Under the summary table when the rules read corrected figures: the table's are the judge's own."""
    if not gated:
        return ""
    return (f"The rates and differences above are the judge's own; the rules read the difference corrected by the "
            f"gold labels for {', '.join(gated)} (the judge section).")


def _diff(value: float, low: float, high: float, binary: bool) -> str:
    if binary:
        return f"{fmt.points(value)} points {fmt.interval_points(low, high)}"
    return f"{fmt.signed(value)} {fmt.interval_signed(low, high)}"


def method(section: JudgeSection) -> str:
    """How the corrected figures were made, in a line under the table."""
    d = section.corrected
    if not d.defined:
        return "Too few gold labels for a corrected figure (at least 2 per release)."
    if d.design == "paired":
        how = (f"PPI++ on the per-case difference (the same cases labelled on both releases), lambda "
               f"{d.lam_baseline:.2f}")
    else:
        how = (f"PPI++ per release (labels drawn per release), lambda {d.lam_baseline:.2f} / "
               f"{d.lam_candidate:.2f}")
    return (f"Corrected: {how}; Angelopoulos, Duchi and Zrnic 2024. TPR and FPR: Wilson intervals; J: Newcombe's "
            f"method 10; kappa: its large-sample interval; the differences: MOVER (Zou and Donner 2008) with the "
            f"correlation of the paired labels. Raw: {section.raw_method} on the judge's verdicts.")


def judge_sources(inputs: Sequence[InputFile]) -> list[str]:
    """What made the outcomes a judge's verdicts, per input that says so (the adapters record it)."""
    return list(dict.fromkeys(f.judge for f in inputs if f.judge))


def uncalibrated_note(inputs: Sequence[InputFile], calibrated: bool) -> str:
    """The note's line when the outcomes are a judge's verdicts and no gold labels were given ("" otherwise)."""
    judges = judge_sources(inputs)
    return uncalibrated(judges) if judges and not calibrated else ""


def uncalibrated(judges: list[str]) -> str:
    """The note's line when the outcomes are a judge's verdicts and no gold labels were given."""
    what = "; ".join(judges)
    return (f"The outcomes are an LLM judge's verdicts ({what}) and no gold labels were given: the judge is "
            "uncalibrated. Its error rates are unknown, and a difference it shows may be shrunk, or reversed "
            "when it errs differently on the two releases' answers; give a human's labels of a random sample "
            "with --gold (docs/judge.md).")
