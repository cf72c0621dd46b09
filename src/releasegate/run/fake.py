"""The fake provider: answers and failures drawn from stable hashes, so a run is reproducible offline.

The answer of a cell depends on (seed, release, case, run): the reference with probability ``accuracy``,
else ``wrong_answer``. Whether an attempt fails depends on (seed, release, case, run, attempt): with the
set rates it is a 429, a 503 or a timeout. The same cell and attempt always do the same thing, so the
holes of a run with one attempt are known in advance (:func:`injected_failure`). The recorded latency is
simulated (``latency_ms`` x uniform 0.5-1.5 from the hash; no real wait); ``latency_s`` really waits.
"""

from __future__ import annotations

import asyncio
import hashlib
from dataclasses import dataclass, field
from typing import Any

from releasegate.run.config import SystemConfig
from releasegate.run.systems import AttemptError, Reply, Request


def unit_hash(*parts: Any) -> float:
    """A number in [0, 1) from the parts: the same parts give the same number on every machine."""
    digest = hashlib.sha256("\x1f".join(map(str, parts)).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") / 2.0**64


def injected_failure(spec: dict[str, Any], release: str, case_id: str, run: int, attempt: int) -> str | None:
    """The failure the fake injects on this attempt: "rate_limited", "server", "timeout" or None."""
    u = unit_hash("fail", spec["seed"], release, case_id, run, attempt)
    if u < spec["rate_429"]:
        return "rate_limited"
    if u < spec["rate_429"] + spec["rate_5xx"]:
        return "server"
    if u < spec["rate_429"] + spec["rate_5xx"] + spec["rate_timeout"]:
        return "timeout"
    return None


@dataclass
class FakeProvider:
    system: SystemConfig
    reference_field: str = "reference"
    sleep: Any = asyncio.sleep
    calls: int = 0
    log: list[tuple[str, str, int, int]] = field(default_factory=list)

    async def close(self) -> None:
        return None

    async def __call__(self, request: Request, timeout_s: float) -> Reply:
        self.calls += 1
        spec = self.system.spec
        case_id = str(request.case.get("case_id"))
        self.log.append((request.release, case_id, request.run, request.attempt))
        if spec["latency_s"]:
            await self.sleep(spec["latency_s"])
        failure = injected_failure(spec, request.release, case_id, request.run, request.attempt)
        if failure == "rate_limited":
            raise AttemptError("rate_limited", "HTTP 429: fake rate limit", status=429)
        if failure == "server":
            raise AttemptError("server", "HTTP 503: fake server error", status=503)
        if failure == "timeout":
            raise AttemptError("timeout", f"fake timeout after {timeout_s:g} s")
        correct = unit_hash("answer", spec["seed"], request.release, case_id, request.run) < spec["accuracy"]
        reference = request.case.get(self.reference_field)
        output = str(reference) if correct and reference is not None else spec["wrong_answer"]
        text = str(request.case.get("input", ""))
        return Reply(output=output, input_tokens=20 + len(text.split()), output_tokens=5 + len(output.split()),
                     model=f"fake-{request.release}", fingerprint="fake",
                     latency_ms=spec["latency_ms"] * (0.5 + unit_hash("latency", spec["seed"], request.release, case_id,
                                                                      request.run)))
