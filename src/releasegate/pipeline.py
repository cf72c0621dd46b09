"""The one way through: load -> validate -> analyze -> decide, plus the provenance of the run.

The command line (:mod:`releasegate.cli`) and the notebook API (:mod:`releasegate.api`) both call it: :func:`run`
from files, :func:`run_loaded` once the results are loaded (the API's DataFrames). Every run gates one or more
metrics (``metrics`` empty: the outcome column alone) and returns one Report with a section per metric.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from releasegate import __version__
from releasegate.errors import InputError
from releasegate.load.results import AdapterOptions, LoadedResults
from releasegate.load.sources import Source
from releasegate.load.sources import default_title as title_of
from releasegate.model import InputFile, MetricSection, PolicyFile, Provenance, Report
from releasegate.model.budget import PreviousLook
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
    previous: Mapping[str, PreviousLook] | None = None,
) -> Report:
    """Load, validate, analyze and decide; the Report holds everything a renderer needs. ``metrics`` names the
    metrics gated (``--metric``: tidy columns, a long layout's metric column, Inspect scorers, promptfoo named
    metrics, lm-eval metrics); each is one section of the Report. ``default_title`` is the title when the policy
    sets none (else the name the inputs give what they evaluate, load.sources.default_title; `releasegate verify`
    gives the note's). ``policy_file``: the file the policy was read from, for the provenance. ``previous``:
    earlier looks at the same baseline and candidates (``--previous NOTE``), by candidate."""
    from releasegate.load.per_metric import load_gated

    options = options or AdapterOptions()
    loaded = load_gated(sources, columns=policy.columns, cases=cases, options=options, metrics=tuple(metrics))
    title = title_of(sources, loaded.names) if default_title is None else default_title
    loading = loading_record(options, tuple(metrics), title)
    held = [loaded]  # handed over: this frame no longer keeps the loaded table alive through the analysis
    del loaded
    return _run_held(held, policy, command_line=command_line, default_title=title, loading=loading,
                     policy_file=policy_file, previous=previous)


def loading_record(options: AdapterOptions, metrics: tuple[str, ...] = (), default_title: str = "") -> dict[str, Any]:
    """How the inputs were read, for the provenance (JSON ``loading``): with the policy, everything a rerun needs
    besides the files themselves (:func:`rerun_arguments` reads it back)."""
    return {"format": options.format, "options": dict(sorted(options.given().items())), "wide": options.wide,
            "release_cols": list(options.release_cols), "latency_unit": options.latency_unit,
            "drop_holes": options.drop_holes, "metrics": list(metrics), "default_title": default_title}


def rerun_arguments(loading: dict[str, Any]) -> dict[str, Any]:
    """:func:`loading_record`'s record as the keyword arguments of :func:`run` (options, metrics, default title)."""
    options = AdapterOptions(format=loading.get("format", "auto"), values=dict(loading.get("options") or {}),
                             wide=bool(loading.get("wide")), release_cols=tuple(loading.get("release_cols") or ()),
                             latency_unit=loading.get("latency_unit", "ms"),
                             drop_holes=bool(loading.get("drop_holes")))
    return {"options": options, "metrics": tuple(loading.get("metrics") or ()),
            "default_title": loading.get("default_title")}


def run_loaded(loaded: LoadedResults, policy: Policy, *, command_line: str = "", default_title: str = "",
               loading: dict[str, Any] | None = None, policy_file: PolicyFile | None = None,
               previous: Mapping[str, PreviousLook] | None = None) -> Report:
    """The pipeline after loading (validate, analyze, decide, provenance), for files and in-memory tables alike."""
    return _run_held([loaded], policy, command_line=command_line, default_title=default_title, loading=loading,
                     policy_file=policy_file, previous=previous)


def _run_held(held: list[LoadedResults], policy: Policy, *, command_line: str = "", default_title: str = "",
              loading: dict[str, Any] | None = None, policy_file: PolicyFile | None = None,
              previous: Mapping[str, PreviousLook] | None = None) -> Report:
    """:func:`run_loaded` on the loaded results taken from ``held``: when :func:`run` hands them over, nothing else
    refers to them, and their text columns are freed once validated (0.5 GiB of the 10^7-row peak when the
    caller's frame kept them)."""
    from releasegate.analyze import analyze
    from releasegate.analyze.metrics import across_metrics
    from releasegate.decide import decide
    from releasegate.decide.metrics import combine
    from releasegate.load.tidy import release_arrow_memory
    from releasegate.validate.metric_tables import metric_tables

    policy, loaded = settled_level(*recorded_baseline(policy, held.pop()), policy_file)
    # What loading dropped or recorded (e.g. a run store's holes) is said in the report.
    tables = metric_tables(loaded.table, loaded.metadata_columns, policy, loaded.metrics, loaded.notes,
                           stated_directions(loaded), loaded.case_columns, loaded.excluded)
    inputs, named, metric_inputs = loaded.inputs, loaded.metrics, dict(loaded.metric_inputs)
    gold = None
    if policy.gold is not None:  # human labels of the judged outcomes (issue 35): read, checked, recorded
        if len(tables) > 1:
            raise InputError("gold labels grade one judged metric; with several metrics (--metric) they are not "
                             "read yet: gate the judged metric on its own with --gold")
        from releasegate.load.gold import load_gold
        from releasegate.validate.gold import validate_gold

        loaded_gold = load_gold(policy.gold)
        gold = validate_gold(loaded_gold.table, tables[0].data, policy.gold, policy.judge_correction)
        inputs = (*inputs, loaded_gold.input)
    # The validated tables hold the identity columns as categorical codes; the loaded one's text columns
    # (about 90 MB per million rows) are freed here unless the caller keeps them, and handed back to the system:
    # Arrow's pool keeps what is freed for itself (0.8 GiB at 10^7 rows, the peak of the analysis after it).
    del loaded
    release_arrow_memory()
    if previous and len(tables) > 1:
        raise InputError("--previous reads the looks of a one-metric note; with several metrics (--metric) compare "
                         "each metric on its own")
    sections = []
    for table in tables:
        # With several metrics the across-metric correction scales the regression rules' adjusted p; the
        # critical tests are read unadjusted across metrics, as a critical category's are within its metric's
        # budget.
        analysis = across_metrics(analyze(table.data, table.policy, critical=table.critical, gold=gold,
                                          previous=previous), len(tables))
        if previous:  # the suite the earlier note compared could not be a part of this one's: refused
            from releasegate.load.looks import check_suite

            check_suite(previous, analysis, tuple(named))
        sections.append(MetricSection(table.metric, analysis, decide(analysis, table.policy, table.metric)))
    provenance = Provenance(
        tool_version=__version__,
        command_line=command_line,
        inputs=inputs,
        # The metrics named are recorded with the policy; a run of its outcome column alone records none.
        policy={**policy.as_dict(), **({"metric": list(named)} if named else {})},
        packages=package_versions(),
        generated_at=generation_time(),
        title=policy.title or default_title,
        loading=loading if loading is not None else loading_record(AdapterOptions(), named, default_title),
        policy_file=policy_file,
        metric_inputs=metric_inputs,
    )
    return Report(tuple(sections), combine(tuple(sections)), provenance)


def stated_directions(loaded: LoadedResults) -> frozenset[str]:
    """The metrics whose direction the inputs state (``""``: the outcome column without --metric): lm-eval's
    higher_is_better where the file has it, and the harnesses whose scores are higher-is-better by their own
    definition (Inspect AI's, promptfoo's, OpenAI evals'); a tidy table or a run store states none."""

    def states(files: Sequence[InputFile]) -> bool:
        return bool(files) and all(f.direction or (f.harness and not f.harness.startswith("lm-eval"))
                                   for f in files)

    out = {metric for metric, files in loaded.metric_inputs.items() if states(files)}
    return frozenset(out | ({""} if states(loaded.inputs) else set()))


def recorded_baseline(policy: Policy, loaded: LoadedResults) -> tuple[Policy, LoadedResults]:
    """No baseline given, and the input records one (a sweep's run store): that one, said in the notes."""
    if policy.baseline is not None or loaded.baseline is None:
        return policy, loaded
    note = f"Baseline {loaded.baseline}: the one the sweep in the run store was ranked against (no --baseline given)."
    return (dataclasses.replace(policy, baseline=loaded.baseline),
            dataclasses.replace(loaded, notes=(*loaded.notes, note)))


def settled_level(policy: Policy, loaded: LoadedResults,
                  policy_file: PolicyFile | None = None) -> tuple[Policy, LoadedResults]:
    """A store that ``releasegate run --settle`` decided (load/settled.py) is decided as its last look was: on the
    same cells (load/store.py checked them), under the same policy, at that look's alpha, said in the notes. Every
    other reading is refused with what to run: another alpha, another policy or baseline, or a candidate an
    earlier look settled (the store's runs now are the later look's). A policy that differs is refused naming
    each key that changed and where its value came from (a flag, ``policy_file``, or the default)."""
    record = loaded.settled
    if record is None:
        return policy, loaded
    from releasegate.load.settled import changed_keys, policy_fingerprint
    from releasegate.model import Decision
    from releasegate.wording.settled import changed_policy, settled_note

    last = record.last
    again = "run `releasegate run CONFIG --settle` to decide it anew"
    if not any(math.isclose(policy.alpha, level, rel_tol=1e-9) for level in (record.policy_alpha, last.alpha)):
        raise InputError(f"this run store was settled at alpha {record.policy_alpha:g} (its last look at "
                         f"{last.alpha:g}); deciding it at alpha {policy.alpha:g} would be a look the design did "
                         f"not spend alpha on: drop --alpha, or {again}")
    if policy.baseline not in (None, record.baseline):
        raise InputError(f"this run store was settled against baseline {record.baseline}, not {policy.baseline}: "
                         f"{again} with that baseline")
    decided = dataclasses.replace(policy, baseline=record.baseline).as_dict()
    if policy_fingerprint(decided) != record.policy:
        changed = changed_keys(record, decided, Policy().as_dict())
        raise InputError(f"the policy differs from the one this run store was settled under "
                         f"({changed_policy(_origins(changed, decided, policy_file))}): deciding it under another "
                         f"policy would be another look; {again}")
    releases = [str(r) for r in dict.fromkeys(loaded.table["release"])]
    compared = list(policy.candidates) or [r for r in releases if r != record.baseline]
    for name in compared:
        if name not in last.verdicts:
            continue  # not a release of the store: validation names it
        earlier = [i for i, look in enumerate(record.looks[:-1], 1) if look.verdicts.get(name) != "not_proven"]
        if earlier:
            others = [c for c in compared if c != name]
            hint = f" (--candidate {' --candidate '.join(others)} for the others)" if others else ""
            raise InputError(f"{name} was settled at look {earlier[0]} on its first runs, and this run store now "
                             f"holds look {len(record.looks)}'s runs: its settled verdict is "
                             f"{Decision(record.verdicts[name]).label} as `releasegate run --settle` printed it; check the "
                             f"candidates the last look decided{hint}")
    note = settled_note(record.policy_alpha, [(look.runs, look.alpha, dict(look.verdicts)) for look in record.looks])
    return (dataclasses.replace(policy, alpha=last.alpha, baseline=record.baseline),
            dataclasses.replace(loaded, notes=(*loaded.notes, note)))


def _origins(changed: list[tuple[str, Any]], decided: Mapping[str, Any],
             policy_file: PolicyFile | None) -> list[tuple[str, Any, Any, str]]:
    """Each changed key (name, the value it was settled under) with its value now and where that came from: the
    policy file's path when the file gives it that value, "" for the default, else the key's flag."""
    from releasegate.load.settled import pinned_values
    from releasegate.policy import BY_NAME, load_policy_file

    given = load_policy_file(Path(policy_file.path)) if policy_file is not None else {}
    now = pinned_values(decided)
    out = []
    for name, was in changed:
        row = BY_NAME.get(name)
        from_file = (row is not None and name in given
                     and pinned_values({name: row.check(given[name], "policy: ")})[name] == now.get(name))
        if from_file:
            origin = str(policy_file.path) if policy_file is not None else ""
        elif row is None or now.get(name) == pinned_values({name: row.default})[name]:
            origin = ""
        else:
            origin = row.flag or f"the {name} argument"
        out.append((name, now.get(name), was, origin))
    return out
