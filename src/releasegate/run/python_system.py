"""System kind ``python``: a callable ``fn(case, run)`` returning the output (one row of SYSTEM_KINDS).

``fn(case: dict, run: int) -> str | {"output": str, "usage": {...}}``; async functions are awaited, sync ones
run in a worker thread. A callable that raises or returns None is an errored attempt (retried like a transient
error), its exception's type and message recorded. Its hash covers its source and ``version``.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from releasegate.errors import RunConfigError
from releasegate.run.calls import AttemptError, Reply, Request
from releasegate.run.entries import callable_source, resolve_callable
from releasegate.run.spec import SystemConfig, text

KEYS = frozenset({"entry", "version", "function"})


def parse_spec(raw: Mapping[str, Any], base_dir: Path, where: str) -> dict[str, Any]:
    """``entry = "mod:fn"`` from a file (the config's folder importable); the Python API may hand the function
    itself (``function``)."""
    function = raw.get("function")
    if function is not None:
        if not callable(function):
            raise RunConfigError(f"{where}: function must be callable, got {function!r}")
        entry = f"{getattr(function, '__module__', '?')}:{getattr(function, '__qualname__', repr(function))}"
    else:
        entry = text(raw, "entry", None, where)
        function = resolve_callable(entry, where, base_dir)
    return {"entry": entry, "version": str(raw.get("version", "")), "source": callable_source(function),
            "function": function}


def hashed(spec: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in spec.items() if k != "function"}


def endpoint(spec: Mapping[str, Any]) -> None:
    return None  # runs on its own: no other system's limits throttle it


def make_caller(system: SystemConfig, context: Any) -> PythonCallable:
    return PythonCallable(system.spec["function"])


class PythonCallable:
    def __init__(self, function: Any) -> None:
        self.function = function
        self.is_async = inspect.iscoroutinefunction(function)

    async def close(self) -> None:
        return None

    async def __call__(self, request: Request, timeout_s: float) -> Reply:
        case = dict(request.case)
        if request.prompt is not None:
            case.update(prompt=request.prompt, output=request.judged_output)
        try:
            if self.is_async:
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
        usage = value.get("usage") if isinstance(value.get("usage"), Mapping) else {}
        return Reply(output=value["output"], input_tokens=_int_or_none(usage.get("input_tokens")),
                     output_tokens=_int_or_none(usage.get("output_tokens")), cost=_float_or_none(usage.get("cost")),
                     model=value.get("model") if isinstance(value.get("model"), str) else None)
    raise AttemptError("malformed", f"the callable returned {type(value).__name__}, expected str or "
                                    "{'output': str, 'usage': {...}}")


def _int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _float_or_none(value: Any) -> float | None:
    import math

    ok = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
    return float(value) if ok else None
