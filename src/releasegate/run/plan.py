"""What a run (or a resume) must do: every expected cell classified done / stale / errored / new / unscored.

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

from releasegate.errors import InputError
from releasegate.run.config import RunConfig, stable_hash
from releasegate.run.store import Store

Key = tuple[str, str, int]


@dataclass(frozen=True)
class Case:
    case_id: str
    input_hash: str
    fields: Mapping[str, Any]


@dataclass(frozen=True)
class Plan:
    """``calls``: cells whose system must be called, in order; ``rescore``: ok cells that need only a score."""

    calls: tuple[Key, ...]
    rescore: tuple[Key, ...]
    counts: Mapping[str, int]
    expected: int
    judge: bool

    def describe(self) -> str:
        c = self.counts
        judge_calls = (len(self.calls) + len(self.rescore)) if self.judge else 0
        judge = f" and at most {judge_calls} judge call(s)" if self.judge else ""
        return (f"{self.expected} cells: {c['done']} done, {c['stale']} stale, {c['errored']} errored, "
                f"{c['new']} new, {c['unscored']} to score; would make {len(self.calls)} system call(s){judge} "
                "(first attempts; retries come on top)")


def read_cases(path: Path) -> list[Case]:
    """The case table: case_id plus the fields the systems need; hashed row by row."""
    from releasegate.load.tidy import read_tidy

    if not Path(path).is_file():
        raise InputError(f"case file not found: {path}")
    frame = read_tidy(Path(path), text_columns=("case_id", "category", "cluster"))
    if "case_id" not in frame.columns:
        raise InputError(f"{path}: the case table needs a case_id column; columns present: {', '.join(frame.columns)}")
    ids = frame["case_id"]
    if ids.isna().any() or (ids.astype(str).str.strip() == "").any():
        raise InputError(f"{path}: blank case_id in the case table")
    dup = ids[ids.duplicated()]
    if len(dup):
        raise InputError(f"{path}: case table lists {len(dup)} case_id(s) twice, e.g. {', '.join(map(str, dup[:3]))}")
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


def save_expected(store: Store, config: RunConfig, cases: list[Case]) -> None:
    """Record what a complete store holds: the gate judges completeness against this, not against headers."""
    plan = {
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
    counts = dict.fromkeys(("done", "stale", "errored", "new", "unscored"), 0)
    calls: list[Key] = []
    rescore: list[Key] = []
    systems = [s for s in config.systems if only is None or s.name == only]
    if only is not None and not systems:
        raise InputError(f"--only {only!r}: no such system; systems: {', '.join(s.name for s in config.systems)}")
    order = list(range(len(cases)))
    random.Random(config.seed).shuffle(order)
    for index in order:
        case = cases[index]
        for run in range(config.runs):
            for system in systems:
                key = (system.name, case.case_id, run)
                state = states.get(key)  # (status, input_hash, system_hash, scored ok)
                if state is None:
                    counts["new"] += 1
                    calls.append(key)
                elif state[0] != "ok":
                    counts["errored"] += 1
                    calls.append(key)
                elif state[1] != case.input_hash or state[2] != system.system_hash:
                    counts["stale"] += 1
                    calls.append(key)
                elif not state[3]:
                    counts["unscored"] += 1
                    rescore.append(key)
                else:
                    counts["done"] += 1
    return Plan(tuple(calls), tuple(rescore), counts, len(cases) * config.runs * len(systems),
                judge=config.metric.kind == "judge")
