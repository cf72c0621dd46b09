"""The numbers of a run store's expected cells kept as columns inside the store, so that the gate reads them in
one pass instead of row by row.

``read_store`` places every stored cell in the expected grid (the plan's releases x cases x runs), matches its
score and takes its four figures; done row by row through sqlite3 that was most of a ``check`` on a store (at
100,000 cells about 0.3 of its 0.4 CPU s of reading, where the same cells as CSV read in 0.06). A run, when it
finishes, stores the result of that placing in ``cell_columns``: one blob per column (each cell's state, its
value, its four figures: little-endian arrays in the grid's order) and the models each release answered with,
beside the plan text they were computed from. The gate takes them when they are there and still describe the
store, and computes them from the cells otherwise (a store written before, or changed since).

"Still describe the store": a trigger empties ``cell_columns`` on every insert, update or delete of a cell, a
score or a case, whoever writes (an older releasegate included: the triggers are in the store's schema), and the
plan text must be the store's current one (the releases, their system hashes, the runs and the metric are in
it). The triggers are only as good as their presence: a store whose triggers were dropped or rewritten (by hand,
or by a tool that rebuilds a table and loses them), or written by a connection that turned them off, could have
had a cell deleted that the columns still call done. So the columns are read only while every trigger is in the
schema as written and the three tables hold as many rows as when the columns were kept (three counts, about 2
ms at 100,000 cells); otherwise the cells are read, and a deleted one is a missing cell. An update made with the
triggers off that leaves every count as it was is not seen: checking the columns against the cells would be
reading the cells, which is what the columns spare. A saved column of the wrong length, or a state out of range,
is not read. The hole records (an errored cell's message, its attempts) and the texts are still read from the
cells, only where they are needed.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from typing import Any

import numpy as np

FIGURE_NAMES = ("latency_ms", "input_tokens", "output_tokens", "cost")
STATE_COUNT = 6  # done, missing, errored, stale, unscored, a score that is a hole (store_table.STATES)

WATCHED = ("cells", "scores", "cases")
TRIGGERS = {f"cell_columns_{table}_{event.lower()}": f"AFTER {event} ON {table} BEGIN DELETE FROM cell_columns; END"
            for table in WATCHED for event in ("INSERT", "UPDATE", "DELETE")}
SCHEMA = "CREATE TABLE IF NOT EXISTS cell_columns (name TEXT PRIMARY KEY, value BLOB NOT NULL);\n" + "".join(
    f"CREATE TRIGGER IF NOT EXISTS {name} {body};\n" for name, body in TRIGGERS.items())
# The triggers as the store holds them (SQLite keeps the statement's text, without IF NOT EXISTS), and the rows of
# the tables they watch: the columns are read only while both are what they were when the columns were kept.
TRIGGERS_QUERY = (f"SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name IN "
                  f"({', '.join(repr(name) for name in TRIGGERS)})")
ROWS_QUERY = "SELECT " + ", ".join(f"(SELECT count(*) FROM {table})" for table in WATCHED)


@dataclass(frozen=True)
class Grid:
    """The expected cells' numbers in the plan's order: each cell's state (an index of ``store_table.STATES``),
    its value (NaN unless done), its four figures (NaN where the cell has none: missing or errored), and per
    release the models and system fingerprints its current answers came from."""

    state: np.ndarray
    value: np.ndarray
    figures: dict[str, np.ndarray]
    models: dict[str, tuple[tuple[str, ...], tuple[str, ...]]]


def saved_grid(connection: sqlite3.Connection, plan_text: str, expected: int) -> Grid | None:
    """The grid the store keeps for this plan, or None when it keeps none that describes it."""
    try:
        stored = dict(connection.execute("SELECT name, value FROM cell_columns"))
    except sqlite3.OperationalError:  # a store made before the columns were kept, opened read-only
        return None
    if stored.get("plan") != plan_text.encode("utf-8") or not _unchanged(connection, stored.get("rows")):
        return None
    try:
        state = np.frombuffer(stored["state"], dtype=np.int8)
        value = np.frombuffer(stored["value"], dtype="<f8")
        figures = {name: np.frombuffer(stored[name], dtype="<f8") for name in FIGURE_NAMES}
        models = {name: (tuple(map(str, m)), tuple(map(str, f)))
                  for name, (m, f) in json.loads(stored["models"]).items()}
    except (AttributeError, KeyError, TypeError, ValueError):
        return None
    if any(len(column) != expected for column in (state, value, *figures.values())):
        return None
    if expected and (state.min() < 0 or state.max() >= STATE_COUNT):
        return None
    # Copies: the blobs' buffers are read-only, and the table's columns are arrays the later stages own.
    return Grid(state.astype(np.int64), value.astype(float),
                {name: column.astype(float) for name, column in figures.items()}, models)


def save_grid(connection: sqlite3.Connection, plan_text: str, grid: Grid) -> None:
    """Keep ``grid`` as the columns of ``plan_text`` (the caller holds the write transaction it was read in)."""
    rows: list[tuple[str, Any]] = [("plan", plan_text.encode("utf-8")), ("state", grid.state.astype(np.int8)),
                                   ("value", _floats(grid.value)),
                                   *((name, _floats(grid.figures[name])) for name in FIGURE_NAMES),
                                   ("models", json.dumps(grid.models, sort_keys=True).encode("utf-8")),
                                   ("rows", json.dumps(_rows(connection)).encode("utf-8"))]
    connection.execute("DELETE FROM cell_columns")
    # The arrays are bound as they are (sqlite3 reads a blob from any buffer): no copy of a column in bytes.
    connection.executemany("INSERT INTO cell_columns (name, value) VALUES (?, ?)",
                           [(name, memoryview(value) if isinstance(value, np.ndarray) else value)
                            for name, value in rows])


def _unchanged(connection: sqlite3.Connection, rows: bytes | None) -> bool:
    """Whether the triggers that empty the columns are all there as written, and the tables they watch hold as
    many rows as when the columns were kept. A store whose triggers were dropped (by hand, or by a tool that
    rewrote its schema) could have had any cell deleted since: its columns are not read, the cells are."""
    held = dict(connection.execute(TRIGGERS_QUERY))
    if any(held.get(name) != f"CREATE TRIGGER {name} {body}" for name, body in TRIGGERS.items()):
        return False
    try:
        return rows is not None and json.loads(rows) == _rows(connection)
    except (TypeError, ValueError):  # not the JSON text the run wrote: the columns are not read
        return False


def _rows(connection: sqlite3.Connection) -> list[int]:
    return list(connection.execute(ROWS_QUERY).fetchone())


def _floats(column: np.ndarray) -> np.ndarray:
    """``column`` as contiguous little-endian doubles, copied only if it is not already."""
    return np.ascontiguousarray(column, dtype="<f8")
