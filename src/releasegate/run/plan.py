"""What a run (or a resume) must do: every expected cell classified done / stale / errored / new / unscored,
and of the ones to call, those whose answer the store already holds by content (cached: no call).

Resume is by key, never by position: a cell is done when it is ok, both of its hashes equal the current
ones, and its output has an ok score under the current metric. The cells to call come in a seeded shuffled
order of cases, with every run and release of a case next to each other (an interrupted run stays balanced
across releases, and latency is not confounded with the provider's load over time).
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from releasegate.errors import FileError, RunConfigError
from releasegate.run.config import MAX_CELLS, RunConfig, stable_hash
from releasegate.run.judge import rubric_case_fields
from releasegate.run.store import AnswerKey, Store

Key = tuple[str, str, int]
STATES = ("done", "stale", "errored", "new", "unscored", "cached")


@dataclass(frozen=True)
class Case:
    case_id: str
    input_hash: str
    fields: Mapping[str, Any]


@dataclass(frozen=True)
class Plan:
    """``calls``: cells whose system must be called, in order; ``rescore``: ok cells that need only a score;
    ``cached``: cells whose answer the store holds by content (restored without a call, then scored)."""

    calls: tuple[Key, ...]
    rescore: tuple[Key, ...]
    counts: Mapping[str, int]
    expected: int
    judge: bool
    cached: tuple[tuple[Key, AnswerKey], ...] = ()
    judge_keys: int = 0  # distinct outputs of the ok cells to score (a judge is asked once per key)

    def describe(self) -> str:
        c = self.counts
        judge = ""
        if self.judge:
            most = self.judge_keys + len(self.calls) + len(self.cached)
            judge = f" and at most {most} judge call(s) (one per distinct output)"
        cached = f", {c['cached']} answered before (restored from the store, no call)" if c.get("cached") else ""
        return (f"{self.expected} cells: {c['done']} done, {c['stale']} stale, {c['errored']} errored, "
                f"{c['new']} new, {c['unscored']} to score{cached}; would make {len(self.calls)} system call(s)"
                f"{judge} (first attempts; retries come on top)")


def read_cases(path: Path) -> list[Case]:
    """The case table: case_id plus the fields the systems need; hashed row by row."""
    from releasegate.load.tidy import read_tidy

    if not Path(path).is_file():
        raise FileError(f"case file not found: {path}")
    frame = read_tidy(Path(path), text_columns=("case_id", "category", "cluster"))
    if "case_id" not in frame.columns:
        raise RunConfigError(f"{path}: the case table needs a case_id column; columns present: {', '.join(frame.columns)}")
    ids = frame["case_id"]
    if ids.isna().any() or (ids.astype(str).str.strip() == "").any():
        raise RunConfigError(f"{path}: blank case_id in the case table")
    dup = ids[ids.duplicated()]
    if len(dup):
        raise RunConfigError(f"{path}: case table lists {len(dup)} case_id(s) twice, e.g. {', '.join(map(str, dup[:3]))}")
    cases = []
    for record in frame.to_dict(orient="records"):
        fields = {str(k): _plain(v) for k, v in record.items()}
        fields["case_id"] = str(fields["case_id"])
        cases.append(Case(fields["case_id"], stable_hash(fields), fields))
    return cases


def _plain(value: Any) -> Any:
    """NaN -> None and numpy scalars -> Python, so hashes and JSON are stable."""
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def check_cases(config: RunConfig, cases: list[Case], only: str | None = None) -> None:
    """Before anything is called: the plan within :data:`MAX_CELLS`, and every field a template or the rubric
    reads present in the case table (a missing one would fail every cell the same way)."""
    systems = [s for s in config.systems if only is None or s.name == only]
    cells = len(cases) * config.runs * len(systems)
    if cells > MAX_CELLS:
        raise RunConfigError(f"the plan has {cells:,} cells ({len(cases):,} cases x {config.runs:,} runs x {len(systems)} "
                         f"systems); at most {MAX_CELLS:,} are run at once: fewer runs, cases or systems")
    columns = set(cases[0].fields) if cases else set()
    for system in systems:
        for name in system.spec.get("fields", ()):
            if name not in columns:
                raise RunConfigError(f"system {system.name!r}: user_template uses {{{name}}}, which the case table does "
                                 f"not have; columns: {', '.join(sorted(columns))}")
    if config.metric.kind == "judge":
        for name in rubric_case_fields(config.metric):
            if name not in columns:
                raise RunConfigError(f"[run.metric]: the rubric uses {{{name}}}, which the case table does not have; "
                                 f"columns: {', '.join(sorted(columns))} (and output, reference)")


def save_expected(store: Store, config: RunConfig, cases: list[Case]) -> None:
    """Record what a complete store holds: the gate judges completeness against this, not against headers."""
    plan: dict[str, Any] = {
        "releases": [{"name": s.name, "system_hash": s.system_hash, "kind": s.kind,
                      "model": s.spec.get("model")} for s in config.systems],
        "runs": config.runs,
        "metric": {"name": config.metric.name, "kind": config.metric.kind, "hash": config.metric.metric_hash,
                   "value": config.metric.value},
        "reference_field": config.reference_field,
    }
    if config.grid_candidates:
        plan["grid"] = {"baseline": config.grid_baseline, "candidates": list(config.grid_candidates)}
    store.save_plan(plan, ((c.case_id, c.input_hash, c.fields) for c in cases))


def make_plan(store: Store | None, config: RunConfig, cases: list[Case], only: str | None = None) -> Plan:
    """Classify every expected cell; ``store=None`` is a store not created yet (a dry run creates nothing)."""
    states = store.cell_states(config.metric.metric_hash) if store is not None else {}
    counts = dict.fromkeys(STATES, 0)
    calls: list[Key] = []
    rescore: list[Key] = []
    systems = [s for s in config.systems if only is None or s.name == only]
    if only is not None and not systems:
        raise RunConfigError(f"--only {only!r}: no such system; systems: {', '.join(s.name for s in config.systems)}")
    order = list(range(len(cases)))
    random.Random(config.seed).shuffle(order)
    hashes = [(s.name, s.system_hash) for s in systems]
    for index in order:
        case = cases[index]
        case_id, input_hash = case.case_id, case.input_hash
        for run in range(config.runs):
            for name, system_hash in hashes:
                key = (name, case_id, run)
                state = states.get(key)  # (status, input_hash, system_hash, scored ok)
                if state is None:
                    counts["new"] += 1
                    calls.append(key)
                elif state[0] != "ok":
                    counts["errored"] += 1
                    calls.append(key)
                elif state[1] != input_hash or state[2] != system_hash:
                    counts["stale"] += 1
                    calls.append(key)
                elif not state[3]:
                    counts["unscored"] += 1
                    rescore.append(key)
                else:
                    counts["done"] += 1
    cached: list[tuple[Key, AnswerKey]] = []
    if store is not None and calls:
        system_hashes = dict(hashes)
        by_id = {c.case_id: c.input_hash for c in cases}
        wanted = [(release, system_hashes[release], by_id[case_id], run) for release, case_id, run in calls]
        found = store.answered(wanted)
        if found:
            cached = [(key, answer) for key, answer in zip(calls, wanted, strict=True) if answer in found]
            calls = [key for key, answer in zip(calls, wanted, strict=True) if answer not in found]
            counts["cached"] = len(cached)
    judge_keys = 0
    if config.metric.kind == "judge" and store is not None and rescore:
        judge_keys = store.distinct_outputs(rescore)
    return Plan(tuple(calls), tuple(rescore), counts, len(cases) * config.runs * len(systems),
                judge=config.metric.kind == "judge", cached=tuple(cached), judge_keys=judge_keys)
