"""The sentences of a critical metric's tests (``[metrics.NAME] critical = true``): the critical test on every
case ("overall") and in every category. The combined headline puts the metric's name before them."""

from __future__ import annotations

from releasegate import fmt
from releasegate.model import CandidateAnalysis, Comparison, CriticalSection, CriticalTest


def level(section: CriticalSection) -> str:
    """"the error budget at alpha 0.05 (weight 2 each: critical_weight 10 shared by 5 tests)": a critical
    metric's tests share the critical weight."""
    if section.split <= 1:
        return f"the error budget at alpha {section.alpha:g} (weight {section.weight:.3g})"
    return (f"the error budget at alpha {section.alpha:g} (weight {section.weight:.3g} each: critical_weight "
            f"{section.weight * section.split:g} shared by {section.split} tests)")


def _how(t: CriticalTest, section: CriticalSection) -> str:
    if section.rule == "any":
        return "zero tolerance, critical_rule = any"
    return f"one-sided {t.method} {fmt.p_is(t.p_regression)}, adjusted {fmt.pvalue(t.p_adjusted)} in {level(section)}"


def _one(t: CriticalTest, section: CriticalSection, compared: Comparison | None, binary: bool) -> str:
    if t.cases == 0 or compared is None:
        return f"{t.label} has no compared case, so it cannot be checked"
    where = "cases overall" if t is section.overall else f"{t.label} cases"
    better = "none" if t.better == 0 else str(t.better)
    if binary:
        return (f"{t.worse} of {compared.both_pass + compared.broke} passing {where} "
                f"(fixed {better}; {_how(t, section)})")
    return f"{t.worse} of {t.cases} {where} (improved {better}; {_how(t, section)})"


def tests_of(section: CriticalSection) -> list[CriticalTest]:
    """The metric's critical tests, overall first."""
    return ([section.overall] if section.overall is not None else []) + list(section.tests)


def broken(section: CriticalSection, blocking: list[CriticalTest], cand: CandidateAnalysis, binary: bool) -> str:
    """"a critical metric: it broke 6 of 45 passing Billing cases (fixed none; one-sided exact McNemar
    p = 0.016, critical_alpha 0.1)"; the combined headline names the metric before it."""
    by_label = {c.label: c for c in cand.categories}
    parts = [_one(t, section, cand.overall if t is section.overall else by_label.get(t.label), binary)
             for t in blocking]
    listed = parts[0] if len(parts) == 1 else "; ".join(parts[:-1]) + " and " + parts[-1]
    return f"a critical metric: it {'broke' if binary else 'worsened'} {listed}"


def clear(section: CriticalSection) -> str:
    tests = tests_of(section)
    scope = "overall" + (f" and in {len(section.tests)} categor{'y' if len(section.tests) == 1 else 'ies'}"
                         if section.tests else "")
    how = ("zero tolerance (critical_rule = any)" if section.rule == "any"
           else f"its critical test at {level(section)}")
    smallest = min(t.p_regression for t in tests)
    tail = "" if section.rule == "any" else f", smallest one-sided {fmt.p_is(smallest)}"
    return f"a critical metric: {how} {scope} does not block{tail}"
