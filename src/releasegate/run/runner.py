"""Executing a plan: one lane of workers per endpoint, one commit per cell, judge calls once per distinct key.

Lanes: the cells of the systems that share an endpoint (base_url + model) are one work list, in the planned
order, taken by as many workers as the endpoint's concurrency; a fake or Python system is a lane of its own.
So a slow or rate-limited provider holds up only its own cells. The judge is a lane too, fed as answers
arrive: each distinct (output hash, judge hash) is asked once, within a run and across resumes (an ok score
in the store is never asked again; an unparseable one is asked once more on the next resume).

Everything stored or printed passes the redactor first (:mod:`releasegate.run.secrets`).
"""

from __future__ import annotations

import asyncio
import datetime as _dt
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from releasegate.run.attempts import Attempts, RunStats
from releasegate.run.calls import Request, Score
from releasegate.run.config import RunConfig
from releasegate.run.judge import judge_prompt, parse_judge
from releasegate.run.limits import EndpointGate, shared_limits
from releasegate.run.metric_kinds import is_judged, local_score
from releasegate.run.plan import Case, Key, Plan
from releasegate.run.secrets import Redactor
from releasegate.run.spec import SystemConfig, stable_hash
from releasegate.run.store import Store, db_path
from releasegate.run.system_kinds import SYSTEM_KINDS
from releasegate.run.writer import StoreWriter, cell_statements, score_statement

JUDGE = "\0judge"


_SECOND: list[Any] = [None, ""]  # the last whole second formatted: one strftime a second, not three a cell


def utc_now() -> str:
    """The time as 2026-12-01T17:22:05.123456Z."""
    now = time.time()
    second = int(now)
    if _SECOND[0] != second:
        _SECOND[0], _SECOND[1] = second, _dt.datetime.fromtimestamp(second, tz=_dt.UTC).strftime("%Y-%m-%dT%H:%M:%S")
    return f"{_SECOND[1]}.{int((now - second) * 1e6):06d}Z"


def output_hash(input_hash: str, output: str) -> str:
    """The score cache key covers the case with the output: "Paris" is right for one case, wrong for another."""
    return stable_hash([input_hash, output])


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
    def __init__(self, config: RunConfig, store: Store, cases: list[Case], *,
                 clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], Any] = asyncio.sleep,
                 rng: random.Random | None = None, progress: Any = None,
                 callers: Mapping[str, Any] | None = None, environ: Mapping[str, str] | None = None,
                 redactor: Redactor | None = None) -> None:
        self.config, self.store, self.clock, self.sleep = config, store, clock, sleep
        self.cases = {c.case_id: c for c in cases}
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
        self.judge_queue: asyncio.Queue[tuple[Case, str, str] | None] = asyncio.Queue()
        self.asked: set[str] | None = None  # output hashes scored ok, or queued for the judge, in this run
        self.writer: StoreWriter | None = None

    # -- the whole plan -------------------------------------------------------------------------------
    async def execute(self, plan: Plan) -> RunStats:
        from concurrent.futures import ThreadPoolExecutor

        began = time.perf_counter()
        lanes: dict[str, list[Key]] = {}
        for key in plan.calls:
            lanes.setdefault(lane_name(self.systems[key[0]]), []).append(key)
        workers = sum(self.gates[lane].concurrency for lane in lanes) + (self._judge_gate().concurrency
                                                                         if self.judged else 0)
        # Sync callables run in worker threads: as many as may be in flight (the default pool has cpu + 4).
        asyncio.get_running_loop().set_default_executor(ThreadPoolExecutor(max(1, workers)))
        try:
            if plan.cached:  # answers found by content: the cells again, without a call
                self.stats.cells_cached = self.store.restore_answers((key[1], answer) for key, answer in plan.cached)
            rescore = [*plan.rescore, *(key for key, _ in plan.cached)]
            if rescore:
                self._rescore(rescore)
            self.writer = StoreWriter(db_path(self.store.directory))
            judge_workers = [asyncio.ensure_future(self._judge_worker()) for _ in
                             range(self._judge_gate().concurrency if self.judged else 0)]
            try:
                await asyncio.gather(*(self._lane(keys, self.gates[lane]) for lane, keys in lanes.items()))
            except BaseException:
                for task in judge_workers:
                    task.cancel()
                await asyncio.gather(*judge_workers, return_exceptions=True)
                raise
            for _ in judge_workers:  # every answer is in: the judges finish the queue, then stop
                self.judge_queue.put_nowait(None)
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

    async def _lane(self, keys: list[Key], gate: EndpointGate) -> None:
        work = iter(keys)

        async def worker() -> None:
            for key in work:  # one shared iterator: workers take the next cell in the planned order
                if self.stats.stopped:
                    return
                await self._call_cell(key, gate)

        await asyncio.gather(*(worker() for _ in range(min(gate.concurrency, len(keys)))))

    # -- one cell -------------------------------------------------------------------------------------
    async def _call_cell(self, key: Key, gate: EndpointGate) -> None:
        release, case_id, run = key
        case = self.cases[case_id]
        system = self.systems[release]
        started = utc_now()

        def request(attempt: int) -> Request:
            return Request(release, case.fields, run, attempt)

        outcome = await self.attempts.run(self.callers[release], request, gate, release, judge=False)
        redact = self.redactor
        attempts = [{**a, "message": redact.message(a["message"])} if a["message"] else a for a in outcome.attempts]
        cell: dict[str, Any] = {"release": release, "case_id": case_id, "run": run, "input_hash": case.input_hash,
                                "system_hash": system.system_hash, "attempts": attempts, "started_at": started}
        reply, error = outcome.reply, outcome.error
        output = None
        if reply is not None:
            output = redact.known(reply.output)
            cost = reply.cost if reply.cost is not None else system.cost(reply.input_tokens, reply.output_tokens)
            cell.update(status="ok", output=output, output_hash=output_hash(case.input_hash, output),
                        input_tokens=reply.input_tokens, output_tokens=reply.output_tokens, cost=cost,
                        latency_ms=reply.latency_ms if reply.latency_ms is not None else outcome.latency_s * 1000.0,
                        model=reply.model, fingerprint=reply.fingerprint, finish_reason=reply.finish_reason)
            self.stats.cells_ok += 1
            self.stats.cost += cost or 0.0
        else:
            assert error is not None
            message = redact.message(error.message)
            cell.update(status="error" if error.transient else "permanent", error_kind=error.kind,
                        error=message[:500])
            self.stats.cells_failed += 1
            if error.stop:
                self.stats.stopped = f"{release}: {message}; the run stopped (fix the key or access, then resume)"
        cell["finished_at"] = utc_now()
        # A local score is committed with its cell (one transaction, half the commits); a judge's comes later.
        score = None
        if output is not None and not self.judged:
            score = self._score_row(local_score(self.config.metric, output, case.fields, self.config.reference_field),
                                    cell["output_hash"])
        assert self.writer is not None
        self.writer.put(cell_statements(cell, score))
        if self.progress is not None:
            self.progress.cell(release, ok=reply is not None, cost=cell.get("cost") or 0.0)
        if output is not None and self.judged:
            self._ask_judge(case, output, cell["output_hash"])

    # -- scores ---------------------------------------------------------------------------------------
    def _already_scored(self) -> set[str]:
        if self.asked is None:
            self.asked = self.store.scored_ok(self.config.metric.metric_hash)
        return self.asked

    def _rescore(self, keys: list[Key]) -> None:
        """Ok cells without a score under the current metric: a local metric scores them here, in one
        transaction; a judge is asked once per distinct output."""
        rows = []
        scored = self._already_scored()
        for key in keys:
            found = self.store.cell_output(key)
            if found is None or found[1] in scored:
                continue
            output, out_hash = found
            case = self.cases[key[1]]
            if self.judged:
                self._ask_judge(case, output, out_hash)
            else:
                scored.add(out_hash)
                rows.append(self._score_row(local_score(self.config.metric, output, case.fields,
                                                        self.config.reference_field), out_hash))
        self.store.put_scores(rows)

    def _ask_judge(self, case: Case, output: str, out_hash: str) -> None:
        asked = self._already_scored()
        if out_hash in asked:
            return  # scored ok before, or already queued in this run: the same key is asked once
        asked.add(out_hash)
        self.judge_queue.put_nowait((case, output, out_hash))

    async def _judge_worker(self) -> None:
        while (job := await self.judge_queue.get()) is not None:
            if self.stats.stopped:
                continue  # drain: nothing more is asked once the run stopped
            case, output, out_hash = job
            score = await self._judge(case, output)
            assert self.writer is not None
            self.writer.put([score_statement(self._score_row(score, out_hash))])

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

    def _score_row(self, score: Score, out_hash: str) -> dict[str, Any]:
        if score.status == "ok":
            self.stats.scores_ok += 1
        else:
            self.stats.scores_failed += 1
        metric = self.config.metric
        return {"output_hash": out_hash, "metric_hash": metric.metric_hash, "metric": metric.name,
                "status": score.status, "value": score.value, "judge_prompt": score.judge_prompt,
                "judge_reply": score.judge_reply, "error": score.error, "scored_at": utc_now()}
