"""Harness files whose one file holds several metrics, gated on several at once (``--metric``, issue 16): an
Inspect log's scorers, an lm-eval samples file's metrics under its filters. The inputs are read once per metric
with that metric chosen through the adapter's own options, and each reading's outcome becomes a column named
after the metric beside the first reading's columns, so every metric is exactly its single-metric reading.

How a metric name becomes adapter options is one row of :data:`METRIC_OPTIONS` per format:

- Inspect: ``scorer`` or ``scorer/key`` is the ``scorer`` option.
- lm-eval: ``acc`` is the ``metric`` option (the ``--filter`` given, else the file's first filter);
  ``exact_match,strict-match`` is lm-eval's own ``metric,filter`` key (results*.json writes it so), the metric
  under that filter; ``TASK=METRIC,...`` pairs keep their per-task meaning.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

from releasegate.errors import InputError
from releasegate.load.results import AdapterOptions, LoadedResults, load_results


def _inspect(metric: str, given: Mapping[str, Any]) -> dict[str, Any]:
    if "scorer" in given:
        raise InputError("--scorer and --metric both name Inspect scorers; name every scorer with --metric")
    return {"scorer": metric}


def lm_eval_choice(metric: str, given: Mapping[str, Any]) -> dict[str, Any]:
    """The lm-eval options of one ``--metric``: ``NAME`` or ``NAME,FILTER`` (a ``=`` means TASK=METRIC pairs)."""
    if "metric" in given:
        raise InputError("--metric names lm-eval metrics once: give each as --metric NAME or NAME,FILTER")
    if "=" in metric or "," not in metric:
        return {"metric": metric}
    name, _, filter_name = metric.partition(",")
    if not name.strip() or not filter_name.strip() or "," in filter_name:
        raise InputError(f"--metric {metric!r}: an lm-eval metric under a filter is NAME,FILTER "
                         "(exact_match,strict-match)")
    if "filter_name" in given:
        raise InputError(f"--metric {metric!r} names its filter and --filter names another; name the filter once")
    return {"metric": name.strip(), "filter_name": filter_name.strip()}


# format -> (the metric's adapter options from the name and the options given)
METRIC_OPTIONS: dict[str, Callable[[str, Mapping[str, Any]], dict[str, Any]]] = {
    "inspect": _inspect,
    "lm-eval": lm_eval_choice,
}
_KEYS = ("release", "case_id", "run")


def load_each_metric(sources, columns: Mapping[str, str], cases, options: AdapterOptions,
                     metrics: tuple[str, ...], fmt: str) -> LoadedResults:
    """The inputs (all of format ``fmt``) read once per metric; each metric's outcome (passed, else score) is a
    column named after it. Readings that do not hold the same rows in the same order are refused."""
    choose = METRIC_OPTIONS[fmt]
    given = options.given()
    first, keys = None, []
    inputs: dict[str, tuple] = {}
    notes: list[str] = []
    for metric in dict.fromkeys(metrics):
        chosen = dataclasses.replace(options, values={**options.values, **choose(metric, given)})
        loaded = load_results(sources, columns=columns, cases=cases, options=chosen)
        table = loaded.table
        outcome = table["passed"] if "passed" in table.columns else table["score"]
        if first is None:
            keys = [k for k in _KEYS if k in table.columns]
            first = dataclasses.replace(loaded, table=table.drop(columns=["passed", "score"], errors="ignore"))
        elif not first.table[keys].reset_index(drop=True).equals(table[keys].reset_index(drop=True)):
            raise InputError(f"metric {metric!r} does not score the same cases as {metrics[0]!r}")
        first.table[metric] = outcome.to_numpy()
        inputs[metric] = loaded.inputs  # what this metric's reading chose (issue 31, item 6)
        notes += [n for n in loaded.notes if n not in notes]  # e.g. each metric's direction
    return dataclasses.replace(first, metric_inputs=inputs, notes=tuple(notes))


def reads_lm_eval(sources, input_format: str) -> bool:
    """Whether an input is lm-eval output, whose --metric names one of its metrics (not a column)."""
    if input_format != "auto":
        return input_format == "lm-eval"
    from releasegate.load.adapters import detect_format
    from releasegate.load.directories import expand_sources

    for source in sources:
        try:
            for one in expand_sources([source]) if source.path.exists() else ():
                if one.path.is_file() and detect_format(one.path) == "lm-eval":
                    return True
        except (InputError, OSError):
            continue  # loading names the problem with this file
    return False
