"""The run store: one SQLite file (WAL) per store directory; cells, answers and scores, committed in bounded batches.

WAL with synchronous=NORMAL: a commit survives a killed process (the log is written before the commit
returns); only a power loss may drop the last commits, which a resume re-runs. Writing a cell twice is an
upsert on (release, case_id, run), so a late duplicate answer leaves one row.

``cells`` is the current state of each expected cell and holds its answer; ``answers`` keeps the answers a cell
no longer holds, by content (release, system hash, case input hash, run: the request sent, seed included, is a
function of these), so that a config changed and changed back finds its answers again instead of calling. A
trigger moves an ok cell's answer there when a write replaces it with another answer or an error, so every
answer ever received is in one of the two tables and each is stored once: a store is about one cell row per
cell (earlier stores copied every answer into ``answers`` as it came, twice the bytes, and an index of two
64-character hashes on top). The release is part of the key: the same system under two names is called twice
(that is how a rerun measures run-to-run churn).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Self

from releasegate.errors import StoreError
from releasegate.load.store_columns import SCHEMA as COLUMNS_SCHEMA
from releasegate.load.store_trust import CASES_KEY, PLANNED_CASES, cases_record
from releasegate.load.store_table import DB_NAME, db_path, is_store  # noqa: F401 (the one definition)

SCHEMA_VERSION = 2

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS cases (
    case_id TEXT PRIMARY KEY, position INTEGER NOT NULL, input_hash TEXT NOT NULL, fields TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS cells (
    release TEXT NOT NULL, case_id TEXT NOT NULL, run INTEGER NOT NULL,
    input_hash TEXT NOT NULL, system_hash TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('ok', 'error', 'permanent')),
    output TEXT, output_hash TEXT,
    input_tokens INTEGER, output_tokens INTEGER, cost REAL, latency_ms REAL,
    model TEXT, fingerprint TEXT, finish_reason TEXT,
    error_kind TEXT, error TEXT, attempts TEXT NOT NULL,
    started_at TEXT NOT NULL, finished_at TEXT NOT NULL,
    PRIMARY KEY (release, case_id, run));
CREATE TABLE IF NOT EXISTS scores (
    output_hash TEXT NOT NULL, metric_hash TEXT NOT NULL, metric TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('ok', 'unparseable', 'error')),
    value REAL, judge_prompt TEXT, judge_reply TEXT, error TEXT, scored_at TEXT NOT NULL,
    PRIMARY KEY (output_hash, metric_hash));
CREATE TABLE IF NOT EXISTS answers (
    release TEXT NOT NULL, system_hash TEXT NOT NULL, input_hash TEXT NOT NULL, run INTEGER NOT NULL,
    output TEXT NOT NULL, output_hash TEXT NOT NULL,
    input_tokens INTEGER, output_tokens INTEGER, cost REAL, latency_ms REAL,
    model TEXT, fingerprint TEXT, finish_reason TEXT, attempts TEXT NOT NULL,
    started_at TEXT NOT NULL, finished_at TEXT NOT NULL,
    PRIMARY KEY (release, system_hash, input_hash, run)) WITHOUT ROWID;
CREATE TRIGGER IF NOT EXISTS keep_replaced_answer BEFORE UPDATE ON cells
WHEN old.status = 'ok' AND old.output IS NOT NULL
     AND NOT (new.status = 'ok' AND new.system_hash = old.system_hash AND new.input_hash = old.input_hash)
BEGIN
    INSERT OR REPLACE INTO answers (release, system_hash, input_hash, run, output, output_hash, input_tokens,
        output_tokens, cost, latency_ms, model, fingerprint, finish_reason, attempts, started_at, finished_at)
    VALUES (old.release, old.system_hash, old.input_hash, old.run, old.output, old.output_hash, old.input_tokens,
        old.output_tokens, old.cost, old.latency_ms, old.model, old.fingerprint, old.finish_reason, old.attempts,
        old.started_at, old.finished_at);
END;
"""

CELL_COLUMNS = ("release", "case_id", "run", "input_hash", "system_hash", "status", "output", "output_hash",
                "input_tokens", "output_tokens", "cost", "latency_ms", "model", "fingerprint", "finish_reason",
                "error_kind", "error", "attempts", "started_at", "finished_at")
SCORE_COLUMNS = ("output_hash", "metric_hash", "metric", "status", "value", "judge_prompt", "judge_reply", "error",
                 "scored_at")
# Writing a cell or a score twice is an upsert: a late duplicate answer overwrites, leaving one row.
UPSERT_CELL = (f"INSERT INTO cells ({', '.join(CELL_COLUMNS)}) VALUES ({', '.join('?' * len(CELL_COLUMNS))}) "
               "ON CONFLICT(release, case_id, run) DO UPDATE SET "
               + ", ".join(f"{c} = excluded.{c}" for c in CELL_COLUMNS[3:]))
UPSERT_SCORE = (f"INSERT INTO scores ({', '.join(SCORE_COLUMNS)}) VALUES ({', '.join('?' * len(SCORE_COLUMNS))}) "
                "ON CONFLICT(output_hash, metric_hash) DO UPDATE SET "
                + ", ".join(f"{c} = excluded.{c}" for c in SCORE_COLUMNS[2:]))


class Store:
    """A connection to one store; use as a context manager or call close(). ``read_only`` (a dry run) opens an
    existing store without creating, migrating or writing anything."""

    def __init__(self, directory: Path, *, create: bool = True, fresh: bool = False, read_only: bool = False) -> None:
        self.directory = Path(directory)
        self.read_only = read_only
        path = db_path(self.directory)
        if (read_only or not create) and not path.is_file():
            raise StoreError(f"{self.directory}: not a run store (no {DB_NAME} inside)")
        try:
            if read_only:
                self.connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30.0,
                                                  isolation_level=None)
            else:
                self.directory.mkdir(parents=True, exist_ok=True)
                if fresh:
                    for suffix in ("", "-wal", "-shm"):
                        Path(str(path) + suffix).unlink(missing_ok=True)
                self.connection = sqlite3.connect(path, timeout=30.0, isolation_level=None)
                self.connection.execute("PRAGMA journal_mode=WAL")
                self.connection.execute("PRAGMA synchronous=NORMAL")
                self.connection.executescript(SCHEMA + COLUMNS_SCHEMA)
            version = self.get_meta("schema_version")
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{path}: cannot open the run store: {exc}") from None
        except OSError as exc:
            raise StoreError(f"{self.directory}: cannot create the run store: {exc.strerror or exc}") from None
        if version is not None and version > SCHEMA_VERSION:
            raise StoreError(f"{path}: store schema version {version}, this releasegate reads up to {SCHEMA_VERSION}")
        if not read_only and version != SCHEMA_VERSION:
            with self.connection:
                self.connection.execute("BEGIN")  # a version 1 store's ok cells hold its answers already
                self._set_meta("schema_version", SCHEMA_VERSION)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.connection.close()

    # -- meta and cases -------------------------------------------------------------------------------
    def get_meta(self, key: str) -> Any:
        try:
            row = self.connection.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        except sqlite3.OperationalError:
            return None  # a store whose first transaction never committed has no tables yet
        return None if row is None else json.loads(row[0])

    def set_meta(self, key: str, value: Any) -> None:
        self._set_meta(key, value)

    def delete_meta(self, key: str) -> None:
        self.connection.execute("DELETE FROM meta WHERE key = ?", (key,))

    def _set_meta(self, key: str, value: Any) -> None:
        self.connection.execute("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET "
                                "value = excluded.value", (key, json.dumps(value, sort_keys=True)))

    def save_plan(self, plan: Mapping[str, Any]) -> None:
        """The expected cells (releases x cases x runs, metric): what "complete" is judged against. The cases
        are the ones :func:`releasegate.run.plan.make_plan` put in this connection's ``temp.plan_cases``."""
        with self.connection:
            self.connection.execute("BEGIN")
            self.connection.execute("DELETE FROM cases")
            self.connection.execute("INSERT INTO cases (case_id, position, input_hash, fields) "
                                    "SELECT case_id, position, input_hash, fields FROM temp.plan_cases")
            # The plan records its cases too: a case row deleted later is then a store refused, not a smaller grid.
            cases = self.connection.execute(PLANNED_CASES).fetchall()
            self._set_meta("plan", {**plan, CASES_KEY: cases_record(cases)})

    def plan(self) -> dict[str, Any] | None:
        return self.get_meta("plan")

    # -- cells ----------------------------------------------------------------------------------------
    def put_cell(self, cell: Mapping[str, Any], score: Mapping[str, Any] | None = None) -> None:
        """Upsert one cell (and its score, if given) and commit: one transaction."""
        values = [cell.get(c) for c in CELL_COLUMNS]
        values[CELL_COLUMNS.index("attempts")] = json.dumps(list(cell.get("attempts") or ()))
        connection = self.connection
        connection.execute("BEGIN")
        try:
            connection.execute(UPSERT_CELL, values)
            if score is not None:
                connection.execute(UPSERT_SCORE, [score.get(c) for c in SCORE_COLUMNS])
            connection.execute("COMMIT")
        except BaseException:
            connection.execute("ROLLBACK")
            raise

    def cells(self) -> list[dict[str, Any]]:
        cursor = self.connection.execute(f"SELECT {', '.join(CELL_COLUMNS)} FROM cells")
        out = []
        for row in cursor:
            cell = dict(zip(CELL_COLUMNS, row, strict=True))
            cell["attempts"] = json.loads(cell["attempts"])
            out.append(cell)
        return out

    def count_cells(self, status: str | None = None) -> int:
        if status is None:
            return self.connection.execute("SELECT COUNT(*) FROM cells").fetchone()[0]
        return self.connection.execute("SELECT COUNT(*) FROM cells WHERE status = ?", (status,)).fetchone()[0]

    # -- scores ---------------------------------------------------------------------------------------
    def scores(self, metric_hash: str) -> dict[str, dict[str, Any]]:
        cursor = self.connection.execute(
            f"SELECT {', '.join(SCORE_COLUMNS)} FROM scores WHERE metric_hash = ?", (metric_hash,))
        return {row[0]: dict(zip(SCORE_COLUMNS, row, strict=True)) for row in cursor}

    # -- health ---------------------------------------------------------------------------------------
    def integrity(self) -> str:
        """SQLite's own check of every page and index: "ok" or the first problem found."""
        return self.connection.execute("PRAGMA integrity_check").fetchone()[0]
