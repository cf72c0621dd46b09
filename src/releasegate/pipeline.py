"""The one way through: load -> validate -> analyze -> decide, plus the provenance of the run."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from releasegate import __version__
from releasegate.load.results import AdapterOptions, LoadedResults, load_results
from releasegate.load.sources import Source
from releasegate.load.sources import default_title as title_of
from releasegate.model import PolicyFile, Provenance, Report
from releasegate.policy import Policy
from releasegate.provenance import generation_time, package_versions


def run(
    sources: list[Source],
    policy: Policy,
    *,
    cases: Path | None = None,
    options: AdapterOptions | None = None,
    command_line: str = "",
    metrics: tuple[str, ...] = (),
    default_title: str | None = None,
    policy_file: PolicyFile | None = None,
):
    """Load, validate, analyze and decide; the Report holds everything a renderer needs. With two or more
    ``metrics`` (tidy outcome columns) the result is a MetricsReport: every metric's Report and the verdicts
    from all of them. ``default_title`` is the title when the policy sets none (else the inputs' folder name;
    `releasegate verify` gives the note's). ``policy_file``: the file the policy was read from, for the
    provenance."""
    options = options or AdapterOptions()
    title = title_of(sources) if default_title is None else default_title
    loading = loading_record(options, metrics, title)
    tidy_metrics = len(metrics) > 1 or (metrics and "metric" not in options.given())
    several = _several_metric_format(sources, options) if tidy_metrics else None
    if several is not None:
        from releasegate.load.per_metric import load_each_metric

        loaded = load_each_metric(sources, policy.columns, cases, options, tuple(metrics), several)
    else:
        loaded = load_results(sources, columns=policy.columns, cases=cases, options=options,
                              metrics=tuple(metrics) if tidy_metrics else ())
    if tidy_metrics and policy.gold is not None:
        from releasegate.errors import InputError

        raise InputError("gold labels grade one judged metric; with several metrics (--metric) they are not "
                         "read yet: gate the judged metric on its own with --gold")
    if tidy_metrics:
        return run_metrics(loaded, policy, tuple(metrics), command_line=command_line, default_title=title,
                           loading=loading, policy_file=policy_file)
    return run_loaded(loaded, policy, command_line=command_line, default_title=title, loading=loading,
                      policy_file=policy_file)


def loading_record(options: AdapterOptions, metrics: tuple[str, ...] = (), default_title: str = "") -> dict:
    """How the inputs were read, for the provenance (JSON ``loading``): with the policy, everything a rerun needs
    besides the files themselves (:func:`rerun_arguments` reads it back)."""
    return {"format": options.format, "options": dict(sorted(options.given().items())), "wide": options.wide,
            "release_cols": list(options.release_cols), "latency_unit": options.latency_unit,
            "drop_holes": options.drop_holes, "metrics": list(metrics), "default_title": default_title}


def rerun_arguments(loading: dict) -> dict:
    """:func:`loading_record`'s record as the keyword arguments of :func:`run` (options, metrics, default title)."""
    options = AdapterOptions(format=loading.get("format", "auto"), values=dict(loading.get("options") or {}),
                             wide=bool(loading.get("wide")), release_cols=tuple(loading.get("release_cols") or ()),
                             latency_unit=loading.get("latency_unit", "ms"),
                             drop_holes=bool(loading.get("drop_holes")))
    return {"options": options, "metrics": tuple(loading.get("metrics") or ()),
            "default_title": loading.get("default_title")}


def run_loaded(loaded: LoadedResults, policy: Policy, *, command_line: str = "", default_title: str = "",
               loading: dict | None = None, policy_file: PolicyFile | None = None) -> Report:
    """The pipeline after loading (validate, analyze, decide, provenance), for files and in-memory tables alike."""
    from releasegate.analyze import analyze
    from releasegate.decide import decide
    from releasegate.validate import validate

    policy, loaded = recorded_baseline(policy, loaded)
    data = validate(loaded.table, policy, loaded.metadata_columns)
    if loaded.notes:  # what loading dropped or recorded (e.g. a run store's holes) is said in the report
        data = dataclasses.replace(data, notes=(*loaded.notes, *data.notes))
    inputs = loaded.inputs
    gold = None
    if policy.gold is not None:  # human labels of the judged outcomes (issue 35): read, checked, recorded
        from releasegate.load.gold import load_gold
        from releasegate.validate_gold import validate_gold

        loaded_gold = load_gold(policy.gold)
        gold = validate_gold(loaded_gold.table, data, policy.gold)
        inputs = (*inputs, loaded_gold.input)
    # The validated table holds the identity columns as categorical codes; the loaded one's text columns
    # (about 90 MB per million rows) are freed here unless the caller keeps them.
    del loaded
    analysis = analyze(data, policy, gold=gold)
    verdicts = decide(analysis, policy)
    provenance = Provenance(
        tool_version=__version__,
        command_line=command_line,
        inputs=inputs,
        policy=policy.as_dict(),
        packages=package_versions(),
        generated_at=generation_time(),
        title=policy.title or default_title,
        loading=loading if loading is not None else loading_record(AdapterOptions(), (), default_title),
        policy_file=policy_file,
    )
    return Report(analysis, verdicts, provenance)


def recorded_baseline(policy: Policy, loaded: LoadedResults) -> tuple[Policy, LoadedResults]:
    """No baseline given, and the input records one (a sweep's run store): that one, said in the notes."""
    if policy.baseline is not None or loaded.baseline is None:
        return policy, loaded
    note = f"Baseline {loaded.baseline}: the one the sweep in the run store was ranked against (no --baseline given)."
    return (dataclasses.replace(policy, baseline=loaded.baseline),
            dataclasses.replace(loaded, notes=(*loaded.notes, note)))


# --------------------------------------------------------------------------------------------------------
# several metrics (--metric NAME, repeatable; policy [metrics.NAME])

METRIC_KINDS = ("auto", "pass_fail", "score")
METRIC_KEYS = ("kind", "direction", "margin", "pass_threshold", "critical")
_NOT_METRICS = {"passed", "score", "release", "case_id", "category", "cluster", "run", "latency_ms", "input_tokens", "output_tokens",
                "cost", "error", "doc_hash"}


def input_formats(sources: list[Source], options: AdapterOptions | str) -> set[str]:
    """The formats of the inputs (a file that cannot be sniffed is left to loading to name); ``options`` may be
    the ``--format`` given alone."""
    given = options if isinstance(options, str) else options.format
    if given != "auto":
        return {given}
    from releasegate.errors import InputError
    from releasegate.load.adapters import detect_format
    from releasegate.load.directories import expand_sources

    found = set()
    for source in sources:
        try:
            found.update(detect_format(one.path) for one in expand_sources([source]) if one.path.is_file())
        except (InputError, OSError):
            continue  # loading names the problem with this input
    return found


def _several_metric_format(sources: list[Source], options: AdapterOptions) -> str | None:
    """The format whose one file holds several metrics, read once per metric (load/per_metric.py), or None."""
    from releasegate.errors import InputError
    from releasegate.load.per_metric import METRIC_OPTIONS

    found = input_formats(sources, options) & set(METRIC_OPTIONS)
    if len(found) > 1:
        raise InputError(f"--metric with several metrics reads one harness at a time; the inputs are "
                         f"{' and '.join(sorted(found))}")
    return found.pop() if found else None


def _widen(loaded: LoadedResults) -> LoadedResults:
    """A long layout (one row per release, case[, run] and metric, the outcome in passed or score) becomes one
    column per metric; an error on any metric's row marks the case's cell errored (kept as its message)."""
    import pandas as pd

    from releasegate.errors import InputError

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


def check_metrics(metrics: tuple[str, ...], columns, policy: Policy) -> None:
    """A metric named twice, a metric that matches no column (listing what exists) or a policy for a metric
    not in the data is refused with one line."""
    from releasegate.errors import InputError

    seen = set()
    for name in metrics:
        if name in seen:
            raise InputError(f"metric {name!r} is given twice (--metric {name})")
        seen.add(name)
    present = [str(c) for c in columns if str(c) not in _NOT_METRICS]
    for name in metrics:
        if name not in present:
            raise InputError(f"metric {name!r} matches no column; columns that could be metrics: "
                             f"{', '.join(present) or 'none'}")
    unknown = sorted(set(policy.metrics) - seen)
    if unknown:
        raise InputError(f"policy [metrics.{unknown[0]}]: no such metric among the ones gated "
                         f"({', '.join(metrics)}); name it with --metric {unknown[0]} or remove the table")


def _metric_table(loaded: LoadedResults, metric: str, others: tuple[str, ...], policy: Policy):
    """The loaded table with ``metric`` as its one outcome (passed or score by its kind) and the policy of a
    single-metric run of it."""
    import dataclasses

    from releasegate.errors import InputError
    from releasegate.validate import parse_passed

    spec = dict(policy.metrics.get(metric, {}))
    table = loaded.table.drop(columns=[c for c in ("passed", "score", *others) if c in loaded.table.columns])
    values = loaded.table[metric]
    kind = spec.get("kind", "auto")
    if kind == "auto":
        try:
            parse_passed(values.rename(metric))
            kind = "pass_fail"
        except InputError:
            kind = "score"
    if kind == "pass_fail":
        if spec.get("direction", "higher") != "higher":
            raise InputError(f"[metrics.{metric}]: direction = \"lower\" needs kind = \"score\" (a pass is better)")
        table["passed"] = values.to_numpy()
    else:
        numbers = values if spec.get("direction", "higher") == "higher" else -values.astype(float)
        table["score"] = numbers.to_numpy()
    overrides = {k: spec[k] for k in ("margin", "pass_threshold") if k in spec}
    if spec.get("direction") == "lower" and "pass_threshold" in overrides:
        overrides["pass_threshold"] = -overrides["pass_threshold"]  # scores are negated: lower is better
    columns = {k: v for k, v in policy.columns.items() if k not in ("passed", "score")}
    single = dataclasses.replace(policy, metrics={}, columns=columns, **overrides)
    metadata = tuple(c for c in loaded.metadata_columns if c != metric and c not in others)
    return dataclasses.replace(loaded, table=table, metadata_columns=metadata), single


def critical_metric_policy(single: Policy, data) -> Policy:
    """A critical metric's policy: the named critical categories and every category of its data."""
    import dataclasses

    found = [str(c) for c in data.table["category"].cat.categories] if data.has_categories else []
    return dataclasses.replace(single, critical=tuple(dict.fromkeys((*single.critical, *found))))


def run_metrics(loaded: LoadedResults, policy: Policy, metrics: tuple[str, ...], *, command_line: str = "",
                default_title: str = "", loading: dict | None = None, policy_file: PolicyFile | None = None):
    """Every metric's single-metric run with the correction across metrics, and one verdict per candidate."""
    import dataclasses

    from releasegate.analyze import analyze
    from releasegate.analyze.metrics import across_metrics
    from releasegate.decide import decide
    from releasegate.decide.metrics import combine
    from releasegate.model import MetricsReport
    from releasegate.validate import validate

    loaded = _widen(loaded)
    policy, loaded = recorded_baseline(policy, loaded)
    if "success" in metrics and "success" not in loaded.table.columns and \
            any(f.format == "promptfoo" for f in loaded.inputs):
        loaded = dataclasses.replace(loaded, table=loaded.table.assign(success=loaded.table["passed"]))
    check_metrics(metrics, loaded.table.columns, policy)
    reports = []
    for metric in metrics:
        others = tuple(m for m in metrics if m != metric)
        one, single = _metric_table(loaded, metric, others, policy)
        data = validate(one.table, single, one.metadata_columns)
        if loaded.notes:
            data = dataclasses.replace(data, notes=(*loaded.notes, *data.notes))
        critical = policy.metrics.get(metric, {}).get("critical") is True
        if critical:  # every category of a critical metric is a critical category (docs/policy.md, metrics)
            single = critical_metric_policy(single, data)
        # The across-metric correction scales the regression rules' adjusted p; the critical tests are read
        # unadjusted across metrics, as a critical category's are within its metric's budget.
        analysis = across_metrics(analyze(data, single, critical_whole=critical), len(metrics))
        provenance = Provenance(
            tool_version=__version__, command_line=command_line, inputs=loaded.metric_inputs.get(metric, loaded.inputs),
            policy={**policy.as_dict(), "metric": metric}, packages=package_versions(),
            generated_at=generation_time(), title=f"{policy.title or default_title}: {metric}",
            loading=loading if loading is not None else loading_record(AdapterOptions(), metrics, default_title),
            policy_file=policy_file)
        reports.append(Report(analysis, decide(analysis, single), provenance))
    reports = tuple(reports)
    return MetricsReport(tuple(metrics), reports, combine(tuple(metrics), reports))
