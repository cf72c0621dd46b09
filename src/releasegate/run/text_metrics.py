"""Metric kinds ``exact``, ``contains`` and ``regex``: the output against the case's reference field, no call.

``exact`` compares with whitespace collapsed, ``contains`` looks for the reference in the output, ``regex``
searches the output with the reference as the pattern; ``ignore_case`` for all three. A case without a
reference, or a reference that is not a valid pattern, is a score hole ("error"), never a pass or a fail.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from releasegate.run.calls import Score
from releasegate.run.spec import MetricConfig, boolean

KEYS = frozenset({"ignore_case"})


def parse_spec(raw: Mapping[str, Any], base_dir: Path, where: str) -> tuple[dict[str, Any], str, None]:
    return {"ignore_case": boolean(raw, "ignore_case", False, where)}, "passed", None


def _norm(text: str, ignore_case: bool) -> str:
    text = " ".join(str(text).split())
    return text.casefold() if ignore_case else text


def _reference(case: Mapping[str, Any], reference_field: str) -> str | None:
    reference = case.get(reference_field)
    if reference is None or (isinstance(reference, float) and math.isnan(reference)):
        return None
    return str(reference)


def score_exact(metric: MetricConfig, output: str, case: Mapping[str, Any], reference_field: str) -> Score:
    reference = _reference(case, reference_field)
    if reference is None:
        return _no_reference(reference_field)
    ignore_case = metric.spec["ignore_case"]
    return Score("ok", float(_norm(output, ignore_case) == _norm(reference, ignore_case)))


def score_contains(metric: MetricConfig, output: str, case: Mapping[str, Any], reference_field: str) -> Score:
    reference = _reference(case, reference_field)
    if reference is None:
        return _no_reference(reference_field)
    ignore_case = metric.spec["ignore_case"]
    return Score("ok", float(_norm(reference, ignore_case) in _norm(output, ignore_case)))


def score_regex(metric: MetricConfig, output: str, case: Mapping[str, Any], reference_field: str) -> Score:
    reference = _reference(case, reference_field)
    if reference is None:
        return _no_reference(reference_field)
    try:
        pattern = re.compile(reference, re.IGNORECASE if metric.spec["ignore_case"] else 0)
    except re.error as exc:
        return Score("error", error=f"the reference is not a valid regular expression: {exc}")
    return Score("ok", float(pattern.search(output) is not None))


def _no_reference(reference_field: str) -> Score:
    return Score("error", error=f"the case has no {reference_field!r} to compare with")
