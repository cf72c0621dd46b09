"""What a run (or a resume) must do: every expected cell classified done / stale / errored / new / unscored,
and of the ones to call, those whose answer the store already holds by content (cached: no call).

Resume is by key, never by position: a cell is done when it is ok, both of its hashes equal the current
ones, and its output has an ok score under the current metric. The cells to call come in a seeded shuffled
order of cases, with every run and release of a case next to each other (an interrupted run stays balanced
across releases, and latency is not confounded with the provider's load over time).

The plan is never held cell by cell: a million cells as Python tuples, with their states and the lanes' lists,
were most of a run's memory. The cases go once into temporary tables of the store's connection (their order,
hashes and fields) with the systems and the runs, and SQLite classifies the cells against the store: the
counts in one aggregate query, and the cells to call, restore or score :data:`BATCH_CELLS` at a time, in the
planned order, when the run reaches them (:meth:`Plan.batches`). What a run holds in memory is a batch, not
the plan.
"""

from __future__ import annotations

import math
import random
import sqlite3
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from releasegate.errors import FileError, RunConfigError
from releasegate.run.config import MAX_CELLS, RunConfig, stable_hash
from releasegate.run.judge import rubric_case_fields
from releasegate.run.store import SCHEMA, Store

Key = tuple[str, str, int]
STATES = ("done", "stale", "errored", "new", "unscored", "cached")
BATCH_CELLS = 4096  # cells classified, and held, at once
NEW, ERRORED, STALE, DONE, UNSCORED = range(5)  # a cell's state as the query gives it
STATE_NAMES = ("new", "errored", "stale", "done", "unscored")
CALLED = (NEW, ERRORED, STALE)

TEMP_TABLES = """
DROP TABLE IF EXISTS temp.plan_cases;
DROP TABLE IF EXISTS temp.plan_systems;
DROP TABLE IF EXISTS temp.plan_runs;
CREATE TEMP TABLE plan_cases (rank INTEGER PRIMARY KEY, position INTEGER NOT NULL, case_id TEXT NOT NULL,
                              input_hash TEXT NOT NULL, fields TEXT NOT NULL);
CREATE TEMP TABLE plan_systems (position INTEGER PRIMARY KEY, name TEXT NOT NULL, system_hash TEXT NOT NULL,
                                planned INTEGER NOT NULL);
CREATE TEMP TABLE plan_runs (run INTEGER PRIMARY KEY);
"""
# Every expected cell with its state, in the planned order (cases by rank, then runs, then systems: CROSS JOIN
# keeps SQLite's loops in that order), each stored cell found by its primary key and its score by its own.
CELLS = """
SELECT k.rank AS rank, r.run AS run, s.position AS system, s.name AS release, s.system_hash AS system_hash,
       k.input_hash AS input_hash, s.planned AS planned, c.output AS output, c.output_hash AS output_hash,
       CASE WHEN c.status IS NULL THEN 0 WHEN c.status != 'ok' THEN 1
            WHEN c.input_hash != k.input_hash OR c.system_hash != s.system_hash THEN 2
            WHEN sc.status IS 'ok' THEN 3 ELSE 4 END AS state
FROM temp.plan_cases k CROSS JOIN temp.plan_runs r CROSS JOIN temp.plan_systems s
LEFT JOIN cells c ON c.release = s.name AND c.case_id = k.case_id AND c.run = r.run
LEFT JOIN scores sc ON sc.output_hash = c.output_hash AND sc.metric_hash = :metric
WHERE k.rank >= :first_case AND k.rank < :last_case AND r.run >= :first_run AND r.run < :last_run
"""
ANSWERED = """EXISTS (SELECT 1 FROM answers a WHERE a.release = x.release AND a.system_hash = x.system_hash
                      AND a.input_hash = x.input_hash AND a.run = x.run)"""
COUNTS = f"""SELECT x.release, x.planned, x.state, {{cached}} AS cached, count(*) FROM ({CELLS}) x
GROUP BY 1, 2, 3, 4"""
JUDGE_KEYS = f"SELECT count(DISTINCT x.output_hash) FROM ({CELLS}) x WHERE x.planned AND x.state = 4"
BATCH = f"""SELECT x.rank, x.run, x.release, x.state, {{cached}} AS cached, x.output, x.output_hash FROM ({CELLS}) x
WHERE x.planned AND x.state != 3{{only}} ORDER BY x.rank, x.run, x.system"""
RESTORE = f"""INSERT INTO cells (release, case_id, run, input_hash, system_hash, status, output, output_hash,
    input_tokens, output_tokens, cost, latency_ms, model, fingerprint, finish_reason, error_kind, error, attempts,
    started_at, finished_at)
SELECT a.release, k.case_id, a.run, a.input_hash, a.system_hash, 'ok', a.output, a.output_hash, a.input_tokens,
    a.output_tokens, a.cost, a.latency_ms, a.model, a.fingerprint, a.finish_reason, NULL, NULL, a.attempts,
    a.started_at, a.finished_at
FROM ({CELLS}) x JOIN temp.plan_cases k ON k.rank = x.rank
JOIN answers a ON a.release = x.release AND a.system_hash = x.system_hash AND a.input_hash = x.input_hash
    AND a.run = x.run
WHERE x.planned AND x.state < 3
ON CONFLICT (release, case_id, run) DO UPDATE SET input_hash = excluded.input_hash,
    system_hash = excluded.system_hash, status = 'ok', output = excluded.output, output_hash = excluded.output_hash,
    input_tokens = excluded.input_tokens, output_tokens = excluded.output_tokens, cost = excluded.cost,
    latency_ms = excluded.latency_ms, model = excluded.model, fingerprint = excluded.fingerprint,
    finish_reason = excluded.finish_reason, error_kind = NULL, error = NULL, attempts = excluded.attempts,
    started_at = excluded.started_at, finished_at = excluded.finished_at"""


@dataclass(frozen=True)
class Case:
    case_id: str
    input_hash: str
    fields: Mapping[str, Any]


@dataclass(frozen=True)
class Cell:
    """One expected cell of a batch, not done: its case, release, run, state (:data:`CALLED` are called; a
    cached one is restored instead), and for an ok cell its output and output hash."""

    case: Case
    release: str
    run: int
    state: int
    cached: bool
    output: str | None = None
    output_hash: str | None = None

    @property
    def key(self) -> Key:
        return self.release, self.case.case_id, self.run


class CaseTable:
    """The case file read once: its columns and each case's id, hash and fields (as JSON), in the file's order."""

    def __init__(self, frame: Any) -> None:
        self.frame = frame
        self.columns = tuple(str(c) for c in frame.columns)

    def __len__(self) -> int:
        return int(self.frame.shape[0])

    def rows(self, chunk: int = 10_000) -> Iterator[tuple[str, str, str]]:
        """(case_id, input hash, fields as JSON): converted a chunk of rows at a time."""
        import json

        for start in range(0, len(self), chunk):
            for record in self.frame.iloc[start:start + chunk].to_dict(orient="records"):
                fields = {str(k): _plain(v) for k, v in record.items()}
                fields["case_id"] = str(fields["case_id"])
                yield fields["case_id"], stable_hash(fields), json.dumps(fields, default=str)


@dataclass(frozen=True)
class Plan:
    """The counts of every state (``calls``: cells whose system must be called; ``cached``: cells whose answer
    the store holds by content, restored without a call, then scored; ``counts["unscored"]``: ok cells that
    need only a score) and, through :meth:`batches`, the cells themselves, a batch at a time."""

    counts: Mapping[str, int]
    expected: int
    judge: bool
    calls: int
    cached: int
    calls_by_system: Mapping[str, int]
    judge_keys: int = 0  # distinct outputs of the ok cells to score (a judge is asked once per key)
    connection: sqlite3.Connection | None = field(default=None, repr=False, compare=False)
    shape: tuple[int, int, int, str] = (0, 0, 0, "")  # cases, runs, systems (all, planned or not), metric hash

    def describe(self) -> str:
        c = self.counts
        judge = ""
        if self.judge:
            most = self.judge_keys + self.calls + self.cached
            judge = f" and at most {most} judge call(s) (one per distinct output)"
        cached = f", {c['cached']} answered before (restored from the store, no call)" if c.get("cached") else ""
        return (f"{self.expected} cells: {c['done']} done, {c['stale']} stale, {c['errored']} errored, "
                f"{c['new']} new, {c['unscored']} to score{cached}; would make {self.calls} system call(s)"
                f"{judge} (first attempts; retries come on top)")

    def batches(self, releases: set[str] | None = None, *, calls: bool = False) -> Iterator[list[Cell]]:
        """The planned cells that are not done (of these ``releases``; only those to call, with ``calls``), in
        the planned order, :data:`BATCH_CELLS` at a time, each batch classified when it is reached (so the cells
        of a batch reflect the store as it is then)."""
        assert self.connection is not None, "a plan made without a store has nothing to run"
        import json

        n_cases, runs, systems, metric = self.shape
        per_case = runs * systems
        named = {f"release{i}": name for i, name in enumerate(sorted(releases or ()))}
        only = (f" AND x.release IN ({', '.join(':' + key for key in named)})" if releases is not None else "") + (
            " AND x.state < 3" if calls else "")
        query = BATCH.format(cached=ANSWERED if _has_answers(self.connection) else "0", only=only)
        for first_case, last_case, first_run, last_run in _slices(n_cases, runs, per_case):
            rows = self.connection.execute(query, {"metric": metric, "first_case": first_case,
                                                   "last_case": last_case, "first_run": first_run,
                                                   "last_run": last_run, **named}).fetchall()
            if not rows:
                continue
            cases = {rank: Case(case_id, input_hash, json.loads(fields)) for rank, case_id, input_hash, fields in
                     self.connection.execute("SELECT rank, case_id, input_hash, fields FROM temp.plan_cases "
                                             "WHERE rank >= ? AND rank < ?", (first_case, last_case))}
            yield [Cell(cases[rank], release, run, state, bool(cached), output, output_hash)
                   for rank, run, release, state, cached, output, output_hash in rows]

    def calls_of(self, releases: set[str]) -> Iterator[Cell]:
        """The cells these releases' systems must call, in the planned order (cached ones are restored first)."""
        for batch in self.batches(releases, calls=True):
            yield from (cell for cell in batch if not cell.cached)

    def restore_cached(self) -> int:
        """The cached cells become their answers again, in one statement: how many."""
        assert self.connection is not None
        if not self.cached:
            return 0
        n_cases, runs, _, metric = self.shape
        with self.connection:
            self.connection.execute("BEGIN")
            cursor = self.connection.execute(RESTORE, {"metric": metric, "first_case": 0, "last_case": n_cases,
                                                       "first_run": 0, "last_run": runs})
        return cursor.rowcount


def _slices(n_cases: int, runs: int, per_case: int) -> Iterator[tuple[int, int, int, int]]:
    """(first case, last case, first run, last run) of each batch: whole cases while a case's cells fit in a
    batch, else one case a slice of runs at a time."""
    if per_case <= BATCH_CELLS:
        step = BATCH_CELLS // per_case
        for first in range(0, n_cases, step):
            yield first, min(first + step, n_cases), 0, runs
        return
    step = max(1, BATCH_CELLS // max(1, per_case // runs))
    for case in range(n_cases):
        for first in range(0, runs, step):
            yield case, case + 1, first, min(first + step, runs)


def _has_answers(connection: sqlite3.Connection) -> bool:
    """A store of schema 1 opened read-only (a dry run) has no answers table."""
    return connection.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'answers'").fetchone() \
        is not None


def read_cases(path: Path) -> CaseTable:
    """The case table: case_id plus the fields the systems need; hashed row by row when it is planned."""
    from releasegate.load.tidy import read_tidy

    if not Path(path).is_file():
        raise FileError(f"case file not found: {path}")
    frame = read_tidy(Path(path), text_columns=("case_id", "category", "cluster"))
    if "case_id" not in frame.columns:
        raise RunConfigError(f"{path}: the case table needs a case_id column; columns present: {', '.join(frame.columns)}")
    ids = frame["case_id"]
    if ids.isna().any() or (ids.astype(str).str.strip() == "").any():
        raise RunConfigError(f"{path}: blank case_id in the case table")
    dup = ids[ids.duplicated()]
    if len(dup):
        raise RunConfigError(f"{path}: case table lists {len(dup)} case_id(s) twice, e.g. {', '.join(map(str, dup[:3]))}")
    return CaseTable(frame)


def _plain(value: Any) -> Any:
    """NaN -> None and numpy scalars -> Python, so hashes and JSON are stable."""
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def check_cases(config: RunConfig, cases: CaseTable, only: str | None = None) -> None:
    """Before anything is called: the plan within :data:`MAX_CELLS`, and every field a template or the rubric
    reads present in the case table (a missing one would fail every cell the same way)."""
    systems = [s for s in config.systems if only is None or s.name == only]
    cells = len(cases) * config.runs * len(systems)
    if cells > MAX_CELLS:
        raise RunConfigError(f"the plan has {cells:,} cells ({len(cases):,} cases x {config.runs:,} runs x {len(systems)} "
                         f"systems); at most {MAX_CELLS:,} are run at once: fewer runs, cases or systems")
    columns = set(cases.columns) if len(cases) else set()
    for system in systems:
        for name in system.spec.get("fields", ()):
            if name not in columns:
                raise RunConfigError(f"system {system.name!r}: user_template uses {{{name}}}, which the case table does "
                                 f"not have; columns: {', '.join(sorted(columns))}")
    if config.metric.kind == "judge":
        for name in rubric_case_fields(config.metric):
            if name not in columns:
                raise RunConfigError(f"[run.metric]: the rubric uses {{{name}}}, which the case table does not have; "
                                 f"columns: {', '.join(sorted(columns))} (and output, reference)")


def save_expected(store: Store, config: RunConfig) -> None:
    """Record what a complete store holds (the cases as planned, the releases, runs and metric): the gate judges
    completeness against this, not against headers. Call after :func:`make_plan` on the same store."""
    plan: dict[str, Any] = {
        "releases": [{"name": s.name, "system_hash": s.system_hash, "kind": s.kind,
                      "model": s.spec.get("model")} for s in config.systems],
        "runs": config.runs,
        "metric": {"name": config.metric.name, "kind": config.metric.kind, "hash": config.metric.metric_hash,
                   "value": config.metric.value},
        "reference_field": config.reference_field,
    }
    if config.grid_candidates:
        plan["grid"] = {"baseline": config.grid_baseline, "candidates": list(config.grid_candidates)}
    store.save_plan(plan)


def make_plan(store: Store | None, config: RunConfig, cases: CaseTable, only: str | None = None) -> Plan:
    """Classify every expected cell; ``store=None`` is a store not created yet (a dry run creates nothing: the
    same queries run on an empty database in memory)."""
    systems = [s for s in config.systems if only is None or s.name == only]
    if only is not None and not systems:
        raise RunConfigError(f"--only {only!r}: no such system; systems: {', '.join(s.name for s in config.systems)}")
    if store is None:
        connection = sqlite3.connect(":memory:", isolation_level=None)
        connection.executescript(SCHEMA)
    else:
        connection = store.connection
    fill_tables(connection, config, cases, only)
    metric = config.metric.metric_hash
    shape = (len(cases), config.runs, len(config.systems), metric)
    window = {"metric": metric, "first_case": 0, "last_case": len(cases), "first_run": 0, "last_run": config.runs}
    counts = dict.fromkeys(STATES, 0)
    calls_by_system = {s.name: 0 for s in systems}
    cached_expression = ANSWERED if _has_answers(connection) else "0"
    query = COUNTS.format(cached=f"CASE WHEN x.state < 3 THEN {cached_expression} ELSE 0 END")
    for release, planned, state, cached, count in connection.execute(query, window):
        if not planned:
            continue
        counts[STATE_NAMES[state]] += count  # a cached cell is also counted as what it is (stale, ...)
        if cached:
            counts["cached"] += count
        elif state in CALLED:
            calls_by_system[release] += count
    judge_keys = 0
    if config.metric.kind == "judge" and counts["unscored"]:
        judge_keys = connection.execute(JUDGE_KEYS, window).fetchone()[0]
    return Plan(counts, len(cases) * config.runs * len(systems), judge=config.metric.kind == "judge",
                calls=sum(calls_by_system.values()), cached=counts["cached"], calls_by_system=calls_by_system,
                judge_keys=judge_keys, connection=connection if store is not None else None, shape=shape)


def fill_tables(connection: sqlite3.Connection, config: RunConfig, cases: CaseTable, only: str | None) -> None:
    """The cases in their seeded shuffled order (rank), every system (``planned`` when ``--only`` keeps it) and
    the runs, as temporary tables of this connection: they vanish with it and are never part of the store."""
    order = list(range(len(cases)))
    random.Random(config.seed).shuffle(order)
    rank_of = [0] * len(order)
    for rank, position in enumerate(order):
        rank_of[position] = rank
    del order
    connection.executescript(TEMP_TABLES)
    with connection:
        connection.execute("BEGIN")
        connection.executemany("INSERT INTO temp.plan_cases VALUES (?, ?, ?, ?, ?)",
                               ((rank_of[i], i, *row) for i, row in enumerate(cases.rows())))
        connection.executemany("INSERT INTO temp.plan_systems VALUES (?, ?, ?, ?)",
                               ((i, s.name, s.system_hash, only is None or s.name == only)
                                for i, s in enumerate(config.systems)))
        connection.executemany("INSERT INTO temp.plan_runs VALUES (?)", ((run,) for run in range(config.runs)))


def count_done(connection: sqlite3.Connection, config: RunConfig, n_cases: int) -> int:
    """The expected cells of every system that are done (after a run: the others are its holes)."""
    window = {"metric": config.metric.metric_hash, "first_case": 0, "last_case": n_cases, "first_run": 0,
              "last_run": config.runs}
    return connection.execute(f"SELECT count(*) FROM ({CELLS}) x WHERE x.state = 3", window).fetchone()[0]
