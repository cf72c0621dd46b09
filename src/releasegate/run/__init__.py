"""Run the systems: call every system on every case for every run, score each output, keep it all in a store.

``releasegate run CONFIG.toml`` and :func:`run` (``releasegate.run_systems`` from the top package) are the same
thing; docs/run.md describes the config, the store and the semantics (resume by key, holes, retries, limits per
endpoint). aiohttp is imported only when a run makes calls, never by ``report`` or ``check`` reading a store.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from releasegate.errors import InputError, RunConfigError, StoreError

if TYPE_CHECKING:
    import pandas as pd

    from releasegate.load.store_table import Hole
    from releasegate.run.attempts import RunStats
    from releasegate.run.config import RunConfig
    from releasegate.load.store_table import StoreTable
    from releasegate.run.plan import Plan
    from releasegate.run.store import Store

__all__ = ["RunResult", "run", "run_config"]


@dataclass(frozen=True)
class RunResult:
    """What a run left: the plan it executed, the counts of what it did, how many expected cells are holes, and
    (read from the store when first asked for, so that a run that needs neither never holds a table of every
    cell) the tidy table (every expected cell; holes have no outcome) and the holes. ``complete`` is False
    while any cell is missing or errored. A dry run has the plan only (no table, no stats)."""

    plan: Plan
    stats: RunStats | None
    store: Path
    hole_count: int = 0
    dry_run: bool = False
    ranking: tuple[str, ...] = ()  # a sweep's ranking lines ([run.grid]), once every cell is done
    _read: Callable[[], StoreTable] | None = field(default=None, repr=False, compare=False)

    @property
    def complete(self) -> bool:
        return self.hole_count == 0

    @cached_property
    def _stored(self) -> StoreTable | None:
        return None if self._read is None else self._read()

    @property
    def table(self) -> pd.DataFrame | None:
        return None if self._stored is None else self._stored.table

    @property
    def holes(self) -> tuple[Hole, ...]:
        return () if self._stored is None else self._stored.holes


def run(config: str | Path | Mapping[str, Any] | None = None, *, systems: Mapping[str, Any] | None = None,
        cases: str | Path | None = None, metric: str | Mapping[str, Any] | None = None, runs: int = 1,
        store: str | Path | None = None, dry_run: bool = False, only: str | None = None, fresh: bool = False,
        progress: bool = False, **settings: Any) -> RunResult:
    """Run from a CONFIG.toml path, a ``[run]`` dict, or keywords.

    ``systems`` maps a release name to a callable ``fn(case, run)`` or to a ``[[run.system]]`` table;
    ``metric`` is a kind ("exact", "contains", "regex") or a ``[run.metric]`` table; other settings
    (max_concurrency, max_attempts, timeout_s, ...) are the ``[run]`` keys.

    From the top package it is ``releasegate.run_systems``: it replaced ``releasegate.run(...)``, which made
    this package's module callable (``releasegate.run`` is this package, a module, once it is imported).
    """
    from releasegate.run.config import load_config, parse_config

    if isinstance(config, str | Path):
        parsed = load_config(Path(config))
    else:
        raw = dict(config or {})
        if systems is not None:
            raw["system"] = [_system_table(name, value) for name, value in systems.items()]
        if metric is not None:
            raw["metric"] = {"kind": metric} if isinstance(metric, str) else dict(metric)
        for key, value in (("cases", cases), ("store", store)):
            if value is not None:
                raw[key] = str(value)
        raw.setdefault("runs", runs)
        raw.update(settings)
        parsed = parse_config(raw, base_dir=Path("."), where="releasegate.run_systems()")
    return run_config(parsed, dry_run=dry_run, only=only, fresh=fresh, progress=progress)


def _system_table(name: str, value: Any) -> dict[str, Any]:
    if callable(value):
        return {"name": name, "kind": "python", "function": value}
    if isinstance(value, Mapping):
        return {"name": name, **value}
    raise InputError(f"system {name!r}: give a callable fn(case, run) or a [[run.system]] table, got {value!r}")


def run_config(config: RunConfig, *, dry_run: bool = False, only: str | None = None, fresh: bool = False,
               progress: bool = False, clock: Callable[[], float] | None = None,
               sleep: Callable[[float], Any] | None = None, callers: Mapping[str, Any] | None = None,
               announce: Callable[[str], None] | None = None, environ: Mapping[str, str] | None = None) -> RunResult:
    """Plan, then (unless dry_run) execute; the store is created or resumed, by one writer at a time.
    ``clock``, ``sleep``, ``callers`` and ``environ`` are for tests (an injected clock makes retries cost no
    real time)."""
    from releasegate.run.lock import StoreLock
    from releasegate.run.plan import check_cases, count_done, make_plan, read_cases, save_expected
    from releasegate.load.store_table import is_store
    from releasegate.run.store import Store
    from releasegate.run.table import keep_columns, read_store

    cases = read_cases(config.cases_path)
    check_cases(config, cases, only)
    if dry_run:
        if not is_store(config.store):
            return RunResult(make_plan(None, config, cases, only=only), None, config.store, dry_run=True)
        with Store(config.store, read_only=True) as db:
            return RunResult(make_plan(db, config, cases, only=only), None, config.store, dry_run=True)
    environ = os.environ if environ is None else environ
    with StoreLock(config.store), Store(config.store, fresh=fresh) as db:
        plan = make_plan(db, config, cases, only=only)
        keys = check_keys(config, plan, environ, callers or {})
        if announce is not None and plan.counts["stale"]:
            announce(f"{plan.counts['stale']} cell(s) are stale (their system or case changed) and run again")
        save_expected(db, config)
        stats = _execute(config, db, plan, progress=progress, clock=clock, sleep=sleep, callers=callers,
                         environ=environ, keys=keys)
        holes = len(cases) * config.runs * len(config.systems) - count_done(db.connection, config, len(cases))
        try:  # what `check STORE` reads in one pass (load/store_columns.py)
            keep_columns(db.connection)
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{config.store}: cannot write the run store: {exc}") from None
        ranking = _sweep_ranking(config, holes)
        db.set_meta("sweep_ranking", list(ranking))  # what report / check on the store put in the notes
    store = config.store
    return RunResult(plan, stats, store, hole_count=holes, ranking=ranking, _read=lambda: read_store(store))


def check_keys(config: RunConfig, plan: Plan, environ: Mapping[str, str], callers: Mapping[str, Any]) -> list[str]:
    """Every ``api_key_env`` a planned call needs is set, checked before the first call (a missing one would
    stop the run at its first call and leave a cell behind); returns the keys, for the redactor."""
    from releasegate.run.runner import JUDGE

    needed = {name for name, count in plan.calls_by_system.items() if count}
    systems = [(s.name, s) for s in config.systems if s.name in needed]
    if config.metric.judge is not None and (plan.calls or plan.counts["unscored"] or plan.cached):
        systems.append((JUDGE, config.metric.judge))
    keys = []
    for name, system in systems:
        variable = system.spec.get("api_key_env")
        if not variable:
            continue
        value = environ.get(variable, "")
        if not value.strip() and name not in callers:
            who = "the judge" if name == JUDGE else f"system {name!r}"
            raise RunConfigError(f"{who}: the environment variable {variable} (api_key_env) is not set; nothing was "
                             "called")
        keys.append(value)
    return keys


def _sweep_ranking(config: RunConfig, holes: int) -> tuple[str, ...]:
    """A complete sweep's candidates ranked against the baseline (Holm across them); none while holes remain."""
    if not config.grid_candidates or holes or config.grid_baseline is None:
        return ()
    from releasegate.run.sweep import describe_ranking, rank_candidates
    from releasegate.run.table import read_store

    value = "passed" if config.metric.value == "passed" else "score"
    ranked = rank_candidates(read_store(config.store).table, config.grid_baseline, config.grid_candidates, value)
    return tuple(describe_ranking(ranked, config.grid_baseline))


def _execute(config: RunConfig, db: Store, plan: Plan, *, progress: bool,
             clock: Callable[[], float] | None, sleep: Callable[[float], Any] | None,
             callers: Mapping[str, Any] | None, environ: Mapping[str, str], keys: list[str]) -> RunStats:
    import time

    from releasegate.run.progress import Progress
    from releasegate.run.runner import Runner
    from releasegate.run.secrets import Redactor

    bar = Progress(total=plan.calls) if progress else None

    async def execute() -> RunStats:
        runner = Runner(config, db, clock=clock or time.monotonic, sleep=sleep or asyncio.sleep,
                        progress=bar, callers=callers, environ=environ, redactor=Redactor(keys))
        return await runner.execute(plan)

    stats = asyncio.run(execute())
    if bar is not None:
        bar.finish(summary_line(stats))
    return stats


def summary_line(stats: RunStats) -> str:
    cached = f" ({stats.cells_cached} answered before: restored, not called)" if stats.cells_cached else ""
    return (f"run: {stats.system_calls} system call(s), {stats.judge_calls} judge call(s); {stats.cells_ok} cell(s) "
            f"ok, {stats.cells_failed} errored{cached}; {stats.scores_failed} score hole(s); {stats.rate_limited} "
            f"rate-limited; cost ${stats.cost:.4f}")


