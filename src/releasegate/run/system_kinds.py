"""The table of system kinds: a new kind is one module (its keys, ``parse_spec``, ``hashed``, ``endpoint``,
``make_caller``) and one row here. The config, the hashes, the limits and the runner read this table.

- ``parse_spec(raw, base_dir, where) -> dict``: the kind's keys checked (one InputError naming a bad one);
- ``hashed(spec) -> dict``: what shapes the answers (the system hash; never keys, timeouts or limits);
- ``endpoint(spec) -> str | None``: the endpoint whose limits it shares (base_url + model), None if it runs
  on its own (the fake provider, a Python callable: no other system's limits throttle it);
- ``make_caller(system, context)``: an async ``caller(request, timeout_s) -> Reply`` with ``close()``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from releasegate.errors import RunConfigError
from releasegate.run import fake, openai_chat, python_system
from releasegate.run.spec import LIMIT_KEYS, SystemConfig, limits, no_unknown, number, stable_hash


@dataclass(frozen=True)
class SystemKind:
    name: str
    keys: frozenset[str]
    parse_spec: Callable[[Mapping[str, Any], Path, str], dict[str, Any]]
    hashed: Callable[[Mapping[str, Any]], dict[str, Any]]
    endpoint: Callable[[Mapping[str, Any]], str | None]
    make_caller: Callable[[Any, Any], Any]
    calls_out: bool  # sends requests over the network (its key is checked before the first call)


SYSTEM_KINDS: dict[str, SystemKind] = {kind.name: kind for kind in (
    SystemKind("openai", openai_chat.KEYS, openai_chat.parse_spec, openai_chat.hashed, openai_chat.endpoint,
               openai_chat.make_caller, calls_out=True),
    SystemKind("python", python_system.KEYS, python_system.parse_spec, python_system.hashed,
               python_system.endpoint, python_system.make_caller, calls_out=False),
    SystemKind("fake", fake.KEYS, fake.parse_spec, fake.hashed, fake.endpoint, fake.make_caller, calls_out=False),
)}

COMMON_KEYS = frozenset({"name", "kind", "input_per_million", "output_per_million"})


def parse_system(raw: Any, base_dir: Path, where: str, *, name_required: bool = True) -> SystemConfig:
    """One ``[[run.system]]`` table (or a judge's ``[run.metric.system]``) -> SystemConfig."""
    if not isinstance(raw, Mapping):
        raise RunConfigError(f"{where}: must be a table")
    kind = SYSTEM_KINDS.get(raw.get("kind"))  # type: ignore[arg-type]
    if kind is None:
        raise RunConfigError(f"{where}: kind must be one of {', '.join(SYSTEM_KINDS)}, got {raw.get('kind')!r}")
    no_unknown(raw, COMMON_KEYS | kind.keys | (LIMIT_KEYS if kind.calls_out else set()), where)
    name = raw.get("name", "" if not name_required else None)
    if not isinstance(name, str) or (name_required and not name.strip()):
        raise RunConfigError(f"{where}: name must be a non-empty text, got {name!r}")
    prices = {k: number(raw, k, None, where, low=0.0) for k in ("input_per_million", "output_per_million")}
    spec = kind.parse_spec(raw, base_dir, where)
    return SystemConfig(name=name, kind=kind.name, spec=spec, system_hash=stable_hash({"kind": kind.name,
                                                                                       **kind.hashed(spec)}),
                        limits=limits(raw, where), endpoint=kind.endpoint(spec), **prices)
