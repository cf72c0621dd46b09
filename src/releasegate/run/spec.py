"""The checked records of a run's configuration (a system, a metric, an endpoint's limits) and the value checks
that build them: every bad value is one InputError naming its key.

The kinds' modules (:mod:`releasegate.run.system_kinds`, :mod:`releasegate.run.metric_kinds`) build their specs
with these checks; :mod:`releasegate.run.config` reads the file. Nothing here imports a kind, so a kind's module
can import this one.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import string
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, overload

from releasegate.errors import RunConfigError
from releasegate.files import TEXT_CAP, read_text_capped

# What is beyond sense is refused at once, with the limit (a format width of 4e8 fills 400 MB per prompt).
MAX_FORMAT_WIDTH = 10_000


def stable_hash(value: Any) -> str:
    """sha256 of canonical JSON: equal configs hash equal whatever the key order in the file."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def canonical_numbers(value: Any) -> Any:
    """Integral floats as ints, recursively (``temperature = 0`` and ``0.0`` are the same request to a server,
    so they hash the same); booleans and other values unchanged."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, Mapping):
        return {k: canonical_numbers(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [canonical_numbers(v) for v in value]
    return value


@dataclass(frozen=True)
class Limits:
    """One endpoint's limits (base_url + model); None takes the [run] default. The fake provider and Python
    systems have no shared endpoint: each runs on its own, throttled by nobody else's limits."""

    max_concurrency: int | None = None
    requests_per_minute: float | None = None
    tokens_per_minute: float | None = None


LIMIT_KEYS = frozenset({"max_concurrency", "requests_per_minute", "tokens_per_minute"})


@dataclass(frozen=True)
class SystemConfig:
    """One system under test (or a judge's endpoint): ``kind`` (a row of SYSTEM_KINDS) reads ``spec``."""

    name: str
    kind: str
    spec: Mapping[str, Any]
    system_hash: str
    input_per_million: float | None = None
    output_per_million: float | None = None
    limits: Limits = field(default_factory=Limits)
    endpoint: str | None = None  # base_url + model for an HTTP system; None: runs on its own

    def cost(self, input_tokens: float | None, output_tokens: float | None) -> float | None:
        if self.input_per_million is None and self.output_per_million is None:
            return None
        if input_tokens is None or output_tokens is None:
            return None
        return (input_tokens * (self.input_per_million or 0.0) + output_tokens * (self.output_per_million or 0.0)) / 1e6


@dataclass(frozen=True)
class MetricConfig:
    """How an output is scored; ``value`` is "passed" (0/1) or "score" (a number); ``judge`` is the endpoint
    of a judge (a metric that makes calls)."""

    name: str
    kind: str
    spec: Mapping[str, Any]
    metric_hash: str
    value: str
    judge: SystemConfig | None = None


# -- value checks ---------------------------------------------------------------------------------------
def no_unknown(raw: Mapping[str, Any], known: set[str] | frozenset[str], where: str) -> None:
    unknown = sorted(set(raw) - set(known))
    if unknown:
        raise RunConfigError(f"{where}: unknown key(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")


def path_in(base_dir: Path, text: str) -> Path:
    path = Path(text).expanduser()
    return path if path.is_absolute() else base_dir / path


def text(raw: Mapping[str, Any], key: str, default: str | None, where: str) -> str:
    value = raw.get(key, default)
    if not isinstance(value, str) or (default is None and not value.strip()):
        raise RunConfigError(f"{where}: {key} must be a non-empty text, got {value!r}")
    return value


def text_or_file(raw: Mapping[str, Any], key: str, base_dir: Path, where: str, default: str | None) -> str:
    file_key = f"{key}_file"
    if key in raw and file_key in raw:
        raise RunConfigError(f"{where}: give {key} or {file_key}, not both")
    if file_key in raw:
        path = path_in(base_dir, text(raw, file_key, None, where))
        return read_text_capped(path, f"{where}: {file_key}", cap=TEXT_CAP, error=RunConfigError)
    if key in raw:
        return text(raw, key, default, where)
    if default is None:
        raise RunConfigError(f"{where}: {key} or {file_key} is needed")
    return default


def boolean(raw: Mapping[str, Any], key: str, default: bool, where: str) -> bool:
    value = raw.get(key, default)
    if not isinstance(value, bool):
        raise RunConfigError(f"{where}: {key} must be true or false, got {value!r}")
    return value


def integer(raw: Mapping[str, Any], key: str, default: int, where: str, *, low: int, high: int | None = None) -> int:
    value = raw.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < low or (high is not None and value > high):
        bound = f">= {low}" + (f" and <= {high:,}" if high is not None else "")
        raise RunConfigError(f"{where}: {key} must be an integer {bound}, got {value!r}")
    return value


@overload
def number(raw: Mapping[str, Any], key: str, default: float, where: str, *, low: float,
           high: float | None = None, open_low: bool = False) -> float: ...
@overload
def number(raw: Mapping[str, Any], key: str, default: None, where: str, *, low: float,
           high: float | None = None, open_low: bool = False) -> float | None: ...
def number(raw: Mapping[str, Any], key: str, default: float | None, where: str, *, low: float,
           high: float | None = None, open_low: bool = False) -> float | None:
    """``raw[key]`` checked as a finite number in its range; with a number as ``default`` it is never None."""
    value = raw.get(key, default)
    if value is None and default is None:
        return None
    ok = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
    if ok:
        ok = (value > low if open_low else value >= low) and (high is None or value <= high)
    if not ok:
        bound = f"{'>' if open_low else '>='} {low}" + (f" and <= {high}" if high is not None else "")
        raise RunConfigError(f"{where}: {key} must be a number {bound}, got {value!r}")
    return float(value)


def limits(raw: Mapping[str, Any], where: str) -> Limits:
    """A system's own endpoint limits (absent keys take the [run] defaults)."""
    concurrency = raw.get("max_concurrency")
    return Limits(
        max_concurrency=None if concurrency is None else integer(raw, "max_concurrency", 1, where, low=1,
                                                                  high=1024),
        requests_per_minute=number(raw, "requests_per_minute", None, where, low=0.0),
        tokens_per_minute=number(raw, "tokens_per_minute", None, where, low=0.0),
    )


# -- templates ------------------------------------------------------------------------------------------
_SPEC_NUMBERS = re.compile(r"\d+")


def template_fields(template: str, where: str, key: str) -> tuple[str, ...]:
    """The case fields a ``{field}`` template reads, checked once at the config: whole fields only (no
    ``{input.foo}`` or ``{input[0]}``, no positional ``{}``), and no format width or precision beyond
    :data:`MAX_FORMAT_WIDTH` (``{input:>400000000}`` would fill 400 MB per call)."""
    try:
        parts = list(string.Formatter().parse(template))
    except ValueError as exc:
        raise RunConfigError(f"{where}: {key} is not a valid template ({exc}); write literal braces as {{{{ and }}}}") \
            from None
    fields = []
    for _, name, spec, conversion in parts:
        if name is None:
            continue
        shown = "{" + name + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "") + "}"
        if name == "" or name.isdigit():
            raise RunConfigError(f"{where}: {key} has a positional placeholder {shown}; name a case field, e.g. {{input}}")
        if "." in name or "[" in name:
            raise RunConfigError(f"{where}: {key} uses {shown}: a template takes whole case fields ({{field}}), not "
                             "attributes or items")
        if spec and "{" in spec:
            raise RunConfigError(f"{where}: {key} uses {shown}: nested placeholders in a format are not supported")
        widths = [int(n) for n in _SPEC_NUMBERS.findall(spec or "")]
        if widths and max(widths) > MAX_FORMAT_WIDTH:
            raise RunConfigError(f"{where}: {key} uses {shown}: a format width or precision above "
                             f"{MAX_FORMAT_WIDTH:,} is refused")
        fields.append(name)
    return tuple(dict.fromkeys(fields))
