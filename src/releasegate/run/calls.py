"""One attempt's records: what is asked (Request), what comes back (Reply) or how it failed (AttemptError), and
a score. Every system kind and the runner speak these; nothing here calls anything.

An AttemptError says whether a retry may help (transient), may not (permanent), or whether the run must stop
(401/403: every further call would fail the same way).
"""

from __future__ import annotations

import email.utils
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

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


@dataclass(frozen=True)
class Score:
    status: str  # ok | unparseable | error
    value: float | None = None
    judge_prompt: str | None = None
    judge_reply: str | None = None
    error: str | None = None


class AttemptError(Exception):
    """One failed attempt: ``kind`` (rate_limited, server, timeout, transport, malformed, too_large, exception,
    empty, client, auth, deadline), the HTTP status if any, the message, and the server's Retry-After in s."""

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
        seconds = float(value)
    except ValueError:
        pass
    else:
        return max(0.0, seconds) if seconds == seconds else None  # NaN is unreadable
    try:
        moment = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, moment.timestamp() - (time.time() if now is None else now))


def render(template: str, case: Mapping[str, Any]) -> str:
    """``{field}`` placeholders from the case (the config checked the template: whole fields, bounded widths);
    a field the case lacks or a format its value does not take is a permanent error, not a traceback."""
    try:
        return template.format_map(case)
    except KeyError as exc:
        raise AttemptError("client", f"the template uses {{{exc.args[0]}}}, which the case does not have",
                           transient=False) from None
    except (ValueError, IndexError, TypeError, AttributeError) as exc:
        raise AttemptError("client", f"the template cannot be filled: {exc}", transient=False) from None
