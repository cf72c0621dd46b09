"""The run's writes: the cells and scores finished while the last commit ran, committed as one transaction.

A commit costs 150-250 microseconds of wall time here (the WAL append and, every thousand pages, a
checkpoint with its fsync). One commit per cell on the event loop's thread held up every request in flight
for that long; a writer thread woken for every cell fought the loop for the interpreter lock (0.3 ms a cell,
measured). So the writes of a turn of the loop are handed, together, to one writer thread; while it commits,
the next batch gathers: one commit per cell while cells come slowly, one for several when they come fast. A
killed process loses only the cells in flight and those waiting for the commit under way (milliseconds'
worth); a resume calls them again. Each cell is written with its answer and, for a local
metric, its score, in the same transaction, so a stored cell is never without them.

A write that fails (a full disk, a store deleted under the run) stops the run with one line: the error is
raised by the next :meth:`StoreWriter.put` and by :meth:`StoreWriter.close`.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from releasegate.errors import StoreError
from releasegate.run.store import ANSWER_COLUMNS, CELL_COLUMNS, PUT_ANSWER, SCORE_COLUMNS, UPSERT_CELL, UPSERT_SCORE

Statement = tuple[str, Sequence[Any]]


def cell_statements(cell: Mapping[str, Any], score: Mapping[str, Any] | None) -> list[Statement]:
    """The upserts of one cell: the cell, its answer when ok (the content cache), its score if given."""
    attempts = json.dumps(list(cell.get("attempts") or ()))
    values = [attempts if c == "attempts" else cell.get(c) for c in CELL_COLUMNS]
    statements: list[Statement] = [(UPSERT_CELL, values)]
    if cell.get("status") == "ok":
        statements.append((PUT_ANSWER, [attempts if c == "attempts" else cell.get(c) for c in ANSWER_COLUMNS]))
    if score is not None:
        statements.append(score_statement(score))
    return statements


def score_statement(score: Mapping[str, Any]) -> Statement:
    return UPSERT_SCORE, [score.get(c) for c in SCORE_COLUMNS]


class StoreWriter:
    """Commits on a thread of its own (its own connection; SQLite releases the interpreter lock while it
    writes), one batch at a time: while a batch commits, the next one gathers."""

    def __init__(self, path: Path) -> None:
        from concurrent.futures import ThreadPoolExecutor

        self.path = path
        self.pending: list[Statement] = []
        self.scheduled = False
        self.committing: asyncio.Future[None] | None = None
        self.error: BaseException | None = None
        self.commits = 0
        self.executor = ThreadPoolExecutor(1, thread_name_prefix="releasegate-store")
        self.connection: sqlite3.Connection | None = None

    def put(self, statements: list[Statement]) -> None:
        """Queue one cell's (or score's) statements for the next commit."""
        self._raise()
        self.pending.extend(statements)
        self._schedule()

    def _schedule(self) -> None:
        if not self.scheduled and self.committing is None:
            self.scheduled = True
            asyncio.get_running_loop().call_soon(self._flush)

    def _flush(self) -> None:
        """At the end of a turn of the loop: hand what is pending to the writer thread."""
        self.scheduled = False
        if not self.pending or self.error is not None or self.committing is not None:
            return
        statements, self.pending = self.pending, []
        self.committing = asyncio.get_running_loop().run_in_executor(self.executor, self._commit, statements)
        self.committing.add_done_callback(self._committed)

    def _committed(self, future: asyncio.Future[None]) -> None:
        self.committing = None
        if not future.cancelled() and future.exception() is not None:
            self.error = future.exception()
            return
        self.commits += 1
        if self.pending:
            self._schedule()

    def _commit(self, statements: list[Statement]) -> None:
        if self.connection is None:
            self.connection = sqlite3.connect(self.path, timeout=30.0, isolation_level=None)
            self.connection.execute("PRAGMA synchronous=NORMAL")
        connection = self.connection
        by_statement: dict[str, list[Sequence[Any]]] = {}
        for sql, values in statements:  # the tables are independent: one executemany per statement
            by_statement.setdefault(sql, []).append(values)
        connection.execute("BEGIN")
        try:
            for sql, rows in by_statement.items():
                connection.executemany(sql, rows)
            connection.execute("COMMIT")
        except BaseException:
            connection.execute("ROLLBACK")
            raise

    async def close(self) -> None:
        """Commit what is left; raise the first write error, if any."""
        try:
            while self.committing is not None or (self.pending and self.error is None):
                if self.committing is not None:
                    await asyncio.wait([self.committing])
                    continue
                self._flush()
        finally:
            await asyncio.get_running_loop().run_in_executor(self.executor, self._close_connection)
            self.executor.shutdown(wait=True)
        self._raise()

    def _close_connection(self) -> None:
        if self.connection is not None:
            self.connection.close()
            self.connection = None

    def _raise(self) -> None:
        if self.error is not None:
            error = self.error
            detail = error.strerror if isinstance(error, OSError) and error.strerror else error
            raise StoreError(f"{self.path}: cannot write the run store: {detail}")
