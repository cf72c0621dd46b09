"""System kind ``fake``: answers and failures drawn from stable hashes, so a run is reproducible offline.

The answer of a cell depends on (seed, release, case, run): the reference with probability ``accuracy``,
else ``wrong_answer``. Whether an attempt fails depends on (seed, release, case, run, attempt): with the
set rates it is a 429, a 503 or a timeout. The same cell and attempt always do the same thing, so the
holes of a run with one attempt are known in advance (:func:`injected_failure`). The recorded latency is
simulated (``latency_ms`` x uniform 0.5-1.5 from the hash; no real wait); ``latency_s`` really waits.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from releasegate.errors import RunConfigError
from releasegate.run.calls import AttemptError, Reply, Request
from releasegate.run.spec import SystemConfig, integer, number, text

KEYS = frozenset({"accuracy", "rate_429", "rate_5xx", "rate_timeout", "seed", "version", "latency_s", "latency_ms",
                  "wrong_answer"})


def parse_spec(raw: Mapping[str, Any], base_dir: Path, where: str) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "accuracy": number(raw, "accuracy", 0.8, where, low=0.0, high=1.0),
        "rate_429": number(raw, "rate_429", 0.0, where, low=0.0, high=1.0),
        "rate_5xx": number(raw, "rate_5xx", 0.0, where, low=0.0, high=1.0),
        "rate_timeout": number(raw, "rate_timeout", 0.0, where, low=0.0, high=1.0),
        "seed": integer(raw, "seed", 0, where, low=0),
        "version": str(raw.get("version", "")),
        "wrong_answer": text(raw, "wrong_answer", "I am not sure.", where),
        "latency_s": number(raw, "latency_s", 0.0, where, low=0.0),
        "latency_ms": number(raw, "latency_ms", 800.0, where, low=0.0),
    }
    if spec["rate_429"] + spec["rate_5xx"] + spec["rate_timeout"] > 1.0:
        raise RunConfigError(f"{where}: rate_429 + rate_5xx + rate_timeout must not exceed 1")
    return spec


def hashed(spec: Mapping[str, Any]) -> dict[str, Any]:
    """The failure rates are the provider's weather and the latency its simulation, not the system: changing
    them re-runs nothing."""
    return {k: v for k, v in spec.items() if not k.startswith(("rate_", "latency_"))}


def endpoint(spec: Mapping[str, Any]) -> None:
    return None  # offline: no other system's limits throttle it


def make_caller(system: SystemConfig, context: Any) -> FakeProvider:
    return FakeProvider(system, context.reference_field, context.sleep)


def unit_hash(*parts: Any) -> float:
    """A number in [0, 1) from the parts: the same parts give the same number on every machine."""
    digest = hashlib.sha256("\x1f".join(map(str, parts)).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") / 2.0**64


def injected_failure(spec: Mapping[str, Any], release: str, case_id: str, run: int, attempt: int) -> str | None:
    """The failure the fake injects on this attempt: "rate_limited", "server", "timeout" or None."""
    u = unit_hash("fail", spec["seed"], release, case_id, run, attempt)
    if u < spec["rate_429"]:
        return "rate_limited"
    if u < spec["rate_429"] + spec["rate_5xx"]:
        return "server"
    if u < spec["rate_429"] + spec["rate_5xx"] + spec["rate_timeout"]:
        return "timeout"
    return None


class FakeProvider:
    def __init__(self, system: SystemConfig, reference_field: str = "reference", sleep: Any = None) -> None:
        self.system, self.reference_field, self.sleep = system, reference_field, sleep
        self.calls = 0

    async def close(self) -> None:
        return None

    async def __call__(self, request: Request, timeout_s: float) -> Reply:
        self.calls += 1
        spec = self.system.spec
        case_id = str(request.case.get("case_id"))
        if spec["latency_s"]:
            if self.sleep is None:
                import asyncio

                self.sleep = asyncio.sleep
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
        text_in = str(request.case.get("input", ""))
        return Reply(output=output, input_tokens=20 + len(text_in.split()), output_tokens=5 + len(output.split()),
                     model=f"fake-{request.release}", fingerprint="fake",
                     latency_ms=spec["latency_ms"] * (0.5 + unit_hash("latency", spec["seed"], request.release, case_id,
                                                                      request.run)))
