"""Calling a system once: an OpenAI-compatible chat endpoint (httpx, async) or a Python callable.

One call is one attempt. It returns a Reply or raises an AttemptError saying whether a retry may help
(transient), may not (permanent), or whether the run must stop (401/403: every further call would fail too).
"""

from __future__ import annotations

import asyncio
import email.utils
import inspect
import json
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from releasegate.run.config import SystemConfig, resolve_callable

TRANSIENT_STATUS = frozenset({408, 425, 429})
STOP_STATUS = frozenset({401, 403})


@dataclass(frozen=True)
class Reply:
    output: str
    input_tokens: int | None = None
    output_tokens: int | None = None
    cost: float | None = None
    model: str | None = None
    fingerprint: str | None = None
    finish_reason: str | None = None
    latency_ms: float | None = None  # the fake provider's simulated latency; others are timed by the runner


@dataclass(frozen=True)
class Request:
    release: str
    case: Mapping[str, Any]
    run: int
    attempt: int
    prompt: str | None = None  # a judge's rendered rubric; systems under test render their own template
    judged_output: str | None = None  # for a judge: the output it judges (a Python judge gets it as case["output"])


class AttemptError(Exception):
    """One failed attempt: ``kind`` (rate_limited, server, timeout, transport, malformed, exception, empty,
    client, auth), the HTTP status if any, the message, and the server's Retry-After in seconds."""

    def __init__(self, kind: str, message: str, *, status: int | None = None, retry_after: float | None = None,
                 transient: bool = True, stop: bool = False) -> None:
        super().__init__(message)
        self.kind, self.message, self.status = kind, message, status
        self.retry_after, self.transient, self.stop = retry_after, transient, stop

    def record(self) -> dict[str, Any]:
        return {"kind": self.kind, "status": self.status, "message": self.message[:500]}


def http_error(status: int, body: str, retry_after: str | None) -> AttemptError:
    """Classify an HTTP failure: 408/425/429/5xx transient, 401/403 stop the run, other 4xx permanent."""
    message = f"HTTP {status}: {' '.join(body.split())[:200]}"
    if status == 429:
        return AttemptError("rate_limited", message, status=status, retry_after=parse_retry_after(retry_after))
    if status in TRANSIENT_STATUS or status >= 500:
        return AttemptError("server", message, status=status, retry_after=parse_retry_after(retry_after))
    if status in STOP_STATUS:
        return AttemptError("auth", message, status=status, transient=False, stop=True)
    return AttemptError("client", message, status=status, transient=False)


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Retry-After is seconds or an HTTP date (RFC 9110 section 10.2.3); None when absent or unreadable."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        moment = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, moment.timestamp() - (time.time() if now is None else now))


def render(template: str, case: Mapping[str, Any]) -> str:
    """``{field}`` placeholders from the case; a missing field is a clear error, not a KeyError."""
    try:
        return template.format_map(dict(case))
    except KeyError as exc:
        raise AttemptError("client", f"the template uses {{{exc.args[0]}}}, which the case does not have",
                           transient=False) from None
    except (ValueError, IndexError) as exc:
        raise AttemptError("client", f"the template cannot be filled: {exc}", transient=False) from None


@dataclass
class OpenAIChat:
    """POST {base_url}/chat/completions; the key is read from the environment at call time, never stored."""

    system: SystemConfig
    max_connections: int = 8
    _client: Any = field(default=None, repr=False)

    def _http(self):
        if self._client is None:
            import httpx

            limits = httpx.Limits(max_connections=self.max_connections, max_keepalive_connections=self.max_connections)
            self._client = httpx.AsyncClient(limits=limits, timeout=None)
        return self._client

    async def close(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    async def __call__(self, request: Request, timeout_s: float) -> Reply:
        import httpx

        spec = self.system.spec
        messages = []
        if spec["system_prompt"]:
            messages.append({"role": "system", "content": spec["system_prompt"]})
        user = request.prompt if request.prompt is not None else render(spec["user_template"], request.case)
        messages.append({"role": "user", "content": user})
        body: dict[str, Any] = {"model": spec["model"], "messages": messages, **spec["params"]}
        if spec["seed"] == "run" and request.prompt is None:
            body["seed"] = request.run
        headers = {}
        key_env = spec.get("api_key_env")
        if key_env:
            key = os.environ.get(key_env)
            if not key:
                raise AttemptError("auth", f"environment variable {key_env} is not set", transient=False, stop=True)
            headers["Authorization"] = f"Bearer {key}"
        try:
            response = await self._http().post(f"{spec['base_url']}/chat/completions", json=body, headers=headers,
                                               timeout=httpx.Timeout(timeout_s))
        except httpx.TimeoutException as exc:
            raise AttemptError("timeout", f"{type(exc).__name__} after {timeout_s:g} s") from None
        except httpx.HTTPError as exc:
            raise AttemptError("transport", f"{type(exc).__name__}: {exc}") from None
        if response.status_code != 200:
            raise http_error(response.status_code, response.text, response.headers.get("retry-after"))
        return parse_chat_reply(response.content)


def parse_chat_reply(content: bytes) -> Reply:
    """The first choice's message; anything else is a malformed reply (transient: a retry may succeed)."""
    try:
        data = json.loads(content)
        choice = data["choices"][0]
        output = choice["message"]["content"]
    except (ValueError, KeyError, IndexError, TypeError):
        raise AttemptError("malformed", f"malformed reply: {content[:120]!r}") from None
    if not isinstance(output, str):
        raise AttemptError("malformed", "malformed reply: the message has no text content")
    usage = data.get("usage") or {}
    return Reply(output=output, input_tokens=_int_or_none(usage.get("prompt_tokens")),
                 output_tokens=_int_or_none(usage.get("completion_tokens")), model=data.get("model"),
                 fingerprint=data.get("system_fingerprint"), finish_reason=choice.get("finish_reason"))


@dataclass
class PythonCallable:
    """``fn(case, run)`` -> str or {"output": str, "usage": {...}}; sync functions run in a worker thread."""

    system: SystemConfig
    function: Any = None

    def __post_init__(self) -> None:
        if self.function is None:
            where = f"system {self.system.name!r}"
            self.function = self.system.spec.get("function") or resolve_callable(self.system.spec["entry"], where)

    async def close(self) -> None:
        return None

    async def __call__(self, request: Request, timeout_s: float) -> Reply:
        case = dict(request.case)
        if request.prompt is not None:
            case.update(prompt=request.prompt, output=request.judged_output)
        try:
            if inspect.iscoroutinefunction(self.function):
                value = await asyncio.wait_for(self.function(case, request.run), timeout_s)
            else:
                value = await asyncio.wait_for(asyncio.to_thread(self.function, case, request.run), timeout_s)
        except TimeoutError:
            raise AttemptError("timeout", f"no answer within {timeout_s:g} s") from None
        except AttemptError:
            raise
        except Exception as exc:  # noqa: BLE001  (a callable that raises is an errored attempt, by design)
            raise AttemptError("exception", f"{type(exc).__name__}: {exc}") from None
        return reply_from_value(value)


def reply_from_value(value: Any) -> Reply:
    if value is None:
        raise AttemptError("empty", "the callable returned None")
    if isinstance(value, str):
        return Reply(output=value)
    if isinstance(value, Mapping) and isinstance(value.get("output"), str):
        usage = value.get("usage") or {}
        return Reply(output=value["output"], input_tokens=_int_or_none(usage.get("input_tokens")),
                     output_tokens=_int_or_none(usage.get("output_tokens")), cost=_float_or_none(usage.get("cost")),
                     model=value.get("model"))
    raise AttemptError("malformed", f"the callable returned {type(value).__name__}, expected str or "
                                    "{'output': str, 'usage': {...}}")


def _int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _float_or_none(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None
