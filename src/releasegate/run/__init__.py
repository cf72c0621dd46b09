"""Run the systems: call every system on every case for every run, score each output, keep it all in a store.

``releasegate run CONFIG.toml`` and :func:`run` are the same thing; docs/run.md describes the config, the
store and the semantics (resume by key, holes, retries). httpx and tenacity are imported only when a run
makes calls, never by ``report`` or ``check`` reading a store.
"""

from __future__ import annotations

import asyncio
import sys
import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from releasegate.errors import InputError

__all__ = ["RunResult", "run", "run_config"]


@dataclass(frozen=True)
class RunResult:
    """What a run left: the tidy table (every expected cell; holes have no outcome), the holes, the plan
    it executed and the counts of what it did. ``complete`` is False while any cell is missing or errored."""

    table: Any
    holes: tuple
    plan: Any
    stats: Any
    store: Path
    dry_run: bool = False
    ranking: tuple[str, ...] = ()  # a sweep's ranking lines ([run.grid]), once every cell is done

    @property
    def complete(self) -> bool:
        return not self.holes


def run(config: str | Path | Mapping[str, Any] | None = None, *, systems: Mapping[str, Any] | None = None,
        cases: str | Path | None = None, metric: str | Mapping[str, Any] | None = None, runs: int = 1,
        store: str | Path | None = None, dry_run: bool = False, only: str | None = None, fresh: bool = False,
        progress: bool = False, **settings: Any) -> RunResult:
    """Run from a CONFIG.toml path, a ``[run]`` dict, or keywords.

    ``systems`` maps a release name to a callable ``fn(case, run)`` or to a ``[[run.system]]`` table;
    ``metric`` is a kind ("exact", "contains", "regex") or a ``[run.metric]`` table; other settings
    (max_concurrency, max_attempts, timeout_s, ...) are the ``[run]`` keys.
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
        parsed = parse_config(raw, base_dir=Path("."), where="releasegate.run()")
    return run_config(parsed, dry_run=dry_run, only=only, fresh=fresh, progress=progress)


def _system_table(name: str, value: Any) -> dict[str, Any]:
    if callable(value):
        return {"name": name, "kind": "python", "function": value}
    if isinstance(value, Mapping):
        return {"name": name, **value}
    raise InputError(f"system {name!r}: give a callable fn(case, run) or a [[run.system]] table, got {value!r}")


def run_config(config: Any, *, dry_run: bool = False, only: str | None = None, fresh: bool = False,
               progress: bool = False, clock: Callable[[], float] | None = None,
               sleep: Callable[[float], Any] | None = None, callers: Mapping[str, Any] | None = None,
               announce: Callable[[str], None] | None = None) -> RunResult:
    """Plan, then (unless dry_run) execute; the store is created or resumed. ``clock``, ``sleep`` and
    ``callers`` are for tests (an injected clock makes retries cost no real time)."""
    from releasegate.run.plan import make_plan, read_cases, save_expected
    from releasegate.run.store import Store, is_store
    from releasegate.run.table import read_store

    cases = read_cases(config.cases_path)
    if dry_run and not is_store(config.store):
        return RunResult(None, (), make_plan(None, config, cases, only=only), None, config.store, dry_run=True)
    with Store(config.store, fresh=fresh and not dry_run) as db:
        plan = make_plan(db, config, cases, only=only)
        if dry_run:
            return RunResult(None, (), plan, None, config.store, dry_run=True)
        if announce is not None and plan.counts["stale"]:
            announce(f"{plan.counts['stale']} cell(s) are stale (their system or case changed) and run again")
        save_expected(db, config, cases)
        stats = _execute(config, db, cases, plan, progress=progress, clock=clock, sleep=sleep, callers=callers)
        result = read_store(config.store)
        ranking = _sweep_ranking(config, result)
        db.set_meta("sweep_ranking", list(ranking))  # what report / check on the store put in the notes
    return RunResult(result.table, result.holes, plan, stats, config.store, ranking=ranking)


def _sweep_ranking(config: Any, result: Any) -> tuple[str, ...]:
    """A complete sweep's candidates ranked against the baseline (Holm across them); none while holes remain."""
    if not config.grid_candidates or result.holes:
        return ()
    from releasegate.run.sweep import describe_ranking, rank_candidates

    value = "passed" if config.metric.value == "passed" else "score"
    ranked = rank_candidates(result.table, config.grid_baseline, config.grid_candidates, value)
    return tuple(describe_ranking(ranked, config.grid_baseline))


def _execute(config: Any, db: Any, cases: list, plan: Any, *, progress: bool, clock: Any, sleep: Any,
             callers: Any) -> Any:
    import time

    from releasegate.run.progress import Progress
    from releasegate.run.runner import Runner

    bar = Progress(total=len(plan.calls)) if progress else None
    runner = Runner(config, db, cases, clock=clock or time.monotonic, sleep=sleep or asyncio.sleep,
                    progress=bar, callers=callers)
    stats = asyncio.run(runner.execute(plan))
    if bar is not None:
        bar.finish(summary_line(stats))
    return stats


def summary_line(stats: Any) -> str:
    return (f"run: {stats.system_calls} system call(s), {stats.judge_calls} judge call(s); {stats.cells_ok} cell(s) "
            f"ok, {stats.cells_failed} errored; {stats.scores_failed} score hole(s); {stats.rate_limited} "
            f"rate-limited; cost ${stats.cost:.4f}")


class _CallableModule(types.ModuleType):
    """``releasegate.run(...)`` is the function and ``releasegate.run`` the package: once the package is
    imported Python binds the name to the module, so the module itself forwards a call to :func:`run`."""

    def __call__(self, *args: Any, **kwargs: Any) -> RunResult:
        return run(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
