"""A ``releasegate run`` store -> the tidy table ``compare`` reads, and the holes: every expected cell not done.

Complete means no expected cell is missing, errored, stale or unscored; it is judged from the cells and the
plan recorded in the store, never from a header field. Totals are sums over the stored cells. The store is
read here with sqlite3 alone, read-only (its writer is :mod:`releasegate.run.store`), so that the gate reads a
store without importing what runs the systems.

The stored cells are placed in the expected grid (the plan's releases x the cases x the runs, in the plan's
order) by SQLite in one query, their scores matched by hash, and the columns built from the rows with numpy,
all in one read transaction: 100,000 cells in 0.3 CPU s (issue 30, item 8). Hole records are made only for the
holes.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
import pandas as pd

from releasegate.errors import StoreError

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
    settled: Any = None  # the settled verdict run --settle recorded (load/settled.py reads it), as stored

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


# The stored cells of the plan's releases and cases (the expected cells that have one), with only what a
# done cell needs: where it sits in the expected grid (release, case position, run: the table's order), whether
# it is errored (2) or stale (3), the output hash of a current ok cell (its score is looked up by it) and its
# figures. What a hole record says (the status, error and number of attempts; SQLite counts the attempts: each
# attempt record holds one "n": key) is read by a second query, only when a stored cell is a hole: each value
# fetched through sqlite3 costs, and at 100,000 cells those five columns were 0.06 s of the 0.2 s query. The
# scores are read by one scan and matched by hash with a pandas index (an SQL join on the scores' key took
# 0.1 s more), and the rows are taken apart by column, with no other per-cell Python code.
STATES = ("done", "missing", "errored", "stale", "unscored", "score")
CURRENT = "c.input_hash = k.input_hash AND c.system_hash = releases.system_hash"
CELLS = """
FROM cells c JOIN releases ON releases.name = c.release JOIN cases k ON k.case_id = c.case_id
WHERE c.run < ?
"""
CELL_QUERY = f"""
WITH releases(position, name, system_hash) AS (VALUES {{releases}})
SELECT (releases.position * ? + k.position) * ? + c.run,
       CASE WHEN c.status != 'ok' THEN 2 WHEN NOT ({CURRENT}) THEN 3 ELSE 0 END,
       CASE WHEN c.status = 'ok' AND {CURRENT} THEN c.output_hash END,
       c.latency_ms, c.input_tokens, c.output_tokens, c.cost{{texts}}{CELLS}"""
DETAILS_QUERY = f"""
WITH releases(position, name, system_hash) AS (VALUES {{releases}})
SELECT (releases.position * ? + k.position) * ? + c.run, c.status, CASE WHEN c.status != 'ok' THEN c.error_kind END,
       CASE WHEN c.status != 'ok' THEN c.error END,
       (length(c.attempts) - length(replace(c.attempts, '"n":', ''))) / 4{CELLS}"""
TEXTS = ("output", "model", "fingerprint")
AT, STATE, OUTPUT_HASH, LATENCY, INPUT_TOKENS, OUTPUT_TOKENS, COST, OUTPUT, MODEL, FINGERPRINT = range(10)
STATUS, ERROR_KIND, ERROR, ATTEMPTS = range(1, 5)  # of a details row
SCORES_QUERY = "SELECT output_hash, status, value, error FROM scores WHERE metric_hash = ?"
# The models each release answered with (the notes name them), from its current ok cells.
MODELS_QUERY = "SELECT DISTINCT release, system_hash, model, fingerprint FROM cells WHERE status = 'ok'"


def read_store(directory: Path, *, texts: bool = True) -> StoreTable:
    """Every expected cell as a row (holes have no outcome and an error message), plus the holes. Without
    ``texts`` the table has no output, model and fingerprint columns (the gate compares none of them), and
    ``models`` says which models and fingerprints each release answered with."""
    path = db_path(directory)
    if not path.is_file():
        raise StoreError(f"{directory}: not a run store (no {DB_NAME} inside)")
    try:
        connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30.0)
        try:
            connection.execute("BEGIN")  # every query below reads the same state of the store
            meta = {k: json.loads(v) for k, v in connection.execute("SELECT key, value FROM meta")}
            plan = meta.get("plan")
            if plan is None:
                raise StoreError(f"{directory}: the store has no plan yet (run `releasegate run CONFIG.toml` first)")
            cases = connection.execute("SELECT case_id, fields FROM cases ORDER BY position").fetchall()
            releases = plan["releases"]
            values = ", ".join("(?, ?, ?)" for _ in releases)
            query = CELL_QUERY.format(releases=values, texts="".join(f", c.{t}" for t in TEXTS) if texts else "")
            parameters = [*(x for i, r in enumerate(releases) for x in (i, r["name"], r["system_hash"])),
                          len(cases), plan["runs"], plan["runs"]]
            rows = connection.execute(query, parameters).fetchall() if releases else []
            scores = connection.execute(SCORES_QUERY, (plan["metric"]["hash"],)).fetchall()
            table, holes = _table(rows, scores, cases, releases, plan["runs"], _value_column(plan), texts,
                                  lambda: connection.execute(DETAILS_QUERY.format(releases=values), parameters))
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
        raise StoreError(f"{path}: cannot read the run store: {exc}") from None
    table.attrs["metric"] = plan["metric"]["name"]
    return StoreTable(table, holes, plan, tuple(meta.get("sweep_ranking") or ()),
                      {name: (tuple(sorted(m)), tuple(sorted(f))) for name, (m, f) in models.items()},
                      meta.get("settled"))


def _value_column(plan: dict[str, Any]) -> str:
    return "passed" if plan["metric"]["value"] == "passed" else "score"


def _numbers(values: list[Any]) -> np.ndarray:
    """A column of SQLite numbers (NULL = NaN) as floats; a text in it is read as pandas reads one (unreadable
    = NaN), so a hand-edited store reads as before."""
    if str in set(map(type, values)):
        return pd.to_numeric(pd.Series(values, dtype=object), errors="coerce").to_numpy(dtype=float)
    return np.array(values, dtype=float)


def _table(rows: list[tuple[Any, ...]], scores: list[tuple[Any, ...]], cases: list[tuple[str, str]],
           releases: list[dict[str, Any]], n_runs: int, value_column: str, texts: bool,
           details: Callable[[], Iterable[tuple[Any, ...]]]) -> tuple[pd.DataFrame, tuple[Hole, ...]]:
    n_cases = len(cases)
    expected = len(releases) * n_cases * n_runs
    # By column with a comprehension each: zip(*rows) made an iterator per row, 100,000 objects the cyclic
    # collector passed over (two full collections, 0.08 s, when it runs: the library leaves it on).
    width = len(rows[0]) if rows else FINGERPRINT + 1
    columns = [[row[i] for row in rows] for i in range(width)]
    at = np.array(columns[AT], dtype=np.int64)
    # A current ok cell is done if its output has an ok score, unscored without one, else the score's hole.
    score_hashes, score_status, score_value = ([score[i] for score in scores] for i in range(3))
    found = pd.Index(score_hashes, dtype=object).get_indexer(np.array(columns[OUTPUT_HASH], dtype=object))
    found_ok = np.append(np.array(score_status, dtype=object) == "ok", False)[found]  # found -1: the False
    cell_state = np.array(columns[STATE], dtype=np.int64)
    cell_state[(cell_state == 0) & (found < 0)] = 4
    cell_state[(cell_state == 0) & ~found_ok] = 5
    state = np.ones(expected, dtype=np.int64)  # missing unless stored
    state[at] = cell_state
    value = np.full(expected, np.nan)
    value[at] = np.where(cell_state == 0, np.append(_numbers(score_value), np.nan)[found], np.nan)
    names = np.array([r["name"] for r in releases], dtype=object)
    case_ids = np.array([c for c, _ in cases], dtype=object)
    grid = np.arange(expected, dtype=np.int64)
    release_at, case_at, runs = grid // (n_cases * n_runs), (grid // n_runs) % n_cases, grid % n_runs
    error = np.full(expected, None, dtype=object)
    row_of = np.full(expected, -1, dtype=np.int64)
    row_of[at] = np.arange(len(rows))
    detail_of = {row[AT]: row for row in details()} if (cell_state != 0).any() else {}
    holes = []
    for i in np.flatnonzero(state != 0):
        k = row_of[i]
        score = scores[found[k]] if k >= 0 and found[k] >= 0 else None
        hole = _hole(int(state[i]), detail_of.get(int(i)), score, str(names[release_at[i]]),
                     str(case_ids[case_at[i]]), int(runs[i]))
        holes.append(hole)
        error[i] = hole.message or hole.reason
    frame: dict[str, Any] = {"release": names[release_at], "case_id": case_ids[case_at], "run": runs,
                             value_column: value, "error": error}
    answered = (cell_state != 1) & (cell_state != 2)  # an errored cell has no figures
    for name, index in (("latency_ms", LATENCY), ("input_tokens", INPUT_TOKENS), ("output_tokens", OUTPUT_TOKENS),
                        ("cost", COST)):
        column = np.full(expected, np.nan)
        column[at] = np.where(answered, _numbers(columns[index]), np.nan)
        frame[name] = column
    if texts:
        for name, index in (("output", OUTPUT), ("model", MODEL), ("fingerprint", FINGERPRINT)):
            column = np.full(expected, None, dtype=object)
            values = np.empty(len(rows), dtype=object)
            values[:] = columns[index]
            column[at] = np.where(answered, values, None)
            frame[name] = column
    table = pd.DataFrame(frame)
    extras = _case_fields(cases)
    if extras is not None and len(table):
        taken = extras.iloc[case_at].reset_index(drop=True)
        table = pd.concat([table, taken], axis=1)
    return table, tuple(holes)


def _case_fields(cases: list[tuple[str, str]]) -> pd.DataFrame | None:
    """The cases' own columns (category, input, reference, ...), one row per case in the store's order."""
    if not cases:
        return None
    records = json.loads("[" + ",".join(fields for _, fields in cases) + "]")  # one parse, not one a case
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
    return Hole(release, case_id, run, score[1], None, attempts, score[3])
