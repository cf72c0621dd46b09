"""Sentences of the churn section (issue 21 item 3): the live release's own churn and the fragile verdicts."""

from __future__ import annotations

from releasegate import fmt
from releasegate.model import ChurnSection, FragileComparison

SHOWN_CATEGORIES = 3  # categories named in the summary sentence (the highest churn first); the table has all


def _measured_from(s: ChurnSection, baseline: str) -> str:
    if s.source == "rerun":
        return f"{baseline} and its rerun {s.rerun}"
    runs = f"{s.runs_min}" if s.runs_min == s.runs_max else f"{s.runs_min}-{s.runs_max}"
    return f"{baseline}'s own runs ({runs} per case)"


def definition(s: ChurnSection) -> str:
    """What the share means for the runs at hand."""
    if s.runs_max == 2:
        return "the share of cases whose outcome differs between the two runs"
    return ("the chance that two distinct runs of a case disagree (2 k (R - k) / (R (R - 1)) for k passing runs "
            "of R), averaged over the cases")


def churn_summary(s: ChurnSection, baseline: str) -> str:
    """"The live release itself changes outcome on 11.0% of cases between two runs; 18.0% in Fraud"."""
    text = (f"The live release itself changes outcome on {fmt.pct(s.share)} of cases between two runs "
            f"(measured on {fmt.plural(s.cases, 'case')} from {_measured_from(s, baseline)}; "
            f"churn is {definition(s)})")
    top = sorted(s.by_category, key=lambda g: (-g.share, g.label))[:SHOWN_CATEGORIES]
    if top:
        text += "; " + ", ".join(f"{fmt.pct(g.share)} in {g.label}" for g in top)
        if len(s.by_category) > len(top):
            text += f" (the highest {len(top)} of {len(s.by_category):,} categories)"
    if not s.one_run:
        text += ". With several runs per case the verdict reads each case's mean, so no one-run verdict is judged"
    return text + "."


def _one(f: FragileComparison) -> str:
    where = "overall" if f.kind == "overall" else f"in {f.label}" + (" (critical)" if f.kind == "critical" else "")
    net = f"{f.broke} broke and {f.fixed} fixed"
    span = (f"churn alone moves broke - fixed between {f.churn_low:+d} and {f.churn_high:+d} on "
            f"{fmt.plural(f.cases, 'case')} "
            f"at {fmt.pct(f.churn)} churn, 95% range")
    if f.blocks:
        return f"the block {where} rests on {net}, within what churn alone gives ({span})"
    return f"{where} {net}, more than churn alone gives ({span}), yet it does not block"


def fragile_warnings(s: ChurnSection | None) -> list[str]:
    """One warning per fragile comparison: a one-run verdict that a rerun of the candidate could reverse."""
    if s is None:
        return []
    return [f"Fragile one-run verdict: {_one(f)}; rerun the candidate (or give several runs) before relying on it"
            for f in s.fragile]
