"""The table of metric kinds: a new kind is one module (its keys, ``parse_spec`` and a scorer) and one row here.

- ``parse_spec(raw, base_dir, where) -> (spec, value, judge)``: the kind's keys checked; ``value`` is "passed"
  or "score"; ``judge`` the SystemConfig of the endpoint a judging metric calls (None for a local one);
- ``score(metric, output, case, reference_field) -> Score``: a local metric's score, computed with its cell;
  None for a judge, whose scores the runner asks the judge for (once per distinct output and judge).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from releasegate.errors import RunConfigError
from releasegate.run import judge, python_metric, text_metrics
from releasegate.run.calls import Score
from releasegate.run.spec import MetricConfig, no_unknown, stable_hash, text

Scorer = Callable[[MetricConfig, str, Mapping[str, Any], str], Score]


@dataclass(frozen=True)
class MetricKind:
    name: str
    keys: frozenset[str]
    parse_spec: Callable[[Mapping[str, Any], Path, str], tuple[dict[str, Any], str, Any]]
    score: Scorer | None  # None: the kind calls a judge


METRIC_KINDS: dict[str, MetricKind] = {kind.name: kind for kind in (
    MetricKind("exact", text_metrics.KEYS, text_metrics.parse_spec, text_metrics.score_exact),
    MetricKind("contains", text_metrics.KEYS, text_metrics.parse_spec, text_metrics.score_contains),
    MetricKind("regex", text_metrics.KEYS, text_metrics.parse_spec, text_metrics.score_regex),
    MetricKind("python", python_metric.KEYS, python_metric.parse_spec, python_metric.score),
    MetricKind("judge", judge.KEYS, judge.parse_spec, None),
)}


def parse_metric(raw: Mapping[str, Any], base_dir: Path, where: str) -> MetricConfig:
    kind = METRIC_KINDS.get(raw.get("kind"))  # type: ignore[arg-type]
    if kind is None:
        raise RunConfigError(f"{where}: kind must be one of {', '.join(METRIC_KINDS)}, got {raw.get('kind')!r}")
    no_unknown(raw, {"name", "kind"} | kind.keys, where)
    name = text(raw, "name", "passed", where)
    spec, value, judge_system = kind.parse_spec(raw, base_dir, where)
    return MetricConfig(name=name, kind=kind.name, spec=spec, metric_hash=stable_hash({"kind": kind.name, **spec}),
                        value=value, judge=judge_system)


def local_score(metric: MetricConfig, output: str, case: Mapping[str, Any], reference_field: str) -> Score:
    """The score of a metric that calls nothing (every kind but a judge)."""
    scorer = METRIC_KINDS[metric.kind].score
    if scorer is None:
        raise ValueError(f"metric kind {metric.kind!r} is scored by a judge, not locally")
    return scorer(metric, output, case, reference_field)


def is_judged(metric: MetricConfig) -> bool:
    return METRIC_KINDS[metric.kind].score is None
