"""Metric kind ``python``: ``fn(output, case)`` returning a bool or a number (``value = "score"`` for numbers).

The function's source and ``version`` are part of the metric hash (editing it re-scores; no system is called
again). A function that raises, or returns something else than a bool or a finite number (0/1 for "passed"),
gives a score hole ("error"), never a crash.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from releasegate.run.calls import Score
from releasegate.run.entries import callable_source, resolve_callable
from releasegate.run.spec import MetricConfig, text

KEYS = frozenset({"entry", "version", "value"})

_FUNCTIONS: dict[str, Any] = {}


def parse_spec(raw: Mapping[str, Any], base_dir: Path, where: str) -> tuple[dict[str, Any], str, None]:
    entry = text(raw, "entry", None, where)
    function = resolve_callable(entry, where, base_dir)
    _FUNCTIONS[entry] = function
    value = "score" if text(raw, "value", "passed", where) == "score" else "passed"
    return {"entry": entry, "version": str(raw.get("version", "")), "source": callable_source(function)}, value, None


def score(metric: MetricConfig, output: str, case: Mapping[str, Any], reference_field: str) -> Score:
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
