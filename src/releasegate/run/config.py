"""CONFIG.toml -> a checked RunConfig; every unknown key or bad value is one InputError naming it.

The hashes that key the store are computed here, by each kind's row (:mod:`releasegate.run.system_kinds`,
:mod:`releasegate.run.metric_kinds`): a system's hash covers what shapes its answers (model, base_url,
prompts, params with ``0`` and ``0.0`` alike, seed policy; a callable's source and version) and never its key,
timeouts, limits or concurrency, so that changing those re-runs nothing (docs/run.md).
"""

from __future__ import annotations

import dataclasses
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from releasegate.errors import RunConfigError
from releasegate.files import TABLE_CAP, TEXT_CAP, check_regular, read_text_capped
from releasegate.run.http import DEFAULT_MAX_BYTES
from releasegate.run.metric_kinds import METRIC_KINDS, parse_metric
from releasegate.run.spec import (
    Limits,
    MetricConfig,
    SystemConfig,
    integer,
    no_unknown,
    number,
    path_in,
    stable_hash,
    text,
)
from releasegate.run.system_kinds import SYSTEM_KINDS, parse_system

__all__ = ["MAX_CELLS", "MAX_RUNS", "METRIC_KINDS", "SYSTEM_KINDS", "MetricConfig", "RunConfig", "SystemConfig",
           "load_config", "parse_config", "parse_metric", "parse_system", "stable_hash"]

# Beyond these a config is refused at once, with the limit (issue 28, 14: runs = 100000000 grew a dry run
# past a gigabyte): a million cells is a few hundred MB of store and hours of calls at any real rate.
MAX_RUNS = 10_000
MAX_CELLS = 1_000_000
RUN_KEYS = {"cases", "runs", "store", "max_concurrency", "requests_per_minute", "tokens_per_minute", "timeout_s",
            "deadline_s", "max_attempts", "seed", "reference_field", "system", "metric", "grid", "backoff_s",
            "max_backoff_s", "max_response_bytes"}


@dataclass(frozen=True)
class RunConfig:
    cases_path: Path
    store: Path
    systems: tuple[SystemConfig, ...]
    metric: MetricConfig
    runs: int = 1
    max_concurrency: int = 8  # per endpoint (and for each system that runs on its own)
    requests_per_minute: float = 0.0  # per endpoint; 0 = no limit
    tokens_per_minute: float = 0.0  # per endpoint; 0 = no limit
    timeout_s: float = 120.0  # one attempt: connect, send and the whole body
    deadline_s: float = 600.0  # one cell: its attempts and every wait between them
    max_attempts: int = 6
    seed: int = 0
    reference_field: str = "reference"
    backoff_s: float = 1.0
    max_backoff_s: float = 60.0
    max_response_bytes: int = DEFAULT_MAX_BYTES
    base_dir: Path = field(default_factory=Path)
    grid_baseline: str | None = None  # a sweep ([run.grid]): what its candidates are ranked against
    grid_candidates: tuple[str, ...] = ()
    source: Path | None = None  # the CONFIG.toml read, if any

    def system(self, name: str) -> SystemConfig:
        for system in self.systems:
            if system.name == name:
                return system
        raise RunConfigError(f"no system named {name!r}; systems: {', '.join(s.name for s in self.systems)}")

    def limits(self, system: SystemConfig) -> Limits:
        """A system's endpoint limits with the [run] defaults filled in; a system without an endpoint (the
        fake provider, a Python callable) has no rate limits, only the [run] concurrency."""
        own = system.limits
        if system.endpoint is None:
            return Limits(max_concurrency=own.max_concurrency or self.max_concurrency)
        return Limits(
            max_concurrency=own.max_concurrency or self.max_concurrency,
            requests_per_minute=self.requests_per_minute if own.requests_per_minute is None
            else own.requests_per_minute,
            tokens_per_minute=self.tokens_per_minute if own.tokens_per_minute is None else own.tokens_per_minute,
        )

    def inputs(self) -> tuple[Path, ...]:
        """The files the run reads (an output written onto one of them is refused)."""
        found = [self.cases_path] + ([self.source] if self.source is not None else [])
        return tuple(found)


def load_config(path: Path) -> RunConfig:
    """Read and check CONFIG.toml; relative paths are relative to the file's folder."""
    path = Path(path)
    text = read_text_capped(path, "config file", cap=TEXT_CAP, error=RunConfigError)
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RunConfigError(f"{path}: not valid TOML: {exc}") from None
    except ValueError as exc:  # an integer of more digits than Python converts (sys.get_int_max_str_digits)
        raise RunConfigError(f"{path}: holds a number too long to read: {str(exc).split(';')[0]}") from None
    unknown = set(raw) - {"run"}
    if unknown or "run" not in raw:
        raise RunConfigError(f"{path}: expected a [run] table and nothing else, found {', '.join(sorted(raw)) or 'nothing'}")
    config = parse_config(raw["run"], base_dir=path.parent, where=str(path))
    # The case table is read when the plan is made; a device or FIFO named here is refused before that.
    check_regular(config.cases_path, "case file", cap=TABLE_CAP, error=RunConfigError)
    return dataclasses.replace(config, source=path)


def parse_config(run: Mapping[str, Any], *, base_dir: Path = Path("."), where: str = "config") -> RunConfig:
    """The [run] table (as a dict) -> RunConfig, for the file and the Python API alike."""
    no_unknown(run, RUN_KEYS, f"{where}: [run]")
    for key in ("cases", "store"):
        if not isinstance(run.get(key), str) or not run[key].strip():
            raise RunConfigError(f"{where}: [run] {key} must be a path (text), got {run.get(key)!r}")
    systems_raw = run.get("system")
    if not isinstance(systems_raw, list) or not systems_raw:
        raise RunConfigError(f"{where}: at least one [[run.system]] is needed")
    grid_baseline, grid_candidates = None, ()
    if "grid" in run:
        from releasegate.run.grid import expand_grid

        systems_raw, grid_baseline, grid_candidates = expand_grid(systems_raw, run["grid"], f"{where}: [run.grid]")
    systems = tuple(parse_system(s, base_dir, f"{where}: [[run.system]] #{i + 1}") for i, s in enumerate(systems_raw))
    names = [s.name for s in systems]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise RunConfigError(f"{where}: system name(s) used twice: {', '.join(dup)}")
    if not isinstance(run.get("metric"), Mapping):
        raise RunConfigError(f"{where}: a [run.metric] table is needed")
    metric = parse_metric(run["metric"], base_dir, f"{where}: [run.metric]")
    return RunConfig(
        cases_path=path_in(base_dir, run["cases"]),
        store=path_in(base_dir, run["store"]),
        systems=systems,
        metric=metric,
        runs=integer(run, "runs", 1, where, low=1, high=MAX_RUNS),
        max_concurrency=integer(run, "max_concurrency", 8, where, low=1, high=1024),
        requests_per_minute=number(run, "requests_per_minute", 0.0, where, low=0.0),
        tokens_per_minute=number(run, "tokens_per_minute", 0.0, where, low=0.0),
        timeout_s=number(run, "timeout_s", 120.0, where, low=0.0, open_low=True),
        deadline_s=number(run, "deadline_s", 600.0, where, low=0.0, open_low=True),
        max_attempts=integer(run, "max_attempts", 6, where, low=1, high=100),
        seed=integer(run, "seed", 0, where, low=0),
        reference_field=text(run, "reference_field", "reference", where),
        backoff_s=number(run, "backoff_s", 1.0, where, low=0.0),
        max_backoff_s=number(run, "max_backoff_s", 60.0, where, low=0.0),
        max_response_bytes=integer(run, "max_response_bytes", DEFAULT_MAX_BYTES, where, low=1024,
                                   high=1024 * 1024 * 1024),
        base_dir=base_dir,
        grid_baseline=grid_baseline,
        grid_candidates=grid_candidates,
    )
