"""Executing a plan: one lane of workers per endpoint, batched commits, judge calls once per distinct key.

Lanes: the cells of the systems that share an endpoint (base_url + model) are one work list, in the planned
order, taken by as many workers as the endpoint's concurrency; a fake or Python system is a lane of its own.
Each lane reads its cells from the plan a batch at a time (:meth:`releasegate.run.plan.Plan.batches`), and
finished cells wait for the store when :data:`releasegate.run.writer.MAX_PENDING` rows are queued, so what a
run holds does not grow with its plan.
So a slow or rate-limited provider holds up only its own cells. The judge is a lane too, fed as answers
arrive: each distinct (output hash, judge hash) is asked once, within a run and across resumes (an ok score
in the store is never asked again; an unparseable one is asked once more on the next resume).

Everything stored or printed passes the redactor first (:mod:`releasegate.run.secrets`).
"""

from __future__ import annotations

import asyncio
import datetime as _dt
import hashlib
import json
import random
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from releasegate.load.store_table import db_path
from releasegate.run.attempts import Attempts, RunStats
from releasegate.run.calls import Request, Score
from releasegate.run.config import RunConfig
from releasegate.run.judge import judge_prompt, parse_judge
from releasegate.run.limits import EndpointGate, shared_limits
from releasegate.run.metric_kinds import is_judged, local_score
from releasegate.run.plan import UNSCORED, Case, Cell, Plan
from releasegate.run.secrets import Redactor
from releasegate.run.spec import SystemConfig
from releasegate.run.store import UPSERT_CELL, Store
from releasegate.run.system_kinds import SYSTEM_KINDS
from releasegate.run.writer import ONE_OK_ATTEMPT, ONE_OK_ATTEMPT_JSON, Statement, StoreWriter, score_statement

JUDGE = "\0judge"
JUDGE_QUEUE = 1024  # outputs waiting for the judge; beyond, whoever asks waits
RECENT_SCORES = 4096
_json_text = json.encoder.encode_basestring  # the JSON string of a text, as json.dumps(ensure_ascii=False) writes it
SCORED_OK = "SELECT 1 FROM scores WHERE output_hash = ? AND metric_hash = ? AND status = 'ok'"


_SECOND: list[Any] = [None, ""]  # the last whole second formatted: one strftime a second, not three a cell


def utc_now() -> str:
    """The time as 2026-12-01T17:22:05.123456Z."""
    now = time.time()
    second = int(now)
    if _SECOND[0] != second:
        _SECOND[0], _SECOND[1] = second, _dt.datetime.fromtimestamp(second, tz=_dt.UTC).strftime("%Y-%m-%dT%H:%M:%S")
    return f"{_SECOND[1]}.{int((now - second) * 1e6):06d}Z"


def output_hash(input_hash: str, output: str) -> str:
    """The score cache key covers the case with the output: "Paris" is right for one case, wrong for another.
    The bytes hashed are :func:`releasegate.run.spec.stable_hash`'s of ``[input_hash, output]``, written out
    (a JSON encoder per cell was a tenth of the engine's CPU)."""
    text = f"[{_json_text(input_hash)},{_json_text(output)}]"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class CallerContext:
    """What a system kind's ``make_caller`` may read."""

    config: RunConfig
    environ: Mapping[str, str]
    sleep: Callable[[float], Any]

    @property
    def reference_field(self) -> str:
        return self.config.reference_field

    @property
    def max_response_bytes(self) -> int:
        return self.config.max_response_bytes

    def max_connections(self, system: SystemConfig) -> int:
        return self.config.limits(system).max_concurrency or self.config.max_concurrency


def lane_name(system: SystemConfig) -> str:
    """Systems on one endpoint share a lane (and its limits); a system without an endpoint is its own lane."""
    return system.endpoint if system.endpoint is not None else f"\0{system.name}"


class Runner:
    def __init__(self, config: RunConfig, store: Store, *,
                 clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], Any] = asyncio.sleep,
                 rng: random.Random | None = None, progress: Any = None,
                 callers: Mapping[str, Any] | None = None, environ: Mapping[str, str] | None = None,
                 redactor: Redactor | None = None) -> None:
        self.config, self.store, self.clock, self.sleep = config, store, clock, sleep
        self.progress = progress
        self.stats = RunStats()
        self.redactor = redactor or Redactor()
        self.attempts = Attempts(config, clock, sleep, rng or random.Random(config.seed), self.stats,
                                 progress.rate_limited if progress is not None else None)
        context = CallerContext(config, environ if environ is not None else {}, sleep)
        self.callers = dict(callers or {})
        self.systems = {s.name: s for s in config.systems}
        judge = config.metric.judge
        for system in (*config.systems, *([judge] if judge is not None else [])):
            name = JUDGE if system is judge else system.name
            if name not in self.callers:
                self.callers[name] = SYSTEM_KINDS[system.kind].make_caller(system, context)
        on_lane: dict[str, list[SystemConfig]] = {}
        for system in (*config.systems, *([judge] if judge is not None else [])):
            on_lane.setdefault(lane_name(system), []).append(system)
        self.gates = {lane: EndpointGate(systems[0].endpoint or systems[0].name,
                                         shared_limits([config.limits(s) for s in systems]), clock, sleep)
                      for lane, systems in on_lane.items()}
        self.judged = is_judged(config.metric)
        self.judge_queue: asyncio.Queue[tuple[Case, str, str] | None] = asyncio.Queue(JUDGE_QUEUE)
        self.asked: set[str] = set()  # output hashes queued for the judge in this run
        self.recent: dict[str, None] = {}  # the last RECENT_SCORES output hashes a local metric scored, in order
        self.writer: StoreWriter | None = None

    # -- the whole plan -------------------------------------------------------------------------------
    async def execute(self, plan: Plan) -> RunStats:
        from concurrent.futures import ThreadPoolExecutor

        began = time.perf_counter()
        lanes: dict[str, set[str]] = {}
        for name, count in plan.calls_by_system.items():
            if count:
                lanes.setdefault(lane_name(self.systems[name]), set()).add(name)
        calls = {lane: sum(plan.calls_by_system[name] for name in names) for lane, names in lanes.items()}
        workers = sum(min(self.gates[lane].concurrency, calls[lane]) for lane in lanes) + (
            self._judge_gate().concurrency if self.judged else 0)
        # Sync callables run in worker threads: as many as may be in flight (the default pool has cpu + 4).
        asyncio.get_running_loop().set_default_executor(ThreadPoolExecutor(max(1, workers)))
        try:
            self.stats.cells_cached = plan.restore_cached()  # answers found by content: the cells again, no call
            self.writer = StoreWriter(db_path(self.store.directory))
            judge_workers = [asyncio.ensure_future(self._judge_worker()) for _ in
                             range(self._judge_gate().concurrency if self.judged else 0)]
            try:
                scoring = [self._rescore(plan)] if plan.counts["unscored"] or plan.cached else []
                await asyncio.gather(*scoring, *(self._lane(plan.calls_of(names), calls[lane], self.gates[lane])
                                                 for lane, names in lanes.items()))
            except BaseException:
                for task in judge_workers:
                    task.cancel()
                await asyncio.gather(*judge_workers, return_exceptions=True)
                raise
            for _ in judge_workers:  # every answer is in: the judges finish the queue, then stop
                await self.judge_queue.put(None)
            await asyncio.gather(*judge_workers)
        finally:
            for caller in self.callers.values():
                await caller.close()
            if self.writer is not None:
                await self.writer.close()  # every queued cell committed (or the write error raised)
            self.stats.seconds = time.perf_counter() - began
        return self.stats

    def _judge_gate(self) -> EndpointGate:
        judge = self.config.metric.judge
        assert judge is not None
        return self.gates[lane_name(judge)]

    async def _lane(self, cells: Iterator[Cell], count: int, gate: EndpointGate) -> None:
        async def worker() -> None:
            for cell in cells:  # one shared iterator: workers take the next cell in the planned order
                if self.stats.stopped:
                    return
                await self._call_cell(cell, gate)

        await asyncio.gather(*(worker() for _ in range(min(gate.concurrency, count))))

    async def _put(self, statements: list[Statement]) -> None:
        """Queue statements for the store; wait while the store is behind (a bounded queue)."""
        writer = self.writer
        assert writer is not None
        writer.put(statements)
        if writer.full:
            await writer.room()

    # -- one cell -------------------------------------------------------------------------------------
    async def _call_cell(self, cell: Cell, gate: EndpointGate) -> None:
        release, case, run = cell.release, cell.case, cell.run
        system = self.systems[release]
        started = utc_now()

        def request(attempt: int) -> Request:
            return Request(release, case.fields, run, attempt)

        outcome = await self.attempts.run(self.callers[release], request, gate, release, judge=False)
        redact = self.redactor
        attempts = outcome.attempts
        if attempts == ONE_OK_ATTEMPT:
            encoded = ONE_OK_ATTEMPT_JSON
        else:
            encoded = json.dumps([{**a, "message": redact.message(a["message"])} if a["message"] else a
                                  for a in attempts])
        reply, error = outcome.reply, outcome.error
        output = out_hash = None
        cost = 0.0
        if reply is not None:
            output = redact.known(reply.output)
            out_hash = output_hash(case.input_hash, output)
            cost = reply.cost if reply.cost is not None else system.cost(reply.input_tokens, reply.output_tokens)
            latency = reply.latency_ms if reply.latency_ms is not None else outcome.latency_s * 1000.0
            # In store.CELL_COLUMNS' order.
            values = (release, case.case_id, run, case.input_hash, system.system_hash, "ok", output, out_hash,
                      reply.input_tokens, reply.output_tokens, cost, latency, reply.model, reply.fingerprint,
                      reply.finish_reason, None, None, encoded, started, utc_now())
            self.stats.cells_ok += 1
            self.stats.cost += cost or 0.0
        else:
            assert error is not None
            message = redact.message(error.message)
            values = (release, case.case_id, run, case.input_hash, system.system_hash,
                      "error" if error.transient else "permanent", None, None, None, None, None, None, None, None,
                      None, error.kind, message[:500], encoded, started, utc_now())
            self.stats.cells_failed += 1
            if error.stop:
                self.stats.stopped = f"{release}: {message}; the run stopped (fix the key or access, then resume)"
        # A local score is committed with its cell (one transaction, half the commits), unless the same output of
        # the same case was scored a moment ago (another run or release answered alike): that score is queued or
        # committed before this cell. A judge's comes later.
        statements: list[Statement] = [(UPSERT_CELL, values)]
        if output is not None and not self.judged and out_hash not in self.recent:
            assert out_hash is not None
            statements.append(self._score_statement(
                local_score(self.config.metric, output, case.fields, self.config.reference_field), out_hash))
            self.recent[out_hash] = None
            if len(self.recent) > RECENT_SCORES:
                del self.recent[next(iter(self.recent))]
        await self._put(statements)
        if self.progress is not None:
            self.progress.cell(release, ok=reply is not None, cost=cost or 0.0)
        if output is not None and self.judged:
            assert out_hash is not None
            await self._ask_judge(case, output, out_hash, check_store=True)

    # -- scores ---------------------------------------------------------------------------------------
    async def _rescore(self, plan: Plan) -> None:
        """Ok cells without a score under the current metric (restored ones too), a batch at a time: a local
        metric scores them here, a judge is asked once per distinct output."""
        metric, field = self.config.metric, self.config.reference_field
        for batch in plan.batches():
            seen: set[str] = set()
            statements = []
            for cell in batch:
                if cell.state != UNSCORED or cell.output is None or cell.output_hash is None:
                    continue
                if self.judged:
                    await self._ask_judge(cell.case, cell.output, cell.output_hash, check_store=False)
                elif cell.output_hash not in seen:
                    seen.add(cell.output_hash)
                    statements.append(self._score_statement(local_score(metric, cell.output, cell.case.fields,
                                                                        field), cell.output_hash))
            if statements:
                await self._put(statements)

    async def _ask_judge(self, case: Case, output: str, out_hash: str, *, check_store: bool) -> None:
        if out_hash in self.asked:
            return  # already queued in this run: the same key is asked once
        if check_store and self.store.connection.execute(SCORED_OK, (out_hash, self.config.metric.metric_hash)) \
                .fetchone() is not None:
            return  # scored ok before
        self.asked.add(out_hash)
        await self.judge_queue.put((case, output, out_hash))

    async def _judge_worker(self) -> None:
        while (job := await self.judge_queue.get()) is not None:
            if self.stats.stopped:
                continue  # drain: nothing more is asked once the run stopped
            case, output, out_hash = job
            score = await self._judge(case, output)
            await self._put([self._score_statement(score, out_hash)])

    async def _judge(self, case: Case, output: str) -> Score:
        metric = self.config.metric
        try:
            prompt = self.redactor.known(judge_prompt(metric, output, case.fields, self.config.reference_field))
        except ValueError as exc:
            return Score("error", error=str(exc))

        def request(attempt: int) -> Request:
            return Request("judge", case.fields, 0, attempt, prompt=prompt, judged_output=output)

        outcome = await self.attempts.run(self.callers[JUDGE], request, self._judge_gate(), "judge", judge=True)
        if outcome.reply is None:
            assert outcome.error is not None
            message = self.redactor.message(outcome.error.message)
            if outcome.error.stop:
                self.stats.stopped = f"judge: {message}; the run stopped (fix the key or access, then resume)"
            return Score("error", judge_prompt=prompt, error=f"judge {outcome.error.kind}: {message[:300]}")
        reply = self.redactor.known(outcome.reply.output)
        status, value = parse_judge(metric, reply)
        return Score(status, value, judge_prompt=prompt, judge_reply=reply,
                     error=None if status == "ok" else "the judge's reply does not match the pattern")

    def _score_statement(self, score: Score, out_hash: str) -> Statement:
        if score.status == "ok":
            self.stats.scores_ok += 1
        else:
            self.stats.scores_failed += 1
        metric = self.config.metric
        return score_statement({"output_hash": out_hash, "metric_hash": metric.metric_hash, "metric": metric.name,
                                "status": score.status, "value": score.value, "judge_prompt": score.judge_prompt,
                                "judge_reply": score.judge_reply, "error": score.error, "scored_at": utc_now()})
