"""The sentences of a several-metric verdict: the headline naming the blocking metrics."""

from __future__ import annotations

from releasegate.model import Verdict


def excluded(per_metric: tuple[Verdict, ...]) -> str:
    """What the metrics' comparisons set apart: their one clause when they share it, else each metric's named
    ("correct: 60 of 300 cases left out: missing on r2; safe: ..."); "" when none set anything apart."""
    clauses = {v.excluded for v in per_metric}
    if clauses == {""}:
        return ""
    if len(clauses) == 1:
        return per_metric[0].excluded
    return "; ".join(f"{v.metric}: {v.excluded}" for v in per_metric if v.excluded)


def headline(candidate: str, per_metric: tuple[Verdict, ...], blocking: tuple[str, ...],
             label: str = "DON'T SHIP", excluded: str = "") -> str:
    """"DON'T SHIP r2: safe blocks (its reason); correct and format_ok pass." or "SHIP r2: every metric passes
    (correct: ...; safe: ...)"; ``label`` is the combined verdict's (NOT PROVEN when no metric shows it worse
    and one cannot show it no worse); ``excluded`` (:func:`excluded`) is named after the candidate."""
    named = f"{candidate} ({excluded})" if excluded else candidate
    if not blocking:
        parts = "; ".join(f"{v.metric}: {v.because.removesuffix('.')}" for v in per_metric)
        return f"SHIP {named}: all {len(per_metric)} metrics pass ({parts})."
    # One blocking metric is named once ("safe blocks (its reason)"); several are told apart inside.
    reasons = "; ".join((v.because.removesuffix('.') if len(blocking) == 1 else f"{v.metric}: {v.because.removesuffix('.')}")
                        for v in per_metric if v.metric in blocking)
    passing = [v.metric for v in per_metric if v.metric not in blocking]
    # A NOT PROVEN metric does not block when the policy lets NOT PROVEN pass (not_proven = "warn"): it is not
    # proven either way, whatever check does with that.
    if label == "NOT PROVEN":
        verb = "is not proven" if len(blocking) == 1 else "are not proven"
    else:
        verb = "blocks" if len(blocking) == 1 else "block"
    tail = f"; {_and(passing)} pass{'es' if len(passing) == 1 else ''}" if passing else ""
    return f"{label} {named}: {_and(list(blocking))} {verb} ({reasons}){tail}."


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
