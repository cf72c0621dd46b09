"""Executing a plan: bounded concurrency, a requests-per-minute limit, retries, one commit per cell.

Retries go through tenacity (stop, wait and sleep are ours so that an injected clock and sleep make
retries cost no real time in tests). Waits: exponential backoff with equal jitter
(``min(max_backoff, backoff * 2**(n-1))``, half of it fixed and half uniform), or the server's Retry-After
when it gives one. A 429 pauses every worker, not only the one that got it: the provider's limit is shared.
"""

from __future__ import annotations

import asyncio
import datetime as _dt
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from releasegate.run.config import RunConfig, stable_hash
from releasegate.run.fake import FakeProvider
from releasegate.run.metrics import Score, judge_prompt, local_score, parse_judge
from releasegate.run.plan import Case, Key, Plan
from releasegate.run.store import Store
from releasegate.run.systems import AttemptError, OpenAIChat, PythonCallable, Reply, Request


def utc_now() -> str:
    return _dt.datetime.now(tz=_dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def output_hash(input_hash: str, output: str) -> str:
    """The score cache key covers the case with the output: "Paris" is right for one case, wrong for another."""
    return stable_hash([input_hash, output])


@dataclass
class RunStats:
    system_calls: int = 0
    judge_calls: int = 0
    cells_ok: int = 0
    cells_failed: int = 0
    scores_ok: int = 0
    scores_failed: int = 0
    rate_limited: int = 0
    cost: float = 0.0
    stopped: str | None = None
    waits: list[float] = field(default_factory=list)


def make_caller(system: Any, max_connections: int) -> Any:
    """The caller for a system's kind (httpx is imported by the first HTTP call, never by a python-only run)."""
    if system.kind == "openai":
        return OpenAIChat(system, max_connections=max_connections)
    if system.kind == "python":
        return PythonCallable(system)
    return FakeProvider(system)


class Runner:
    def __init__(self, config: RunConfig, store: Store, cases: list[Case], *,
                 clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], Any] = asyncio.sleep,
                 rng: random.Random | None = None, progress: Any = None,
                 callers: Mapping[str, Any] | None = None) -> None:
        self.config, self.store, self.clock, self.sleep = config, store, clock, sleep
        self.cases = {c.case_id: c for c in cases}
        self.rng = rng or random.Random(config.seed)
        self.progress = progress
        self.stats = RunStats()
        self.pause_until = float("-inf")
        self.next_slot = float("-inf")
        self.callers = dict(callers or {})
        for system in config.systems:
            self.callers.setdefault(system.name, make_caller(system, config.max_concurrency))
        if config.metric.judge is not None:
            self.callers.setdefault("\0judge", make_caller(config.metric.judge, config.max_concurrency))
        for caller in self.callers.values():  # the fake provider answers from the case's reference and sleeps ours
            if hasattr(caller, "reference_field"):
                caller.reference_field = config.reference_field
                caller.sleep = sleep

    async def execute(self, plan: Plan) -> RunStats:
        work = iter([("call", key) for key in plan.calls] + [("score", key) for key in plan.rescore])

        async def worker() -> None:
            for job, key in work:  # one shared iterator: workers take the next cell in the planned order
                if self.stats.stopped:
                    return
                if job == "call":
                    await self._call_cell(key)
                else:
                    await self._rescore(key)

        # Sync callables run in worker threads: as many as max_concurrency (the default pool has cpu + 4).
        from concurrent.futures import ThreadPoolExecutor

        asyncio.get_running_loop().set_default_executor(ThreadPoolExecutor(self.config.max_concurrency))
        try:
            await asyncio.gather(*(worker() for _ in range(self.config.max_concurrency)))
        finally:
            for caller in self.callers.values():
                await caller.close()
        return self.stats

    # -- one cell -------------------------------------------------------------------------------------
    async def _call_cell(self, key: Key) -> None:
        release, case_id, run = key
        case = self.cases[case_id]
        system = self.config.system(release)
        caller = self.callers[release]
        started = utc_now()

        def request(attempt: int) -> Request:
            return Request(release, case.fields, run, attempt)

        reply, error, attempts, latency = await self._attempts(caller, request, release, judge=False)
        cell: dict[str, Any] = {"release": release, "case_id": case_id, "run": run, "input_hash": case.input_hash,
                                "system_hash": system.system_hash, "attempts": attempts, "started_at": started}
        if reply is not None:
            cost = reply.cost if reply.cost is not None else system.cost(reply.input_tokens, reply.output_tokens)
            cell.update(status="ok", output=reply.output, output_hash=output_hash(case.input_hash, reply.output),
                        input_tokens=reply.input_tokens, output_tokens=reply.output_tokens, cost=cost,
                        latency_ms=reply.latency_ms if reply.latency_ms is not None else latency * 1000.0,
                        model=reply.model, fingerprint=reply.fingerprint, finish_reason=reply.finish_reason)
            self.stats.cells_ok += 1
            self.stats.cost += cost or 0.0
        else:
            cell.update(status="error" if error.transient else "permanent", error_kind=error.kind,
                        error=error.message[:500])
            self.stats.cells_failed += 1
            if error.stop:
                self.stats.stopped = f"{release}: {error.message}; the run stopped (fix the key or access, then resume)"
        cell["finished_at"] = utc_now()
        local = reply is not None and self.config.metric.kind != "judge"
        # A local score is committed with its cell (one transaction, half the commits); a judge's comes later.
        score = self._score_row(local_score(self.config.metric, reply.output, case.fields,
                                            self.config.reference_field), cell["output_hash"]) if local else None
        self.store.put_cell(cell, score)
        if self.progress is not None:
            self.progress.cell(release, ok=reply is not None, cost=cell.get("cost") or 0.0)
        if reply is not None and not local:
            await self._score(case, reply.output, cell["output_hash"])

    async def _rescore(self, key: Key) -> None:
        _, case_id, _ = key
        row = self.store.connection.execute(
            "SELECT output, output_hash FROM cells WHERE release = ? AND case_id = ? AND run = ?", key).fetchone()
        await self._score(self.cases[case_id], row[0], row[1])

    async def _score(self, case: Case, output: str, out_hash: str) -> None:
        metric = self.config.metric
        if metric.kind != "judge":
            score = local_score(metric, output, case.fields, self.config.reference_field)
        else:
            score = await self._judge(case, output)
        self.store.put_score(self._score_row(score, out_hash))

    def _score_row(self, score: Score, out_hash: str) -> dict[str, Any]:
        if score.status == "ok":
            self.stats.scores_ok += 1
        else:
            self.stats.scores_failed += 1
        metric = self.config.metric
        return {"output_hash": out_hash, "metric_hash": metric.metric_hash, "metric": metric.name,
                "status": score.status, "value": score.value, "judge_prompt": score.judge_prompt,
                "judge_reply": score.judge_reply, "error": score.error, "scored_at": utc_now()}

    async def _judge(self, case: Case, output: str) -> Score:
        metric = self.config.metric
        try:
            prompt = judge_prompt(metric, output, case.fields, self.config.reference_field)
        except ValueError as exc:
            return Score("error", error=str(exc))

        def request(attempt: int) -> Request:
            return Request("judge", case.fields, 0, attempt, prompt=prompt, judged_output=output)

        reply, error, _, _ = await self._attempts(self.callers["\0judge"], request, "judge", judge=True)
        if reply is None:
            if error.stop:
                self.stats.stopped = f"judge: {error.message}; the run stopped (fix the key or access, then resume)"
            return Score("error", judge_prompt=prompt, error=f"judge {error.kind}: {error.message[:300]}")
        status, value = parse_judge(metric, reply.output)
        return Score(status, value, judge_prompt=prompt, judge_reply=reply.output,
                     error=None if status == "ok" else "the judge's reply does not match the pattern")

    # -- attempts -------------------------------------------------------------------------------------
    async def _attempts(self, caller: Any, request: Callable[[int], Request], release: str, *,
                        judge: bool) -> tuple[Reply | None, AttemptError | None, list[dict[str, Any]], float]:
        """Up to max_attempts calls within the per-cell deadline; (reply, last error, attempts, latency s)."""
        from tenacity import AsyncRetrying, retry_if_exception

        config = self.config
        start = self.clock()
        attempts: list[dict[str, Any]] = []
        latency = 0.0

        def out_of_time() -> bool:
            return self.clock() - start >= config.deadline_s

        def stop(state: Any) -> bool:
            return state.attempt_number >= config.max_attempts or out_of_time()

        def wait(state: Any) -> float:
            error = state.outcome.exception()
            return self._wait(state.attempt_number, error)

        retrying = AsyncRetrying(stop=stop, wait=wait, sleep=self.sleep, reraise=True,
                                 retry=retry_if_exception(lambda e: isinstance(e, AttemptError) and e.transient))
        try:
            async for attempt in retrying:
                with attempt:
                    number = attempt.retry_state.attempt_number
                    await self._gate()
                    remaining = config.deadline_s - (self.clock() - start)
                    if remaining <= 0:
                        # Transient (status "error", retried on resume); stop() ends this cell's attempts.
                        error = AttemptError("deadline", f"per-cell deadline of {config.deadline_s:g} s passed")
                        attempts.append({"n": number, **error.record()})
                        raise error
                    if judge:
                        self.stats.judge_calls += 1
                    else:
                        self.stats.system_calls += 1
                    began = self.clock()
                    try:
                        reply = await caller(request(number), min(config.timeout_s, remaining))
                    except AttemptError as exc:
                        attempts.append({"n": number, **exc.record()})
                        if exc.kind == "rate_limited":
                            self.stats.rate_limited += 1
                            if self.progress is not None:
                                self.progress.rate_limited(release)
                        raise
                    latency = self.clock() - began
                    attempts.append({"n": number, "kind": "ok", "status": None, "message": ""})
            return reply, None, attempts, latency
        except AttemptError as exc:
            return None, exc, attempts, 0.0

    def _wait(self, attempt_number: int, error: BaseException | None) -> float:
        base = min(self.config.max_backoff_s, self.config.backoff_s * 2 ** (attempt_number - 1))
        delay = base / 2 + self.rng.uniform(0, base / 2)
        if isinstance(error, AttemptError) and error.retry_after is not None:
            delay = error.retry_after
        if isinstance(error, AttemptError) and error.kind == "rate_limited":
            self.pause_until = max(self.pause_until, self.clock() + delay)  # every worker waits this out
        self.stats.waits.append(delay)
        return delay

    async def _gate(self) -> None:
        """Wait out a shared 429 pause, then take the next slot of the requests-per-minute limit."""
        while (now := self.clock()) < self.pause_until:
            await self.sleep(self.pause_until - now)
        rpm = self.config.requests_per_minute
        if rpm > 0:
            slot = max(now, self.next_slot)
            self.next_slot = slot + 60.0 / rpm
            if slot > now:
                await self.sleep(slot - now)
