"""The run store: one SQLite file (WAL) per store directory; cells, answers and scores, each cell committed on its own.

WAL with synchronous=NORMAL: a commit survives a killed process (the log is written before the commit
returns); only a power loss may drop the last commits, which a resume re-runs. Writing a cell twice is an
upsert on (release, case_id, run), so a late duplicate answer leaves one row.

``cells`` is the current state of each expected cell; ``answers`` keeps every answer ever received, by content
(release, system hash, case input hash, run: the request sent, seed included, is a function of these), so that a
config changed and changed back finds its answers again instead of calling. The release is part of the key:
the same system under two names is called twice (that is how a rerun measures run-to-run churn).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Self

from releasegate.errors import StoreError
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
    PRIMARY KEY (release, system_hash, input_hash, run));
"""

CELL_COLUMNS = ("release", "case_id", "run", "input_hash", "system_hash", "status", "output", "output_hash",
                "input_tokens", "output_tokens", "cost", "latency_ms", "model", "fingerprint", "finish_reason",
                "error_kind", "error", "attempts", "started_at", "finished_at")
SCORE_COLUMNS = ("output_hash", "metric_hash", "metric", "status", "value", "judge_prompt", "judge_reply", "error",
                 "scored_at")
ANSWER_COLUMNS = ("release", "system_hash", "input_hash", "run", "output", "output_hash", "input_tokens",
                  "output_tokens", "cost", "latency_ms", "model", "fingerprint", "finish_reason", "attempts",
                  "started_at", "finished_at")
# Writing a cell or a score twice is an upsert: a late duplicate answer overwrites, leaving one row.
UPSERT_CELL = (f"INSERT INTO cells ({', '.join(CELL_COLUMNS)}) VALUES ({', '.join('?' * len(CELL_COLUMNS))}) "
               "ON CONFLICT(release, case_id, run) DO UPDATE SET "
               + ", ".join(f"{c} = excluded.{c}" for c in CELL_COLUMNS[3:]))
UPSERT_SCORE = (f"INSERT INTO scores ({', '.join(SCORE_COLUMNS)}) VALUES ({', '.join('?' * len(SCORE_COLUMNS))}) "
                "ON CONFLICT(output_hash, metric_hash) DO UPDATE SET "
                + ", ".join(f"{c} = excluded.{c}" for c in SCORE_COLUMNS[2:]))
PUT_ANSWER = (f"INSERT OR REPLACE INTO answers ({', '.join(ANSWER_COLUMNS)}) "
              f"VALUES ({', '.join('?' * len(ANSWER_COLUMNS))})")
# A cached answer becomes the cell again (no call): the cell's columns from the answer's.
RESTORE_CELL = (f"INSERT INTO cells ({', '.join(CELL_COLUMNS)}) SELECT release, ?, run, input_hash, system_hash, "
                "'ok', output, output_hash, input_tokens, output_tokens, cost, latency_ms, model, fingerprint, "
                "finish_reason, NULL, NULL, attempts, started_at, finished_at FROM answers "
                "WHERE release = ? AND system_hash = ? AND input_hash = ? AND run = ? "
                "ON CONFLICT(release, case_id, run) DO UPDATE SET "
                + ", ".join(f"{c} = excluded.{c}" for c in CELL_COLUMNS[3:]))
# Version 1 had no answers table: its ok cells are the first answers.
MIGRATE_1 = (f"INSERT OR IGNORE INTO answers ({', '.join(ANSWER_COLUMNS)}) SELECT {', '.join(ANSWER_COLUMNS)} "
             "FROM cells WHERE status = 'ok' AND output IS NOT NULL")

AnswerKey = tuple[str, str, str, int]  # release, system_hash, input_hash, run


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
                self.connection.executescript(SCHEMA)
            version = self.get_meta("schema_version")
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{path}: cannot open the run store: {exc}") from None
        except OSError as exc:
            raise StoreError(f"{self.directory}: cannot create the run store: {exc.strerror or exc}") from None
        if version is not None and version > SCHEMA_VERSION:
            raise StoreError(f"{path}: store schema version {version}, this releasegate reads up to {SCHEMA_VERSION}")
        if not read_only and version != SCHEMA_VERSION:
            with self.connection:
                self.connection.execute("BEGIN")
                if version == 1:
                    self.connection.execute(MIGRATE_1)
                self._set_meta("schema_version", SCHEMA_VERSION)
        self.has_answers = self.connection.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'answers'").fetchone() is not None

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

    def save_plan(self, plan: Mapping[str, Any], cases: Iterable[tuple[str, str, Mapping[str, Any]]]) -> None:
        """The expected cells (releases x cases x runs, metric): what "complete" is judged against."""
        with self.connection:
            self.connection.execute("BEGIN")
            self.connection.execute("DELETE FROM cases")
            self.connection.executemany(
                "INSERT INTO cases (case_id, position, input_hash, fields) VALUES (?, ?, ?, ?)",
                ((case_id, i, input_hash, json.dumps(fields, default=str)) for i, (case_id, input_hash, fields)
                 in enumerate(cases)))
            self._set_meta("plan", plan)

    def plan(self) -> dict[str, Any] | None:
        return self.get_meta("plan")

    def cases(self) -> list[tuple[str, str, dict[str, Any]]]:
        rows = self.connection.execute("SELECT case_id, input_hash, fields FROM cases ORDER BY position")
        return [(case_id, input_hash, json.loads(fields)) for case_id, input_hash, fields in rows]

    # -- cells ----------------------------------------------------------------------------------------
    def put_cell(self, cell: Mapping[str, Any], score: Mapping[str, Any] | None = None) -> None:
        """Upsert one cell (and its score, if given; and its answer, if ok) and commit: one transaction."""
        values = [cell.get(c) for c in CELL_COLUMNS]
        values[CELL_COLUMNS.index("attempts")] = attempts = json.dumps(list(cell.get("attempts") or ()))
        connection = self.connection
        connection.execute("BEGIN")
        try:
            connection.execute(UPSERT_CELL, values)
            if cell.get("status") == "ok":
                connection.execute(PUT_ANSWER, [attempts if c == "attempts" else cell.get(c) for c in ANSWER_COLUMNS])
            if score is not None:
                connection.execute(UPSERT_SCORE, [score.get(c) for c in SCORE_COLUMNS])
            connection.execute("COMMIT")
        except BaseException:
            connection.execute("ROLLBACK")
            raise

    def restore_answers(self, cells: Iterable[tuple[str, AnswerKey]]) -> int:
        """Cached answers become their cells again, in one transaction: (case_id, answer key) pairs."""
        with self.connection:
            self.connection.execute("BEGIN")
            cursor = self.connection.executemany(RESTORE_CELL, ((case_id, *key) for case_id, key in cells))
        return cursor.rowcount

    def cell_states(self, metric_hash: str = "") -> dict[tuple[str, str, int], tuple[str, str, str, bool]]:
        """(release, case_id, run) -> (status, input_hash, system_hash, scored ok under metric_hash); plain
        tuples and the join done by SQLite, since a resume of 100,000 cells builds one per cell."""
        rows = self.connection.execute(
            "SELECT c.release, c.case_id, c.run, c.status, c.input_hash, c.system_hash, s.status IS 'ok' "
            "FROM cells c LEFT JOIN scores s ON s.output_hash = c.output_hash AND s.metric_hash = ?", (metric_hash,))
        return {row[:3]: row[3:] for row in rows}

    def answered(self, keys: list[AnswerKey]) -> set[AnswerKey]:
        """Which of these (release, system hash, input hash, run) have an answer stored."""
        if not keys or not self.has_answers:
            return set()
        if len(keys) > 2000:  # many: one scan of the releases' answers beats a lookup each
            found: set[AnswerKey] = set()
            for release, system_hash in {(k[0], k[1]) for k in keys}:
                found.update((release, system_hash, h, r) for h, r in self.connection.execute(
                    "SELECT input_hash, run FROM answers WHERE release = ? AND system_hash = ?",
                    (release, system_hash)))
            return found & set(keys)
        query = "SELECT 1 FROM answers WHERE release = ? AND system_hash = ? AND input_hash = ? AND run = ?"
        return {key for key in keys if self.connection.execute(query, key).fetchone() is not None}

    def distinct_outputs(self, keys: list[tuple[str, str, int]]) -> int:
        """How many distinct outputs these cells hold (a judge is asked once per output)."""
        wanted = set(keys)
        rows = self.connection.execute("SELECT release, case_id, run, output_hash FROM cells WHERE status = 'ok'")
        return len({row[3] for row in rows if row[:3] in wanted})

    def cell_output(self, key: tuple[str, str, int]) -> tuple[str, str] | None:
        return self.connection.execute(
            "SELECT output, output_hash FROM cells WHERE release = ? AND case_id = ? AND run = ?", key).fetchone()

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
    def put_score(self, score: Mapping[str, Any]) -> None:
        self.connection.execute(UPSERT_SCORE, [score.get(c) for c in SCORE_COLUMNS])

    def put_scores(self, scores: list[Mapping[str, Any]]) -> None:
        """Many scores in one transaction (a re-score of a whole store after a metric change)."""
        if not scores:
            return
        with self.connection:
            self.connection.execute("BEGIN")
            self.connection.executemany(UPSERT_SCORE, ([score.get(c) for c in SCORE_COLUMNS] for score in scores))

    def scores(self, metric_hash: str) -> dict[str, dict[str, Any]]:
        cursor = self.connection.execute(
            f"SELECT {', '.join(SCORE_COLUMNS)} FROM scores WHERE metric_hash = ?", (metric_hash,))
        return {row[0]: dict(zip(SCORE_COLUMNS, row, strict=True)) for row in cursor}

    def scored_ok(self, metric_hash: str) -> set[str]:
        rows = self.connection.execute("SELECT output_hash FROM scores WHERE metric_hash = ? AND status = 'ok'",
                                       (metric_hash,))
        return {row[0] for row in rows}

    # -- health ---------------------------------------------------------------------------------------
    def integrity(self) -> str:
        """SQLite's own check of every page and index: "ok" or the first problem found."""
        return self.connection.execute("PRAGMA integrity_check").fetchone()[0]
