"""Stage 2 for the metrics gated: the loaded table -> one validated table per metric, each with the policy of its
own single-metric run.

Without ``--metric`` the one metric is the table's outcome column (passed or score) and the run is validation's
alone. With ``--metric NAME`` (repeatable) the loaded table holds one column per metric (load/per_metric.py); each
becomes the outcome of its own table (pass/fail or score by its kind, negated when lower is better) under the
policy's ``[metrics.NAME]`` overrides. The ``[metrics.NAME]`` tables' keys and values are checked with the policy
(:class:`releasegate.policy.MetricSpec`); here, that each names a metric gated (a table for a metric that is not
gated would change nothing silently, so it is refused).
"""

from __future__ import annotations

import dataclasses
import difflib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from releasegate.errors import InputError
from releasegate.kinds import MetricKind
from releasegate.model import CriticalScope, InputExclusion
from releasegate.policy import KEYS, MetricSpec, Policy
from releasegate.validate.outcomes import parse_passed, parse_score
from releasegate.validate.results import ValidatedResults, validate

if TYPE_CHECKING:
    import pandas as pd

# Columns with a role of their own: never a metric (passed and score are: --metric passed gates that column).
NOT_METRICS = frozenset({"release", "case_id", "category", "cluster", "run", "latency_ms", "input_tokens",
                         "output_tokens", "cost", "error", "doc_hash", "metric", "content_hash", "id_is_position",
                         "content_kind"})


# Scores whose name says lower is better (issue 28 item 7): gated as "higher is better" they would call a slower,
# costlier or more toxic release an improvement, so such a name needs its direction said before it is gated.
LOWER_IS_BETTER_WORDS = frozenset({"lat", "latency", "loss", "error", "errors", "err", "toxicity", "toxic",
                                   "perplexity", "ppl", "wer", "cer", "cost", "costs", "duration", "time", "ms"})


def reads_lower_is_better(name: str) -> str | None:
    """The word of a metric's name that says lower is better (``p95_latency`` -> ``latency``), or None."""
    words = re.findall(r"[a-z]+", name.lower())
    return next((w for w in words if w in LOWER_IS_BETTER_WORDS), None)


def assumed_direction(name: str, stated: bool, scored: bool, gated: bool) -> tuple[str, ...]:
    """The note that the score ``name`` (the file's column) is read as higher-is-better because nothing said so,
    or a refusal when its name says otherwise. ``stated``: the harness or the policy gave the direction;
    ``scored``: the outcome is a score (a pass is better whatever its name); ``gated``: named with --metric (only
    a gated metric takes a ``[metrics.NAME]`` direction)."""
    if stated or not scored:
        return ()
    word = reads_lower_is_better(name)
    if word is not None:
        where = f"[metrics.{name}] direction = \"lower\" (or \"higher\") in the policy"
        raise InputError(f"score {name!r} reads as lower-is-better ({word!r}) and nothing says which way is better; "
                         f"say so with {where if gated else f'--metric {name} and {where}'}")
    return (f"{name}: higher is better (assumed; nothing in the input or the policy says which way is better)",)


NO_SPEC = MetricSpec()  # a metric the policy has no [metrics.NAME] table for


@dataclass(frozen=True)
class MetricTable:
    """One metric's validated table, the policy of its single-metric run, and what its critical test reads
    (``critical``: the policy's critical categories, and for a critical metric, ``[metrics.NAME] critical =
    true``, every category found in its table and every case)."""

    metric: str
    data: ValidatedResults
    policy: Policy
    critical: CriticalScope


def metric_tables(table: pd.DataFrame, metadata_columns: tuple[str, ...], policy: Policy, metrics: tuple[str, ...],
                  notes: tuple[str, ...] = (), stated: frozenset[str] = frozenset(),
                  case_columns: tuple[str, ...] = (), excluded: tuple[InputExclusion, ...] = ()
                  ) -> tuple[MetricTable, ...]:
    """The validated table of each metric gated, in the order given (``metrics`` empty: the outcome column's
    alone); every name and ``[metrics.NAME]`` table is checked before the first table is made. ``notes`` (what
    loading dropped or recorded) open each table's notes, and ``excluded`` (what loading left out of every
    comparison) its exclusions. ``stated``: the metrics whose direction the inputs
    state (a harness's higher_is_better, or its convention; ``""`` for the outcome column without --metric): a
    score whose direction nothing states is read as higher-is-better, said in its notes, unless its name says
    lower is better, which is refused (:func:`assumed_direction`). ``case_columns``: the columns a case table
    joined (validate.validate)."""
    if not metrics:
        data = _with_notes(validate(table, policy, metadata_columns, case_columns), notes, excluded)
        refuse_ungated_tables(policy.metrics, ())
        column = policy.columns.get(data.outcome_column, data.outcome_column)
        direction = assumed_direction(column, "" in stated, data.outcome_column == "score", gated=False)
        return (MetricTable(data.outcome_column, _with_notes(data, direction), policy, critical_scope(data, policy)),)
    check_metrics(metrics, table, policy)
    out = []
    for metric in metrics:
        others = tuple(m for m in metrics if m != metric)
        one, metadata, single = _metric_table(table, metadata_columns, metric, others, policy)
        spec = policy.metrics.get(metric, NO_SPEC)
        direction = ((f"{metric}: {spec.direction} is better (the policy's [metrics.{metric}] direction)",)
                     if spec.direction else
                     assumed_direction(metric, metric in stated, "score" in one.columns, gated=True))
        try:
            validated = validate(one, single, metadata, case_columns)
        except InputError as exc:  # with several metrics the line names the one whose outcomes it is about
            if str(exc).startswith(f"metric {metric!r}"):
                raise
            raise type(exc)(f"metric {metric!r}: {exc}") from None
        data = _with_notes(validated, (*notes, *direction), excluded)
        out.append(MetricTable(metric, data, single, critical_scope(data, single, whole=spec.critical is True)))
    return tuple(out)


def critical_scope(data: ValidatedResults, policy: Policy, whole: bool = False) -> CriticalScope:
    """The critical categories of a metric's table: the policy's, and with ``whole`` (a critical metric) every
    category the table has after them (docs/policy.md, metrics)."""
    if not whole:
        return CriticalScope(tuple(policy.critical))
    found = [str(c) for c in data.table["category"].cat.categories] if data.has_categories else []
    return CriticalScope(tuple(dict.fromkeys((*policy.critical, *found))), metric=True)


def _with_notes(data: ValidatedResults, notes: tuple[str, ...],
                excluded: tuple[InputExclusion, ...] = ()) -> ValidatedResults:
    if excluded:
        data = dataclasses.replace(data, excluded=(*excluded, *data.excluded))
    return dataclasses.replace(data, notes=(*notes, *data.notes)) if notes else data


def refuse_ungated_tables(tables: Mapping[str, Any], metrics: tuple[str, ...]) -> None:
    """A ``[metrics.NAME]`` table (``tables``, the policy's) for a metric this run does not gate is refused,
    naming the way to gate it."""
    unknown = sorted(set(tables) - set(metrics))
    if not unknown:
        return
    gated = f"({', '.join(metrics)})" if metrics else "(none is named: the outcome column is gated alone)"
    raise InputError(f"policy [metrics.{unknown[0]}]: no such metric among the ones gated {gated}; "
                     f"name it with --metric {unknown[0]} or remove the table")


def could_be_metric(values: pd.Series) -> bool:
    """Whether a column holds pass/fail values or numbers (and at least one value)."""
    if not values.notna().any():
        return False
    for parse in (parse_passed, parse_score):
        try:
            parse(values.rename("metric"))
            return True
        except InputError:
            continue
    return False


def metric_columns(table: pd.DataFrame) -> list[str]:
    """The columns that could be metrics, in table order (asked only to say what --metric could name)."""
    return [str(c) for c in table.columns if str(c) not in NOT_METRICS and could_be_metric(table[c])]


def check_metrics(metrics: tuple[str, ...], table: pd.DataFrame, policy: Policy) -> None:
    """A metric named twice, one that matches no column or names a column of text (listing the columns that could
    be metrics, the closest first), or a policy table for a metric not gated is refused with one line."""
    seen: set[str] = set()
    for name in metrics:
        if name in seen:
            raise InputError(f"metric {name!r} is given twice (--metric {name})")
        seen.add(name)
    columns = {str(c) for c in table.columns}
    for name in metrics:
        if name in columns and name not in NOT_METRICS and could_be_metric(table[name]):
            continue
        possible = metric_columns(table)
        close = difflib.get_close_matches(name, possible, n=1, cutoff=0.6) if name not in columns else []
        what = ("matches no column" if name not in columns else
                "is a column of its own role, not a metric" if name in NOT_METRICS else
                "holds neither pass/fail values nor numbers")
        hint = f"; closest match {close[0]!r}" if close else ""
        raise InputError(f"metric {name!r} {what}{hint}; columns that could be metrics: {', '.join(possible) or 'none'}")
    refuse_ungated_tables(policy.metrics, metrics)


def _metric_table(table: pd.DataFrame, metadata_columns: tuple[str, ...], metric: str, others: tuple[str, ...], policy: Policy):
    """The table with ``metric`` as its one outcome (passed or score by its kind), its metadata columns, and the
    policy of a single-metric run of it."""
    spec = policy.metrics.get(metric, NO_SPEC)
    values = table[metric]
    # Selected, not dropped: a drop leaves a block per column (thousands for a wide file), and adding the
    # outcome to that warned on stderr (pandas' PerformanceWarning).
    gone = {"passed", "score", metric, *others}
    one = table[[c for c in table.columns if c not in gone]]
    kind: MetricKind = spec.kind or "auto"
    if kind == "auto":
        try:
            parse_passed(values.rename(metric))
            kind = "pass_fail"
        except InputError:
            kind = "score"
    lower = spec.direction == "lower"
    if kind == "pass_fail":
        if lower:
            raise InputError(f"[metrics.{metric}]: direction = \"lower\" needs kind = \"score\" (a pass is better)")
        one["passed"] = values.to_numpy()
    else:
        one["score"] = (-values.astype(float) if lower else values).to_numpy()
    # The keys the table sets for this metric (their rows say per_metric); a level on the score axis (a
    # threshold) is negated with the scores where lower is better, a size (a margin) is not.
    levels = {row.name for row in KEYS if row.per_metric == "level"}
    overrides = {k: -v if lower and k in levels and v is not None else v for k, v in spec.overrides.items()}
    columns = {k: v for k, v in policy.columns.items() if k not in ("passed", "score")}
    single = dataclasses.replace(policy, metrics={}, columns=columns, **overrides)
    metadata = tuple(c for c in metadata_columns if c != metric and c not in others)
    return one, metadata, single


