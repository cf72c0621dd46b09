"""Scoring one output: exact, contains, regex (against the case's reference field), a callable, or a judge.

A score is ok with a value (0/1 for "passed", a number for "score"), or a hole: "unparseable" (a judge's
reply that the pattern cannot read) or "error" (no reference, a callable that raised). A hole is never
turned into a pass or a fail; the gate refuses it (docs/run.md).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from releasegate.run.config import FAIL_WORDS, PASS_WORDS, MetricConfig, resolve_callable


@dataclass(frozen=True)
class Score:
    status: str  # ok | unparseable | error
    value: float | None = None
    judge_prompt: str | None = None
    judge_reply: str | None = None
    error: str | None = None


def _norm(text: str, ignore_case: bool) -> str:
    text = " ".join(str(text).split())
    return text.casefold() if ignore_case else text


def local_score(metric: MetricConfig, output: str, case: Mapping[str, Any], reference_field: str) -> Score:
    """Every metric but the judge: computed here, no call."""
    if metric.kind == "python":
        return _python_score(metric, output, case)
    reference = case.get(reference_field)
    if reference is None or (isinstance(reference, float) and math.isnan(reference)):
        return Score("error", error=f"the case has no {reference_field!r} to compare with")
    ignore_case = metric.spec["ignore_case"]
    if metric.kind == "exact":
        return Score("ok", float(_norm(output, ignore_case) == _norm(reference, ignore_case)))
    if metric.kind == "contains":
        return Score("ok", float(_norm(reference, ignore_case) in _norm(output, ignore_case)))
    try:
        pattern = re.compile(str(reference), re.IGNORECASE if ignore_case else 0)
    except re.error as exc:
        return Score("error", error=f"the reference is not a valid regular expression: {exc}")
    return Score("ok", float(pattern.search(output) is not None))


_FUNCTIONS: dict[str, Any] = {}


def _python_score(metric: MetricConfig, output: str, case: Mapping[str, Any]) -> Score:
    entry = metric.spec["entry"]
    function = _FUNCTIONS.get(entry) or _FUNCTIONS.setdefault(entry, resolve_callable(entry, "[run.metric]"))
    try:
        value = function(output, dict(case))
    except Exception as exc:  # noqa: BLE001  (a user metric that raises is a hole, never a crash)
        return Score("error", error=f"{type(exc).__name__}: {exc}")
    if isinstance(value, bool):
        return Score("ok", float(value))
    if isinstance(value, int | float) and math.isfinite(value):
        if metric.value == "passed" and value not in (0, 1):
            return Score("error", error=f"the metric returned {value!r}; a 'passed' metric returns 0/1 or a bool")
        return Score("ok", float(value))
    return Score("error", error=f"the metric returned {value!r}, expected a bool or a number")


def judge_prompt(metric: MetricConfig, output: str, case: Mapping[str, Any], reference_field: str) -> str:
    """The rubric with {input}, {output}, {reference} and any case field filled in."""
    values = {**{k: ("" if v is None else v) for k, v in case.items()}, "output": output,
              "reference": case.get(reference_field, "")}
    try:
        return metric.spec["rubric"].format_map(values)
    except (KeyError, ValueError, IndexError) as exc:
        raise ValueError(f"the rubric cannot be filled: {exc}") from None


def parse_judge(metric: MetricConfig, reply: str) -> tuple[str, float | None]:
    """("ok", value) or ("unparseable", None): the pattern's first group read as a verdict or a number."""
    match = re.search(metric.spec["pattern"], reply)
    if match is None or match.group(1) is None:
        return "unparseable", None
    token = match.group(1).strip()
    if metric.value == "passed":
        word = token.casefold()
        if word in PASS_WORDS:
            return "ok", 1.0
        if word in FAIL_WORDS:
            return "ok", 0.0
        return "unparseable", None
    try:
        value = float(token)
    except ValueError:
        return "unparseable", None
    return ("ok", value) if math.isfinite(value) else ("unparseable", None)
