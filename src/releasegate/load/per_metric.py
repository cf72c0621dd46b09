"""The metrics gated (``--metric NAME``, repeatable; the API's ``metric=[...]``) as one column each, whatever the
layout that holds them, so that validation (releasegate/validate/metric_tables.py) hands the analysis one table per metric:

- tidy outcome columns (``correct``, ``safe``): read as they are;
- a long layout (one row per release, case[, run] and metric, the outcome in passed or score, the metric's name
  in a ``metric`` column): one column per metric (:func:`widen`);
- promptfoo named metrics are columns already; its ``success`` is the file's pass/fail (``passed``);
- harness files whose one file holds several metrics, an Inspect log's scorers, an lm-eval samples file's
  metrics under its filters: read once per metric with that metric chosen through the adapter's own options
  (:func:`load_each_metric`), so every metric is exactly its single-metric reading.

How a metric name becomes adapter options is one row of :data:`METRIC_OPTIONS` per format:

- Inspect: ``scorer`` or ``scorer/key`` is the ``scorer`` option.
- lm-eval: ``acc`` is the ``metric`` option (the ``--filter`` given, else the file's first filter);
  ``exact_match,strict-match`` is lm-eval's own ``metric,filter`` key (results*.json writes it so), the metric
  under that filter; ``TASK=METRIC,...`` pairs keep their per-task meaning.

Each input's format is detected once and each directory expanded once (load.results.resolve_inputs), however
many metrics are read from it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from releasegate.errors import InputError
from releasegate.load.results import AdapterOptions, LoadedResults, ResolvedInput, load_results, resolve_inputs
from releasegate.load.sources import Source
from releasegate.model import InputFile

if TYPE_CHECKING:
    import pandas as pd


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


def load_gated(sources: list[Source], *, columns: Mapping[str, str] | None = None,
               cases: Path | pd.DataFrame | None = None,
               options: AdapterOptions | None = None, metrics: tuple[str, ...] = ()) -> LoadedResults:
    """Read the inputs with every metric of ``metrics`` as a column of its own (none: the passed or score
    column is the one outcome, as without ``--metric``)."""
    options = options or AdapterOptions()
    resolved = resolve_inputs(sources, options)
    if not metrics:
        return load_results(sources, columns=columns, cases=cases, options=options, resolved=resolved)
    several = {one.format for one in resolved} & set(METRIC_OPTIONS)
    if len(several) > 1:
        raise InputError(f"--metric reads one harness at a time; the inputs are {' and '.join(sorted(several))}")
    if several:
        loaded = load_each_metric(resolved, columns or {}, cases, options, metrics, several.pop())
    else:
        loaded = load_results(sources, columns=columns, cases=cases, options=options, metrics=metrics,
                              resolved=resolved)
    return gated_columns(loaded, metrics)


def gated_columns(loaded: LoadedResults, metrics: tuple[str, ...]) -> LoadedResults:
    """The loaded table with one column per metric gated (a long layout widened, promptfoo's ``success`` named),
    ``metrics`` recorded; the files and DataFrames of the API alike."""
    loaded = widen(loaded)
    if "success" in metrics and "success" not in loaded.table.columns and "passed" in loaded.table.columns and \
            any(f.format == "promptfoo" for f in loaded.inputs):
        loaded = dataclasses.replace(loaded, table=loaded.table.assign(success=loaded.table["passed"]))
    return dataclasses.replace(loaded, metrics=tuple(metrics))


def load_each_metric(resolved: tuple[ResolvedInput, ...], columns: Mapping[str, str], cases,
                     options: AdapterOptions, metrics: tuple[str, ...], fmt: str) -> LoadedResults:
    """The inputs (all of format ``fmt``) read once per metric; each metric's outcome (passed, else score) is a
    column named after it. Readings that do not hold the same rows in the same order are refused."""
    choose = METRIC_OPTIONS[fmt]
    given = options.given()
    first, keys = None, []
    sources = [one.source for one in resolved]
    inputs: dict[str, tuple[InputFile, ...]] = {}
    notes: list[str] = []
    for metric in dict.fromkeys(metrics):
        chosen = dataclasses.replace(options, values={**options.values, **choose(metric, given)})
        loaded = load_results(sources, columns=columns, cases=cases, options=chosen, resolved=resolved)
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
    assert first is not None  # metrics is not empty
    return dataclasses.replace(first, metric_inputs=inputs, notes=tuple(notes))


def widen(loaded: LoadedResults) -> LoadedResults:
    """A long layout (one row per release, case[, run] and metric, the outcome in passed or score) becomes one
    column per metric; an error on any metric's row marks the case's cell errored (kept as its message)."""
    import pandas as pd

    table = loaded.table
    if "metric" not in table.columns:
        return loaded
    outcome = "passed" if "passed" in table.columns else "score"
    keys = ["release", "case_id"] + (["run"] if "run" in table.columns else [])
    names = [str(x) for x in pd.unique(table["metric"].astype(str))]
    if any(c in table.columns for c in names):
        raise InputError(f"the metric column names {', '.join(names)}, and some of these are also columns")
    if table.duplicated(subset=[*keys, "metric"]).any():
        raise InputError(f"duplicate ({', '.join(keys)}, metric) rows in the long layout")
    rest = table.drop(columns=["metric", "passed", "score"], errors="ignore")
    wide = rest.drop_duplicates(subset=keys).set_index(keys)
    by_metric = table.set_index([*keys, "metric"])[outcome]
    for name in names:
        wide[name] = by_metric.xs(name, level="metric").reindex(wide.index)
    if "error" in table.columns:
        text = table["error"].astype(object).where(table["error"].notna(), "").astype(str).str.strip()
        errors = table.assign(error=text)[text != ""].groupby(keys)["error"].first()
        wide["error"] = errors.reindex(wide.index)
    metadata = tuple(c for c in loaded.metadata_columns if c != "metric")
    return dataclasses.replace(loaded, table=wide.reset_index(), metadata_columns=metadata)
