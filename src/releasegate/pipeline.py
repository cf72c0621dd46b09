"""The one way through: load -> validate -> analyze -> decide, plus the provenance of the run."""

from __future__ import annotations

import datetime as _dt
import os
from importlib import metadata
from pathlib import Path

from releasegate import __version__
from releasegate.errors import InputError
from releasegate.load import AdapterOptions, LoadedResults, Source, load_results
from releasegate.model import Provenance, Report
from releasegate.policy import Policy

PROVENANCE_PACKAGES = ("numpy", "pandas", "jinja2")


def generation_time() -> str:
    """ISO time of generation: SOURCE_DATE_EPOCH when set (reproducible builds), else now, in UTC."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch:
        try:
            moment = _dt.datetime.fromtimestamp(int(epoch), tz=_dt.UTC)
        except (ValueError, OverflowError, OSError):
            raise InputError(f"SOURCE_DATE_EPOCH must be an integer number of seconds, got {epoch!r}") from None
    else:
        moment = _dt.datetime.now(tz=_dt.UTC).replace(microsecond=0)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def package_versions(names: tuple[str, ...] = PROVENANCE_PACKAGES) -> dict[str, str]:
    versions = {}
    for name in names:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


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
    # Not kept in a local name: run_loaded lets go of the loaded table once it is validated.
    return run_loaded(load_results(sources, columns=policy.columns, cases=cases, options=options), policy,
                      command_line=command_line, default_title=_default_title(sources))


def run_loaded(loaded: LoadedResults, policy: Policy, *, command_line: str = "", default_title: str = "") -> Report:
    """The pipeline after loading (validate, analyze, decide, provenance), for files and in-memory tables alike."""
    from releasegate.analyze import analyze
    from releasegate.decide import decide
    from releasegate.validate import validate

    data = validate(loaded.table, policy, loaded.metadata_columns)
    inputs = loaded.inputs
    # The validated table holds the identity columns as categorical codes; the loaded one's text columns
    # (about 90 MB per million rows) are freed here unless the caller keeps them.
    del loaded
    analysis = analyze(data, policy)
    verdicts = decide(analysis, policy)
    provenance = Provenance(
        tool_version=__version__,
        command_line=command_line,
        inputs=inputs,
        policy=policy.as_dict(),
        packages=package_versions(),
        generated_at=generation_time(),
        title=policy.title or default_title,
    )
    return Report(analysis, verdicts, provenance)


def _default_title(sources: list[Source]) -> str:
    first = sources[0].path
    name = first.parent.name if first.parent.name else first.stem
    return name or first.stem
