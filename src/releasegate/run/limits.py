"""Per-endpoint limits: requests in flight, requests and tokens per minute, and the pause after a 429.

An endpoint is a base_url and a model: every system (and the judge) calling it shares one :class:`EndpointGate`,
and nothing else does, so one provider's 429 pauses only the calls to that provider, and the fake provider and
Python systems (each its own gate, with no rate limits) are throttled by nobody. Waits go through the injected
clock and sleep, and never past the cell's deadline: a wait that would end after it raises a "deadline"
AttemptError at once, so the cell ends as a hole instead of sleeping out a Retry-After of 999999 s.

Tokens per minute is a budget refilled continuously (tpm / 60 per second, at most a minute's worth): a call
starts only when the budget holds what a call has cost on average so far (its tokens are known only from the
reply, and are taken from the budget then), so the rate over a minute stays at the limit, give or take the
calls in flight.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable
from typing import Any

from releasegate.run.calls import AttemptError
from releasegate.run.spec import Limits


class EndpointGate:
    def __init__(self, name: str, limits: Limits, clock: Callable[[], float],
                 sleep: Callable[[float], Any]) -> None:
        self.name, self.clock, self.sleep = name, clock, sleep
        self.concurrency = limits.max_concurrency or 1
        self.in_flight = asyncio.Semaphore(self.concurrency)
        rpm = limits.requests_per_minute or 0.0
        self.interval = 60.0 / rpm if rpm > 0 else 0.0
        self.next_slot = -math.inf
        self.tokens_per_second = (limits.tokens_per_minute or 0.0) / 60.0
        self.budget = (limits.tokens_per_minute or 0.0)
        self.refilled_at = clock()
        self.spent_tokens, self.spent_calls = 0, 0
        self.pause_until = -math.inf

    def pause(self, seconds: float) -> None:
        """A 429 from this endpoint: every call to it waits this long (the provider's limit is shared)."""
        self.pause_until = max(self.pause_until, self.clock() + seconds)

    def spend(self, tokens: int | None) -> None:
        if self.tokens_per_second and tokens:
            self._refill()
            self.budget -= tokens
            self.spent_tokens += tokens
            self.spent_calls += 1

    def _refill(self) -> None:
        now = self.clock()
        cap = self.tokens_per_second * 60.0
        self.budget = min(cap, self.budget + (now - self.refilled_at) * self.tokens_per_second)
        self.refilled_at = now

    def _token_wait(self) -> float:
        if not self.tokens_per_second:
            return 0.0
        self._refill()
        cap = self.tokens_per_second * 60.0
        needed = min(cap, self.spent_tokens / self.spent_calls) if self.spent_calls else 0.0
        if self.budget >= needed and self.budget > 0:
            return 0.0
        return (max(needed, 1e-9) - self.budget) / self.tokens_per_second

    async def admit(self, deadline_at: float) -> None:
        """Wait out the pause and the token budget, then take the next request slot; never past the deadline."""
        while True:
            now = self.clock()
            wait = max(self.pause_until - now, self._token_wait())
            if wait <= 0:
                break
            until_deadline(now, wait, deadline_at, f"{self.name} is paused or out of tokens per minute")
            await self.sleep(wait)
        if self.interval:
            now = self.clock()
            slot = max(now, self.next_slot)
            until_deadline(now, slot - now, deadline_at, f"the next request slot of {self.name}")
            self.next_slot = slot + self.interval
            if slot > now:
                await self.sleep(slot - now)


def until_deadline(now: float, wait: float, deadline_at: float, what: str) -> None:
    """Raise the cell's end as a hole when waiting ``wait`` seconds would pass its deadline."""
    if now + wait > deadline_at:
        left = max(0.0, deadline_at - now)
        raise AttemptError("deadline", f"waiting {wait:.3g} s for {what} would pass the cell's deadline "
                                       f"({left:.3g} s left): ended as a hole, asked again on resume")


def shared_limits(limits: list[Limits]) -> Limits:
    """The limits of an endpoint several systems name: the smallest each gives (0 or None = no limit)."""
    def smallest(values: list[float | None]) -> float | None:
        given = [v for v in values if v]
        return min(given) if given else None

    concurrency = [x.max_concurrency for x in limits if x.max_concurrency]
    return Limits(max_concurrency=min(concurrency) if concurrency else None,
                  requests_per_minute=smallest([x.requests_per_minute for x in limits]),
                  tokens_per_minute=smallest([x.tokens_per_minute for x in limits]))
