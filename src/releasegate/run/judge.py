"""Metric kind ``judge``: a rubric sent to a judge (any system kind), its reply read by a pattern.

The rubric is filled with {input}, {output}, {reference} and any case field; the pattern's first group is the
verdict (pass/yes/true/correct/1, fail/no/false/incorrect/0) or, with ``value = "score"``, a number. A reply the
pattern cannot read is a hole ("unparseable"), never a score; it is asked again on the next resume. The judge
is an endpoint like the systems (its own limits); each distinct (output hash, judge hash) is asked once.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from releasegate.errors import RunConfigError
from releasegate.run.spec import MetricConfig, SystemConfig, template_fields, text, text_or_file
from releasegate.run.system_kinds import parse_system

KEYS = frozenset({"rubric", "rubric_file", "pattern", "value", "system"})
DEFAULT_PATTERN = r"(?i)\b(PASS|FAIL)\b"
PASS_WORDS = {"pass", "yes", "true", "correct", "1"}
FAIL_WORDS = {"fail", "no", "false", "incorrect", "0"}
# The rubric's own placeholders, beside the case's fields.
RUBRIC_FIELDS = ("output", "reference")


def parse_spec(raw: Mapping[str, Any], base_dir: Path, where: str) -> tuple[dict[str, Any], str, SystemConfig]:
    value = text(raw, "value", "passed", where)
    if value not in ("passed", "score"):
        raise RunConfigError(f"{where}: value must be 'passed' or 'score', got {value!r}")
    pattern = text(raw, "pattern", DEFAULT_PATTERN, where)
    try:
        compiled = re.compile(pattern)
    except re.error as exc:
        raise RunConfigError(f"{where}: pattern is not a valid regular expression: {exc}") from None
    if compiled.groups < 1:
        raise RunConfigError(f"{where}: pattern must have one group holding the verdict or the score")
    if not isinstance(raw.get("system"), Mapping):
        raise RunConfigError(f"{where}: a judge needs a [run.metric.system] table (the judge's endpoint)")
    judge = parse_system({"name": "judge", **raw["system"]}, base_dir, f"{where}.system")
    rubric = text_or_file(raw, "rubric", base_dir, where, None)
    template_fields(rubric, where, "rubric")
    spec = {"rubric": rubric, "pattern": pattern, "value": value, "judge_system": judge.system_hash}
    return spec, value, judge


def rubric_case_fields(metric: MetricConfig) -> tuple[str, ...]:
    """The case fields the rubric reads (its own placeholders aside)."""
    fields = template_fields(metric.spec["rubric"], "[run.metric]", "rubric")
    return tuple(f for f in fields if f not in RUBRIC_FIELDS)


def judge_prompt(metric: MetricConfig, output: str, case: Mapping[str, Any], reference_field: str) -> str:
    """The rubric with {input}, {output}, {reference} and any case field filled in."""
    values = {**{k: ("" if v is None else v) for k, v in case.items()}, "output": output,
              "reference": case.get(reference_field, "")}
    try:
        return metric.spec["rubric"].format_map(values)
    except (KeyError, ValueError, IndexError, TypeError, AttributeError) as exc:
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
