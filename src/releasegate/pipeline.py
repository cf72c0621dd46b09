"""The one way through: load -> validate -> analyze -> decide, plus the provenance of the run."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from releasegate import __version__
from releasegate.load.results import AdapterOptions, LoadedResults, load_results
from releasegate.load.sources import Source
from releasegate.load.sources import default_title as title_of
from releasegate.model import Provenance, Report
from releasegate.policy import Policy
from releasegate.provenance import generation_time, package_versions


def run(
    sources: list[Source],
    policy: Policy,
    *,
    cases: Path | None = None,
    options: AdapterOptions | None = None,
    command_line: str = "",
) -> Report:
    """Load, validate, analyze and decide; the Report holds everything a renderer needs."""
    options = options or AdapterOptions()
    loaded = load_results(sources, columns=policy.columns, cases=cases, options=options)
    return run_loaded(loaded, policy, command_line=command_line, default_title=title_of(sources))


def run_loaded(loaded: LoadedResults, policy: Policy, *, command_line: str = "", default_title: str = "") -> Report:
    """The pipeline after loading (validate, analyze, decide, provenance), for files and in-memory tables alike."""
    from releasegate.analyze import analyze
    from releasegate.decide import decide
    from releasegate.validate import validate

    data = validate(loaded.table, policy, loaded.metadata_columns)
    if loaded.notes:  # what loading dropped or recorded (e.g. a run store's holes) is said in the report
        data = dataclasses.replace(data, notes=(*loaded.notes, *data.notes))
    analysis = analyze(data, policy)
    verdicts = decide(analysis, policy)
    provenance = Provenance(
        tool_version=__version__,
        command_line=command_line,
        inputs=loaded.inputs,
        policy=policy.as_dict(),
        packages=package_versions(),
        generated_at=generation_time(),
        title=policy.title or default_title,
    )
    return Report(analysis, verdicts, provenance)
