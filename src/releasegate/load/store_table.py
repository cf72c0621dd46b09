"""A ``releasegate run`` store -> the tidy table ``compare`` reads, and the holes: every expected cell not done.

Complete means no expected cell is missing, errored, stale or unscored; it is judged from the cells and the
plan recorded in the store, never from a header field. Totals are sums over the stored cells. The store is
read here with sqlite3 alone, read-only (its writer is :mod:`releasegate.run.store`), so that the gate reads a
store without importing what runs the systems.

The stored cells are placed in the expected grid (the plan's releases x the cases x the runs, in the plan's
order; the cases only once they are the ones the plan recorded, :mod:`releasegate.load.store_trust`) by
SQLite in one query, their scores matched by hash, and the columns built from the rows with numpy,
all in one read transaction: 100,000 cells in 0.3 CPU s. A finished run keeps the result as columns in the
store (:mod:`releasegate.load.store_columns`), read in one pass (0.06 CPU s) while they still describe it.
Hole records are made only for the holes.
"""

from __future__ import annotations

import itertools
import json
import operator
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
import pandas as pd

from releasegate.errors import StoreError
from releasegate.load.store_columns import Grid, save_grid, saved_grid
from releasegate.load.store_trust import CASES_QUERY, checked_cases, checked_meta

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


# The stored cells of the plan's releases and cases (the expected cells that have one), in one query: where each
# sits in the expected grid (release, case position, run: the table's order), its state (done 0, errored 2,
# stale 3, unscored 4, a score that is a hole 5; missing cells, 1, have no row), the score's value and its
# figures, SQLite joining the cells to the releases, the cases and the scores. Only numbers come back, and they
# are taken into arrays in one pass over all of them (:func:`_columns`): at 100,000 cells the per-value Python
# work of fetching hashes and texts, matching scores by hash and taking rows apart by column was most of a
# check on a store, and fetching the rows through sqlite3 still is (0.2 of 0.37 CPU s: what the kept columns
# spare the gate). What a hole record says (the status, error and number of
# attempts; SQLite counts the attempts: each attempt record holds one "n": key) is read by a second query, only
# when a stored cell is a hole; the texts (output, model, fingerprint) by a third, only when asked for.
STATES = ("done", "missing", "errored", "stale", "unscored", "score")
CURRENT = "c.input_hash = k.input_hash AND c.system_hash = releases.system_hash"
# The cells are the outer loop, read by a range of rowids (a slice of the table at a time, so that what is held
# does not grow with the store: :data:`ROWIDS_AT_ONCE`).
CELLS = """
FROM cells c CROSS JOIN releases ON releases.name = c.release JOIN cases k ON k.case_id = c.case_id{scores}
WHERE c.run < ? AND c.rowid >= ? AND c.rowid < ?
"""
ROWIDS_AT_ONCE = 16_384
SCORES_AT_ONCE = 262_144  # a metric with more scores has them read a slice's at a time
EVERY_ROW = (-(2**63), 2**63 - 1)
SCORED = "\nLEFT JOIN scores s ON s.output_hash = c.output_hash AND s.metric_hash = ?"
GRID = "(releases.position * ? + k.position) * ? + c.run"
CELL_QUERY = f"""
WITH releases(position, name, system_hash) AS (VALUES {{releases}})
SELECT {GRID}, CASE WHEN c.status != 'ok' THEN 2 WHEN NOT ({CURRENT}) THEN 3 ELSE 0 END,
       ifnull(c.latency_ms, {{null}}), ifnull(c.input_tokens, {{null}}), ifnull(c.output_tokens, {{null}}),
       ifnull(c.cost, {{null}}), CASE WHEN c.status = 'ok' AND {CURRENT} THEN c.output_hash END{CELLS.format(scores="")}"""
# NULL comes back as minus infinity (a float: every number of a row is then a float, taken in one pass) unless
# the store holds a minus infinity of its own (asked only when one came back); then as NULL, read by column.
NULL_AS_NUMBER = "-9e999"
MINUS_INFINITY = ("SELECT EXISTS (SELECT 1 FROM cells WHERE latency_ms = -9e999 OR input_tokens = -9e999 OR "
                  "output_tokens = -9e999 OR cost = -9e999)")
DETAILS_QUERY = f"""
WITH releases(position, name, system_hash) AS (VALUES {{releases}})
SELECT {GRID}, c.status, CASE WHEN c.status != 'ok' THEN c.error_kind END,
       CASE WHEN c.status != 'ok' THEN c.error END,
       (length(c.attempts) - length(replace(c.attempts, '"n":', ''))) / 4, s.status, s.error{CELLS.format(scores=SCORED)}
       AND (c.status != 'ok' OR NOT ({CURRENT}) OR s.status IS NOT 'ok')"""
TEXTS_QUERY = f"""
WITH releases(position, name, system_hash) AS (VALUES {{releases}})
SELECT {GRID}, c.output, c.model, c.fingerprint{CELLS.format(scores="")}"""
AT, STATE_AT, LATENCY, INPUT_TOKENS, OUTPUT_TOKENS, COST, OUTPUT_HASH = range(7)
FIGURES = (("latency_ms", LATENCY), ("input_tokens", INPUT_TOKENS), ("output_tokens", OUTPUT_TOKENS), ("cost", COST))
STATUS, ERROR_KIND, ERROR, ATTEMPTS, SCORE_STATUS, SCORE_ERROR = range(1, 7)  # of a details row
SCORES_QUERY = "SELECT output_hash, status, value FROM scores WHERE metric_hash = ?"
SCORES_OF_ROWS = SCORES_QUERY + " AND output_hash IN (SELECT output_hash FROM cells WHERE rowid >= ? AND rowid < ?)"
COUNT_SCORES = "SELECT count(*) FROM scores WHERE metric_hash = ?"
TEXTS = ("output", "model", "fingerprint")
# The models each release answered with (the notes name them), from its current ok cells.
MODELS_QUERY = "SELECT DISTINCT release, system_hash, model, fingerprint FROM cells WHERE status = 'ok'"


def read_store(directory: Path, *, texts: bool = True) -> StoreTable:
    """Every expected cell as a row (holes have no outcome and an error message), plus the holes. Without
    ``texts`` the table has no output, model and fingerprint columns (the gate compares none of them), and
    ``models`` says which models and fingerprints each release answered with. The cells' numbers come from the
    columns the store keeps (:mod:`releasegate.load.store_columns`) when they still describe it."""
    path = db_path(directory)
    if not path.is_file():
        raise StoreError(f"{directory}: not a run store (no {DB_NAME} inside)")
    try:
        connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30.0)
        try:
            connection.execute("BEGIN")  # every query below reads the same state of the store
            meta_text = dict(connection.execute("SELECT key, value FROM meta"))
            meta = checked_meta(directory, meta_text)
            plan = meta.get("plan")
            if plan is None:
                raise StoreError(f"{directory}: the store has no plan yet (run `releasegate run CONFIG.toml` first)")
            cases = checked_cases(directory, plan, connection.execute(CASES_QUERY).fetchall())
            query = _querier(connection, plan, len(cases))
            expected = len(plan["releases"]) * len(cases) * plan["runs"]
            grid = saved_grid(connection, meta_text["plan"], expected) or _read_grid(connection, plan, len(cases))
            texts_of = (lambda: query(TEXTS_QUERY)) if texts else None
            table, holes = _table(grid, cases, plan["releases"], plan["runs"], _value_column(plan),
                                  lambda: query(DETAILS_QUERY, scored=True), texts_of)
        finally:
            connection.close()
    except sqlite3.DatabaseError as exc:
        raise StoreError(f"{path}: cannot read the run store: {exc}") from None
    table.attrs["metric"] = plan["metric"]["name"]
    return StoreTable(table, holes, plan, tuple(meta.get("sweep_ranking") or ()), grid.models, meta.get("settled"))


def keep_columns(connection: sqlite3.Connection) -> None:
    """Compute the cells' numbers of the store's current plan and keep them as its columns, in one write
    transaction (a run calls this when it finishes; ``connection`` is in autocommit mode)."""
    connection.execute("BEGIN IMMEDIATE")
    try:
        row = connection.execute("SELECT value FROM meta WHERE key = 'plan'").fetchone()
        if row is not None:
            n_cases = connection.execute("SELECT count(*) FROM cases").fetchone()[0]
            save_grid(connection, row[0], _read_grid(connection, json.loads(row[0]), n_cases))
        connection.execute("COMMIT")
    except BaseException:
        connection.execute("ROLLBACK")
        raise


def _querier(connection: sqlite3.Connection, plan: dict[str, Any], n_cases: int) -> Callable[..., Any]:
    """Runs one of the grid's queries (the releases as a VALUES list, the grid's sizes as parameters)."""
    releases = plan["releases"]
    values = ", ".join("(?, ?, ?)" for _ in releases)
    cell_parameters = [*(x for i, r in enumerate(releases) for x in (i, r["name"], r["system_hash"])),
                       n_cases, plan["runs"], plan["runs"]]
    scored_parameters = [*cell_parameters[:-1], plan["metric"]["hash"], plan["runs"]]

    def query(sql: str, null: str = "NULL", scored: bool = False, rows: tuple[int, int] = EVERY_ROW) -> Any:
        if not releases:
            return iter(())
        return connection.execute(sql.format(releases=values, null=null),
                                  [*(scored_parameters if scored else cell_parameters), *rows])

    return query


def _read_grid(connection: sqlite3.Connection, plan: dict[str, Any], n_cases: int) -> Grid:
    """The expected cells' numbers computed from the stored cells and scores (the caller holds a transaction), a
    slice of :data:`ROWIDS_AT_ONCE` cells at a time, the metric's scores read in one scan (or, past
    :data:`SCORES_AT_ONCE` of them, each slice with the scores of its own outputs)."""
    query = _querier(connection, plan, n_cases)
    expected = len(plan["releases"]) * n_cases * plan["runs"]
    grid = Grid(np.ones(expected, dtype=np.int64), np.full(expected, np.nan),  # missing unless stored
                {name: np.full(expected, np.nan) for name, _ in FIGURES}, {})
    first, last = connection.execute("SELECT min(rowid), max(rowid) FROM cells").fetchone()
    holds: list[bool] = []  # whether the store holds a minus infinity of its own: asked once, when needed

    def minus_infinity() -> bool:
        if not holds:
            holds.append(connection.execute(MINUS_INFINITY).fetchone()[0] == 1)
        return holds[0]

    metric = plan["metric"]["hash"]
    every_score = None
    if connection.execute(COUNT_SCORES, (metric,)).fetchone()[0] <= SCORES_AT_ONCE:
        every_score = _scores(connection.execute(SCORES_QUERY, (metric,)).fetchall())
    for start in range(first, last + 1, ROWIDS_AT_ONCE) if first is not None else ():
        rowids = (start, start + ROWIDS_AT_ONCE)
        rows = query(CELL_QUERY, NULL_AS_NUMBER, rows=rowids).fetchall()
        columns = _columns(rows, lambda: query(CELL_QUERY, rows=rowids).fetchall(), minus_infinity)
        scores = every_score or _scores(connection.execute(SCORES_OF_ROWS, (metric, *rowids)).fetchall())
        _place(columns, [row[OUTPUT_HASH] for row in rows], scores, grid)
    hashes = {r["name"]: r["system_hash"] for r in plan["releases"]}
    models: dict[str, tuple[set[str], set[str]]] = {name: (set(), set()) for name in hashes}
    for release, system_hash, model, fingerprint in connection.execute(MODELS_QUERY):
        if hashes.get(release) == system_hash:
            if model is not None:
                models[release][0].add(str(model))
            if fingerprint is not None:
                models[release][1].add(str(fingerprint))
    grid.models.update({name: (tuple(sorted(m)), tuple(sorted(f))) for name, (m, f) in models.items()})
    return grid


def _value_column(plan: dict[str, Any]) -> str:
    return "passed" if plan["metric"]["value"] == "passed" else "score"


def _numbers(values: list[Any]) -> np.ndarray:
    """A column of SQLite numbers (NULL = NaN) as floats; a text in it is read as pandas reads one (unreadable
    = NaN), so a hand-edited store reads as before, and a blob as unreadable."""
    kinds = set(map(type, values))
    if bytes in kinds:
        values = [np.nan if isinstance(v, bytes) else v for v in values]
    if str in kinds:
        return pd.to_numeric(pd.Series(values, dtype=object), errors="coerce").to_numpy(dtype=float)
    return np.array(values, dtype=float)


def _columns(rows: list[tuple[Any, ...]], again: Callable[[], list[tuple[Any, ...]]],
             minus_infinity: Callable[[], bool]) -> list[np.ndarray]:
    """The cells' numbers (the place in the grid, the state, the four figures) as one float array per column
    (NULL = NaN), in one C pass over all of them when they are all numbers (the common case: NULL fetched as
    minus infinity; only when one came back is the store asked whether it holds a minus infinity of its own);
    by column otherwise, the rows fetched ``again`` with their NULLs (a hand-edited store's texts read as pandas
    reads them)."""
    width = COST + 1
    try:
        flat = np.fromiter(itertools.chain.from_iterable(map(_NUMBERS, rows)), dtype=float, count=len(rows) * width)
    except (TypeError, ValueError):  # a text among them
        pass
    else:
        nulls = np.isneginf(flat)
        if not nulls.any() or not minus_infinity():
            flat[nulls] = np.nan
            return list(flat.reshape(len(rows), width).T)
    rows = again()
    return [_numbers([np.nan if row[i] is None else row[i] for row in rows]) for i in range(width)]


_NUMBERS = operator.itemgetter(slice(0, COST + 1))


def _scores(rows: list[tuple[Any, ...]]) -> tuple[pd.Index, np.ndarray, np.ndarray]:
    """Scores as a pandas index of their output hashes, whether each is ok and its value, each array ending in
    the answer for a hash not found (position -1): not ok, no value."""
    hashes, status, value = ([row[i] for row in rows] for i in range(3))
    return (pd.Index(hashes, dtype=object), np.append(np.array(status, dtype=object) == "ok", False),
            np.append(_numbers(value), np.nan))


def _place(columns: list[np.ndarray], output_hashes: list[Any], scores: tuple[pd.Index, np.ndarray, np.ndarray],
           grid: Grid) -> None:
    """Each stored cell's state, value and figures, from its columns and its outputs' scores, into ``grid``."""
    at = columns[AT].astype(np.int64)
    # A current ok cell is done if its output has an ok score, unscored without one, else the score's hole; the
    # scores are matched by hash with a pandas index (SQLite's join on the scores' key cost more than the whole
    # rest of the query).
    index, ok, values = scores
    found = index.get_indexer(np.array(output_hashes, dtype=object))
    found_ok = ok[found]
    cell_state = columns[STATE_AT].astype(np.int64)
    cell_state[(cell_state == 0) & (found < 0)] = 4
    cell_state[(cell_state == 0) & ~found_ok] = 5
    grid.state[at] = cell_state
    grid.value[at] = np.where(cell_state == 0, values[found], np.nan)
    answered = (cell_state != 1) & (cell_state != 2)  # an errored cell has no figures
    for name, index in FIGURES:
        grid.figures[name][at] = np.where(answered, columns[index], np.nan)


def _table(grid: Grid, cases: list[tuple[str, str]], releases: list[dict[str, Any]], n_runs: int, value_column: str,
           details: Callable[[], Iterable[tuple[Any, ...]]],
           texts: Callable[[], Iterable[tuple[Any, ...]]] | None) -> tuple[pd.DataFrame, tuple[Hole, ...]]:
    n_cases = len(cases)
    state = grid.state
    expected = len(state)
    names = np.array([r["name"] for r in releases], dtype=object)
    case_ids = np.array([c for c, _ in cases], dtype=object)
    grid_at = np.arange(expected, dtype=np.int64)
    release_at, case_at, runs = grid_at // (n_cases * n_runs), (grid_at // n_runs) % n_cases, grid_at % n_runs
    error = np.full(expected, None, dtype=object)
    stored_holes = (state != 0) & (state != 1)  # a missing cell has no record to read
    detail_of = {int(row[AT]): row for row in details()} if stored_holes.any() else {}
    holes = []
    for i in np.flatnonzero(state != 0):
        hole = _hole(int(state[i]), detail_of.get(int(i)), str(names[release_at[i]]), str(case_ids[case_at[i]]),
                     int(runs[i]))
        holes.append(hole)
        error[i] = hole.message or hole.reason
    frame: dict[str, Any] = {"release": names[release_at], "case_id": case_ids[case_at], "run": runs,
                             value_column: grid.value, "error": error, **grid.figures}
    if texts is not None:
        text_rows = list(texts())
        where = np.array([row[0] for row in text_rows], dtype=np.int64)
        kept = (state[where] != 1) & (state[where] != 2)
        for offset, name in enumerate(TEXTS, start=1):
            column = np.full(expected, None, dtype=object)
            stored = np.empty(len(text_rows), dtype=object)
            stored[:] = [row[offset] for row in text_rows]
            column[where] = np.where(kept, stored, None)
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


def _hole(state: int, row: tuple[Any, ...] | None, release: str, case_id: str, run: int) -> Hole:
    what = STATES[state]
    if what == "missing" or row is None:
        return Hole(release, case_id, run, "missing")
    attempts = int(row[ATTEMPTS] or 0)
    if what == "errored":
        return Hole(release, case_id, run, row[STATUS], row[ERROR_KIND], attempts, row[ERROR])
    if what == "stale":
        return Hole(release, case_id, run, "stale", None, attempts, "the config changed since this cell ran")
    if what == "unscored" or row[SCORE_STATUS] is None:
        return Hole(release, case_id, run, "unscored", None, attempts, "not scored by the current metric")
    return Hole(release, case_id, run, row[SCORE_STATUS], None, attempts, row[SCORE_ERROR])
