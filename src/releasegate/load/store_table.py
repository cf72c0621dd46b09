"""A ``releasegate run`` store -> the tidy table ``compare`` reads, and the holes: every expected cell not done.

Complete means no expected cell is missing, errored, stale or unscored; it is judged from the cells and the
plan recorded in the store, never from a header field. Totals are sums over the stored cells. The store is
read here with sqlite3 alone, read-only (its writer is :mod:`releasegate.run.store`), so that the gate reads a
store without importing what runs the systems.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from releasegate.errors import InputError

DB_NAME = "releasegate-run.sqlite"

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
    ranking: tuple[str, ...] = ()  # a sweep's ranking, written by the run that completed it

    @property
    def complete(self) -> bool:
        return not self.holes


def read_store(directory: Path) -> StoreTable:
    """Every expected cell as a row (holes have no outcome and an error message), plus the holes."""
    plan, cases, cells, scores, meta = read_store_rows(directory)
    metric = plan["metric"]
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
    return StoreTable(table, tuple(holes), plan, tuple(meta.get("sweep_ranking") or ()))


def db_path(directory: Path) -> Path:
    return Path(directory) / DB_NAME


def is_store(directory: Path) -> bool:
    return Path(directory).is_dir() and db_path(directory).is_file()


def read_store_rows(directory: Path) -> tuple[dict[str, Any], list, dict, dict, dict[str, Any]]:
    """(plan, cases, cells by key, scores of the plan's metric by output hash, meta) from one read-only look."""
    path = db_path(directory)
    if not path.is_file():
        raise InputError(f"{directory}: not a run store (no {DB_NAME} inside)")
    try:
        connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30.0)
        try:
            meta = {k: json.loads(v) for k, v in connection.execute("SELECT key, value FROM meta")}
            plan = meta.get("plan")
            if plan is None:
                raise InputError(f"{directory}: the store has no plan yet (run `releasegate run CONFIG.toml` first)")
            cases = [(c, h, json.loads(f)) for c, h, f in
                     connection.execute("SELECT case_id, input_hash, fields FROM cases ORDER BY position")]
            cursor = connection.execute("SELECT * FROM cells")
            names = [d[0] for d in cursor.description]
            cells = {}
            for row in cursor:
                cell = dict(zip(names, row, strict=True))
                cell["attempts"] = json.loads(cell["attempts"])
                cells[(cell["release"], cell["case_id"], cell["run"])] = cell
            cursor = connection.execute("SELECT * FROM scores WHERE metric_hash = ?", (plan["metric"]["hash"],))
            names = [d[0] for d in cursor.description]
            scores = {row[0]: dict(zip(names, row, strict=True)) for row in cursor}
        finally:
            connection.close()
    except sqlite3.DatabaseError as exc:
        raise InputError(f"{path}: cannot read the run store: {exc}") from None
    return plan, cases, cells, scores, meta


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
