"""A ``releasegate run`` store -> the tidy table ``compare`` reads, and the holes: every expected cell not done.

Complete means no expected cell is missing, errored, stale or unscored; it is judged from the cells and the
plan recorded in the store, never from a header field. Totals are sums over the stored cells. The store is
read here with sqlite3 alone, read-only (its writer is :mod:`releasegate.run.store`), so that the gate reads a
store without importing what runs the systems.

The expected cells (the plan's releases x the cases x the runs) are joined with the cells and their scores
by SQLite in one query, in the plan's order, and the columns are built from its rows with numpy: 100,000
cells are read in a fraction of a second (issue 30, item 8). Hole records are made only for the holes.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from releasegate.errors import InputError

DB_NAME = "releasegate-run.sqlite"

# Case fields never overwrite what the run recorded (a case column called "output" stays the case's own).
RUN_COLUMNS = ("release", "case_id", "run", "passed", "score", "error", "latency_ms", "input_tokens",
               "output_tokens", "cost", "output", "model", "fingerprint")
ERRORED = ("error", "permanent")  # a system's failure to answer: the error state, not a missing measurement


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

    @property
    def errored(self) -> bool:
        """The system failed to answer (after its attempts): the error state of the gate."""
        return self.reason in ERRORED

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
    models: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = field(default_factory=dict)  # per release

    @property
    def complete(self) -> bool:
        return not self.holes

    @property
    def baseline(self) -> str | None:
        """The baseline a sweep's grid named (the store records it), if any."""
        grid = self.plan.get("grid") or {}
        return grid.get("baseline") if isinstance(grid, dict) else None


def db_path(directory: Path) -> Path:
    return Path(directory) / DB_NAME


def is_store(directory: Path) -> bool:
    return Path(directory).is_dir() and db_path(directory).is_file()


# The stored cells of the plan's releases and cases (the expected cells that have one), with what says
# whether each is current; texts only where they are needed (the holes' details; outputs when asked for), and
# the number of attempts counted by SQLite (each attempt record holds one "n": key).
# The expected grid (releases x cases x runs) is laid out with numpy, and the scores joined by a dict:
# 100,000 cells read in about a third of the time an SQL join of the grid took.
STATES = ("done", "missing", "errored", "stale", "unscored", "score")
CELL_QUERY = """
WITH releases(position, name, system_hash) AS (VALUES {releases})
SELECT releases.position, k.position, c.run, c.status,
       c.input_hash = k.input_hash AND c.system_hash = releases.system_hash, c.output_hash,
       c.latency_ms, c.input_tokens, c.output_tokens, c.cost,
       CASE WHEN c.status != 'ok' THEN c.error_kind END, CASE WHEN c.status != 'ok' THEN c.error END,
       (length(c.attempts) - length(replace(c.attempts, '"n":', ''))) / 4{texts}
FROM cells c JOIN releases ON releases.name = c.release JOIN cases k ON k.case_id = c.case_id
WHERE c.run < ?
"""
TEXTS = ("output", "model", "fingerprint")
(RELEASE, CASE, RUN, STATUS, CURRENT, OUTPUT_HASH, LATENCY, INPUT_TOKENS, OUTPUT_TOKENS, COST, ERROR_KIND, ERROR,
 ATTEMPTS, OUTPUT, MODEL, FINGERPRINT) = range(16)
SCORES_QUERY = "SELECT output_hash, status, value, error FROM scores WHERE metric_hash = ?"
# The models each release answered with (the notes name them), from its current ok cells.
MODELS_QUERY = "SELECT DISTINCT release, system_hash, model, fingerprint FROM cells WHERE status = 'ok'"


def read_store(directory: Path, *, texts: bool = True) -> StoreTable:
    """Every expected cell as a row (holes have no outcome and an error message), plus the holes. Without
    ``texts`` the table has no output, model and fingerprint columns (the gate compares none of them), and
    ``models`` says which models and fingerprints each release answered with."""
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
            cases = connection.execute("SELECT case_id, fields FROM cases ORDER BY position").fetchall()
            releases = plan["releases"]
            query = CELL_QUERY.format(releases=", ".join("(?, ?, ?)" for _ in releases),
                                      texts="".join(f", c.{t}" for t in TEXTS) if texts else "")
            parameters = [*(x for i, r in enumerate(releases) for x in (i, r["name"], r["system_hash"])), plan["runs"]]
            rows = connection.execute(query, parameters).fetchall() if releases else []
            scores = {row[0]: row[1:] for row in connection.execute(SCORES_QUERY, (plan["metric"]["hash"],))}
            hashes = {r["name"]: r["system_hash"] for r in releases}
            models: dict[str, tuple[set[str], set[str]]] = {name: (set(), set()) for name in hashes}
            for release, system_hash, model, fingerprint in connection.execute(MODELS_QUERY):
                if hashes.get(release) == system_hash:
                    if model is not None:
                        models[release][0].add(str(model))
                    if fingerprint is not None:
                        models[release][1].add(str(fingerprint))
        finally:
            connection.close()
    except sqlite3.DatabaseError as exc:
        raise InputError(f"{path}: cannot read the run store: {exc}") from None
    value_column = "passed" if plan["metric"]["value"] == "passed" else "score"
    table, holes = _table(rows, scores, cases, releases, plan["runs"], value_column, texts)
    table.attrs["metric"] = plan["metric"]["name"]
    return StoreTable(table, holes, plan, tuple(meta.get("sweep_ranking") or ()),
                      {name: (tuple(sorted(m)), tuple(sorted(f))) for name, (m, f) in models.items()})


def _column(rows: list[tuple[Any, ...]], index: int) -> np.ndarray:
    column = np.empty(len(rows), dtype=object)
    column[:] = [row[index] for row in rows]
    return column


def _numbers(column: np.ndarray) -> np.ndarray:
    return pd.to_numeric(pd.Series(column, dtype=object), errors="coerce").to_numpy(dtype=float)


def _table(rows: list[tuple[Any, ...]], scores: dict[str, tuple[Any, ...]], cases: list[tuple[str, str]],
           releases: list[dict[str, Any]], n_runs: int, value_column: str,
           texts: bool) -> tuple[pd.DataFrame, tuple[Hole, ...]]:
    n_cases = len(cases)
    expected = len(releases) * n_cases * n_runs
    # Where each stored cell sits in the expected grid (release, case position, run): the table's order.
    at = np.fromiter(((row[RELEASE] * n_cases + row[CASE]) * n_runs + row[RUN] for row in rows), dtype=np.int64,
                     count=len(rows))
    score = [scores.get(row[OUTPUT_HASH]) if row[STATUS] == "ok" and row[CURRENT] == 1 else None for row in rows]
    cell_state = np.fromiter((1 if row[STATUS] is None else 2 if row[STATUS] != "ok" else 3 if row[CURRENT] != 1
                              else 4 if found is None else 5 if found[0] != "ok" else 0
                              for row, found in zip(rows, score, strict=True)), dtype=np.int64, count=len(rows))
    state = np.ones(expected, dtype=np.int64)  # missing unless stored
    state[at] = cell_state
    value = np.full(expected, np.nan)
    value[at] = np.where(cell_state == 0, _numbers(np.array([f[1] if f else None for f in score], dtype=object)),
                         np.nan)
    names = np.array([r["name"] for r in releases], dtype=object)
    case_ids = np.array([c for c, _ in cases], dtype=object)
    grid = np.arange(expected, dtype=np.int64)
    release_at, case_at, runs = grid // (n_cases * n_runs), (grid // n_runs) % n_cases, grid % n_runs
    error = np.full(expected, None, dtype=object)
    row_of = np.full(expected, -1, dtype=np.int64)
    row_of[at] = np.arange(len(rows))
    holes = []
    for i in np.flatnonzero(state != 0):
        k = row_of[i]
        hole = _hole(int(state[i]), rows[k] if k >= 0 else None, score[k] if k >= 0 else None,
                     str(names[release_at[i]]), str(case_ids[case_at[i]]), int(runs[i]))
        holes.append(hole)
        error[i] = hole.message or hole.reason
    frame: dict[str, Any] = {"release": names[release_at], "case_id": case_ids[case_at], "run": runs,
                             value_column: value, "error": error}
    answered = (cell_state != 1) & (cell_state != 2)  # an errored cell has no figures
    for name, index in (("latency_ms", LATENCY), ("input_tokens", INPUT_TOKENS), ("output_tokens", OUTPUT_TOKENS),
                        ("cost", COST)):
        column = np.full(expected, np.nan)
        column[at] = np.where(answered, _numbers(_column(rows, index)), np.nan)
        frame[name] = column
    if texts:
        for name, index in (("output", OUTPUT), ("model", MODEL), ("fingerprint", FINGERPRINT)):
            column = np.full(expected, None, dtype=object)
            column[at] = np.where(answered, _column(rows, index), None)
            frame[name] = column
    table = pd.DataFrame(frame)
    extras = _case_fields(cases)
    if extras is not None and len(table):
        taken = extras.iloc[case_at].reset_index(drop=True)
        table = pd.concat([table, taken], axis=1)
    return table, tuple(holes)


def _case_fields(cases: list[tuple[str, str]]) -> pd.DataFrame | None:
    """The cases' own columns (category, input, reference, ...), one row per case in the store's order."""
    records = [json.loads(fields) for _, fields in cases]
    if not records:
        return None
    frame = pd.DataFrame.from_records(records)
    kept = [c for c in frame.columns if c not in RUN_COLUMNS]
    return frame[kept] if kept else None


def _hole(state: int, row: tuple[Any, ...] | None, score: tuple[Any, ...] | None, release: str, case_id: str,
          run: int) -> Hole:
    what = STATES[state]
    if what == "missing" or row is None:
        return Hole(release, case_id, run, "missing")
    attempts = int(row[ATTEMPTS] or 0)
    if what == "errored":
        return Hole(release, case_id, run, row[STATUS], row[ERROR_KIND], attempts, row[ERROR])
    if what == "stale":
        return Hole(release, case_id, run, "stale", None, attempts, "the config changed since this cell ran")
    if what == "unscored" or score is None:
        return Hole(release, case_id, run, "unscored", None, attempts, "not scored by the current metric")
    return Hole(release, case_id, run, score[0], None, attempts, score[2])
