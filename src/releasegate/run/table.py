"""Store -> the tidy table ``compare`` reads, and the holes: every expected cell not done.

Complete means no expected cell is missing, errored, stale or unscored; it is judged from the cells and the
plan recorded in the store, never from a header field. Totals are sums over the stored cells.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from releasegate.errors import InputError
from releasegate.run.store import Store

# Case fields never overwrite what the run recorded (a case column called "output" stays the case's own).
RUN_COLUMNS = ("release", "case_id", "run", "passed", "score", "error", "latency_ms", "input_tokens",
               "output_tokens", "cost", "output", "model", "fingerprint")


@dataclass(frozen=True)
class Hole:
    """An expected cell that is not done: why (missing, error, permanent, stale, unscored, unparseable)."""

    release: str
    case_id: str
    run: int
    reason: str
    kind: str | None = None
    attempts: int = 0
    message: str | None = None

    def describe(self) -> str:
        what = self.reason + (f" {self.kind}" if self.kind and self.kind != self.reason else "")
        tries = f" after {self.attempts} attempt(s)" if self.attempts else ""
        return f"{self.release}/{self.case_id}/run {self.run}: {what}{tries}"


@dataclass(frozen=True)
class StoreTable:
    table: pd.DataFrame
    holes: tuple[Hole, ...]
    plan: dict[str, Any]

    @property
    def complete(self) -> bool:
        return not self.holes


def read_store(directory: Path) -> StoreTable:
    """Every expected cell as a row (holes have no outcome and an error message), plus the holes."""
    with Store(directory, create=False) as store:
        plan = store.plan()
        if plan is None:
            raise InputError(f"{directory}: the store has no plan yet (run `releasegate run CONFIG.toml` first)")
        cases = store.cases()
        cells = {(c["release"], c["case_id"], c["run"]): c for c in store.cells()}
        metric = plan["metric"]
        scores = store.scores(metric["hash"])
    value_column = "passed" if metric["value"] == "passed" else "score"
    rows: list[dict[str, Any]] = []
    holes: list[Hole] = []
    for release in plan["releases"]:
        name = release["name"]
        for case_id, input_hash, fields in cases:
            extra = {k: v for k, v in fields.items() if k not in RUN_COLUMNS}
            for run in range(plan["runs"]):
                cell = cells.get((name, case_id, run))
                row: dict[str, Any] = {"release": name, "case_id": case_id, "run": run, value_column: None,
                                       "error": None}
                hole = _hole(cell, name, case_id, run, input_hash, release["system_hash"], scores)
                if cell is not None and cell["status"] == "ok":
                    row.update(latency_ms=cell["latency_ms"], input_tokens=cell["input_tokens"],
                               output_tokens=cell["output_tokens"], cost=cell["cost"], output=cell["output"],
                               model=cell["model"], fingerprint=cell["fingerprint"])
                if hole is None:
                    row[value_column] = scores[cell["output_hash"]]["value"]
                else:
                    holes.append(hole)
                    row["error"] = hole.message or hole.reason
                row.update(extra)
                rows.append(row)
    table = pd.DataFrame(rows)
    for column in ("latency_ms", "input_tokens", "output_tokens", "cost", value_column):
        if column not in table.columns:
            table[column] = None
        table[column] = pd.to_numeric(table[column], errors="coerce").astype(float)
    table.attrs["metric"] = metric["name"]
    return StoreTable(table, tuple(holes), plan)


def _hole(cell: dict[str, Any] | None, release: str, case_id: str, run: int, input_hash: str, system_hash: str,
          scores: dict[str, dict[str, Any]]) -> Hole | None:
    if cell is None:
        return Hole(release, case_id, run, "missing")
    attempts = len(cell["attempts"])
    if cell["status"] != "ok":
        return Hole(release, case_id, run, cell["status"], cell["error_kind"], attempts, cell["error"])
    if cell["input_hash"] != input_hash or cell["system_hash"] != system_hash:
        return Hole(release, case_id, run, "stale", None, attempts, "the config changed since this cell ran")
    score = scores.get(cell["output_hash"])
    if score is None:
        return Hole(release, case_id, run, "unscored", None, attempts, "not scored by the current metric")
    if score["status"] != "ok":
        return Hole(release, case_id, run, score["status"], None, attempts, score["error"])
    return None
