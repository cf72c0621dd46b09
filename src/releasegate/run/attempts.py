"""One cell's attempts: retries with backoff or the server's Retry-After, within the cell's deadline.

The loop is written here rather than with tenacity: its per-cell machinery (a retrying object, chains of
actions, inspect calls) was a third of releasegate's CPU per cell at concurrency 32 (bench/RESULTS.md), and
the deadline needs the next wait known before deciding to stop. Clock and sleep are injected, so retries cost
no real time in tests. Waits: exponential backoff with equal jitter (``min(max_backoff, backoff *
2**(n-1))``, half of it fixed and half uniform), or the server's Retry-After when it gives one, honoured as
given. Each attempt's timeout is ``timeout_s`` or what is left of ``deadline_s``, whichever is shorter, and
covers the whole attempt. A wait (a backoff, a Retry-After, the endpoint's pause or rate slot) that would end
after the deadline is not slept: the cell ends at once as a hole ("deadline"), asked again on resume.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from releasegate.run.calls import AttemptError, Reply, Request
from releasegate.run.limits import EndpointGate


@dataclass
class RunStats:
    """What a run did: calls made (first attempts and retries), cells and scores, waits, cost."""

    system_calls: int = 0
    judge_calls: int = 0
    cells_ok: int = 0
    cells_failed: int = 0
    cells_cached: int = 0  # answers found in the store by content: no call
    scores_ok: int = 0
    scores_failed: int = 0
    rate_limited: int = 0
    cost: float = 0.0
    stopped: str | None = None
    waits: list[float] = field(default_factory=list)
    seconds: float = 0.0  # wall time of the calls and writes (real time, whatever the injected clock)


@dataclass(frozen=True)
class Outcome:
    reply: Reply | None
    error: AttemptError | None
    attempts: list[dict[str, Any]]
    latency_s: float


def _retried(error: BaseException) -> bool:
    return isinstance(error, AttemptError) and error.transient and error.kind != "deadline"


class Attempts:
    def __init__(self, config: Any, clock: Callable[[], float], sleep: Callable[[float], Any],
                 rng: random.Random, stats: RunStats, on_rate_limited: Callable[[str], None] | None = None) -> None:
        self.config, self.clock, self.sleep, self.rng, self.stats = config, clock, sleep, rng, stats
        self.on_rate_limited = on_rate_limited

    async def run(self, caller: Any, request: Callable[[int], Request], gate: EndpointGate, release: str, *,
                  judge: bool) -> Outcome:
        """Up to max_attempts calls within the per-cell deadline."""
        config, clock, stats = self.config, self.clock, self.stats
        deadline_at = clock() + config.deadline_s
        attempts: list[dict[str, Any]] = []
        number = 0
        while True:
            number += 1
            try:
                await gate.admit(deadline_at)
                remaining = deadline_at - clock()
                if remaining <= 0:
                    raise AttemptError("deadline", f"the cell's deadline of {config.deadline_s:g} s passed")
                async with gate.in_flight:
                    if judge:
                        stats.judge_calls += 1
                    else:
                        stats.system_calls += 1
                    began = clock()
                    try:
                        reply = await caller(request(number), min(config.timeout_s, remaining))
                    except AttemptError as exc:
                        attempts.append({"n": number, **exc.record()})
                        if exc.kind == "rate_limited":
                            stats.rate_limited += 1
                            if self.on_rate_limited is not None:
                                self.on_rate_limited(release)
                        raise
                latency = clock() - began
            except AttemptError as exc:
                if not _retried(exc) or number >= config.max_attempts:
                    return Outcome(None, exc, attempts, 0.0)
                wait = self._wait(number, exc, gate)
                if clock() + wait > deadline_at:
                    ended = AttemptError("deadline", f"{exc.message[:300]}; waiting {wait:.3g} s more would pass the "
                                                     f"cell's deadline of {config.deadline_s:g} s: ended as a hole, "
                                                     "asked again on resume", status=exc.status)
                    return Outcome(None, ended, attempts, 0.0)
                await self.sleep(wait)
                continue
            gate.spend((reply.input_tokens or 0) + (reply.output_tokens or 0))
            attempts.append({"n": number, "kind": "ok", "status": None, "message": ""})
            return Outcome(reply, None, attempts, latency)

    def _wait(self, attempt_number: int, error: BaseException | None, gate: EndpointGate) -> float:
        config = self.config
        base = min(config.max_backoff_s, config.backoff_s * 2 ** (attempt_number - 1))
        delay = base / 2 + self.rng.uniform(0, base / 2)
        if isinstance(error, AttemptError) and error.retry_after is not None:
            delay = error.retry_after
        if isinstance(error, AttemptError) and error.kind == "rate_limited":
            gate.pause(delay)  # every call to this endpoint waits this out
        self.stats.waits.append(delay)
        return delay
