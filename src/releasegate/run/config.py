"""CONFIG.toml -> a checked RunConfig; every unknown key or bad value is one InputError naming it.

The hashes that key the store are computed here: a system's hash covers what shapes its answers (model,
base_url, prompts, params, seed policy; a callable's source and version) and never its key, timeouts or
concurrency, so that changing those re-runs nothing (docs/run.md).
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
import json
import math
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from releasegate.errors import InputError

SYSTEM_KINDS = ("openai", "python", "fake")
METRIC_KINDS = ("exact", "contains", "regex", "python", "judge")
SEED_POLICIES = ("run", "none")
RUN_KEYS = {"cases", "runs", "store", "max_concurrency", "requests_per_minute", "timeout_s", "deadline_s",
            "max_attempts", "seed", "reference_field", "system", "metric", "grid", "backoff_s", "max_backoff_s"}
COMMON_SYSTEM_KEYS = {"name", "kind", "input_per_million", "output_per_million"}
SYSTEM_KEYS = {
    "openai": {"base_url", "model", "api_key_env", "system_prompt", "system_prompt_file", "user_template",
               "user_template_file", "params", "seed"},
    "python": {"entry", "version", "function"},
    "fake": {"accuracy", "rate_429", "rate_5xx", "rate_timeout", "seed", "version", "latency_s", "latency_ms",
             "wrong_answer"},
}
METRIC_KEYS = {
    "exact": {"ignore_case"}, "contains": {"ignore_case"}, "regex": {"ignore_case"},
    "python": {"entry", "version", "value"},
    "judge": {"rubric", "rubric_file", "pattern", "value", "system"},
}
DEFAULT_JUDGE_PATTERN = r"(?i)\b(PASS|FAIL)\b"
PASS_WORDS = {"pass", "yes", "true", "correct", "1"}
FAIL_WORDS = {"fail", "no", "false", "incorrect", "0"}


def stable_hash(value: Any) -> str:
    """sha256 of canonical JSON: equal configs hash equal whatever the key order in the file."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class SystemConfig:
    """One system under test (or a judge's endpoint): ``kind`` decides which keys of ``spec`` are used."""

    name: str
    kind: str
    spec: Mapping[str, Any]
    system_hash: str
    input_per_million: float | None = None
    output_per_million: float | None = None

    def cost(self, input_tokens: float | None, output_tokens: float | None) -> float | None:
        if self.input_per_million is None and self.output_per_million is None:
            return None
        if input_tokens is None or output_tokens is None:
            return None
        return (input_tokens * (self.input_per_million or 0.0) + output_tokens * (self.output_per_million or 0.0)) / 1e6


@dataclass(frozen=True)
class MetricConfig:
    """How an output is scored; ``value`` is "passed" (0/1) or "score" (a number)."""

    name: str
    kind: str
    spec: Mapping[str, Any]
    metric_hash: str
    value: str
    judge: SystemConfig | None = None


@dataclass(frozen=True)
class RunConfig:
    cases_path: Path
    store: Path
    systems: tuple[SystemConfig, ...]
    metric: MetricConfig
    runs: int = 1
    max_concurrency: int = 8
    requests_per_minute: float = 0.0
    timeout_s: float = 120.0
    deadline_s: float = 600.0
    max_attempts: int = 6
    seed: int = 0
    reference_field: str = "reference"
    backoff_s: float = 1.0
    max_backoff_s: float = 60.0
    base_dir: Path = field(default_factory=Path)
    grid_baseline: str | None = None  # a sweep ([run.grid]): what its candidates are ranked against
    grid_candidates: tuple[str, ...] = ()

    def system(self, name: str) -> SystemConfig:
        for system in self.systems:
            if system.name == name:
                return system
        raise InputError(f"no system named {name!r}; systems: {', '.join(s.name for s in self.systems)}")


def load_config(path: Path) -> RunConfig:
    """Read and check CONFIG.toml; relative paths are relative to the file's folder."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"config file not found: {path}")
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: not valid TOML: {exc}") from None
    unknown = set(raw) - {"run"}
    if unknown or "run" not in raw:
        raise InputError(f"{path}: expected a [run] table and nothing else, found {', '.join(sorted(raw)) or 'nothing'}")
    return parse_config(raw["run"], base_dir=path.parent, where=str(path))


def parse_config(run: Mapping[str, Any], *, base_dir: Path = Path("."), where: str = "config") -> RunConfig:
    """The [run] table (as a dict) -> RunConfig, for the file and the Python API alike."""
    _no_unknown(run, RUN_KEYS, f"{where}: [run]")
    for key in ("cases", "store"):
        if not isinstance(run.get(key), str) or not run[key].strip():
            raise InputError(f"{where}: [run] {key} must be a path (text), got {run.get(key)!r}")
    systems_raw = run.get("system")
    if not isinstance(systems_raw, list) or not systems_raw:
        raise InputError(f"{where}: at least one [[run.system]] is needed")
    grid_baseline, grid_candidates = None, ()
    if "grid" in run:
        from releasegate.run.grid import expand_grid

        systems_raw, grid_baseline, grid_candidates = expand_grid(systems_raw, run["grid"], f"{where}: [run.grid]")
    systems = tuple(parse_system(s, base_dir, f"{where}: [[run.system]] #{i + 1}") for i, s in enumerate(systems_raw))
    names = [s.name for s in systems]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise InputError(f"{where}: system name(s) used twice: {', '.join(dup)}")
    if not isinstance(run.get("metric"), Mapping):
        raise InputError(f"{where}: a [run.metric] table is needed")
    metric = parse_metric(run["metric"], base_dir, f"{where}: [run.metric]")
    config = RunConfig(
        cases_path=_path(base_dir, run["cases"]),
        store=_path(base_dir, run["store"]),
        systems=systems,
        metric=metric,
        runs=_int(run, "runs", 1, where, low=1),
        max_concurrency=_int(run, "max_concurrency", 8, where, low=1),
        requests_per_minute=_number(run, "requests_per_minute", 0.0, where, low=0.0),
        timeout_s=_number(run, "timeout_s", 120.0, where, low=0.0, open_low=True),
        deadline_s=_number(run, "deadline_s", 600.0, where, low=0.0, open_low=True),
        max_attempts=_int(run, "max_attempts", 6, where, low=1),
        seed=_int(run, "seed", 0, where, low=0),
        reference_field=_text(run, "reference_field", "reference", where),
        backoff_s=_number(run, "backoff_s", 1.0, where, low=0.0),
        max_backoff_s=_number(run, "max_backoff_s", 60.0, where, low=0.0),
        base_dir=base_dir,
        grid_baseline=grid_baseline,
        grid_candidates=grid_candidates,
    )
    return config


def parse_system(raw: Any, base_dir: Path, where: str, *, name_required: bool = True) -> SystemConfig:
    if not isinstance(raw, Mapping):
        raise InputError(f"{where}: must be a table")
    kind = raw.get("kind")
    if kind not in SYSTEM_KINDS:
        raise InputError(f"{where}: kind must be one of {', '.join(SYSTEM_KINDS)}, got {kind!r}")
    _no_unknown(raw, COMMON_SYSTEM_KEYS | SYSTEM_KEYS[kind], where)
    name = raw.get("name", "" if not name_required else None)
    if not isinstance(name, str) or (name_required and not name.strip()):
        raise InputError(f"{where}: name must be a non-empty text, got {name!r}")
    prices = {k: _number(raw, k, None, where, low=0.0) for k in ("input_per_million", "output_per_million")}
    if kind == "openai":
        spec = _openai_spec(raw, base_dir, where)
    elif kind == "python":
        spec = _python_spec(raw, where)
    else:
        spec = {
            "accuracy": _number(raw, "accuracy", 0.8, where, low=0.0, high=1.0),
            "rate_429": _number(raw, "rate_429", 0.0, where, low=0.0, high=1.0),
            "rate_5xx": _number(raw, "rate_5xx", 0.0, where, low=0.0, high=1.0),
            "rate_timeout": _number(raw, "rate_timeout", 0.0, where, low=0.0, high=1.0),
            "seed": _int(raw, "seed", 0, where, low=0),
            "version": str(raw.get("version", "")),
            "wrong_answer": _text(raw, "wrong_answer", "I am not sure.", where),
        }
        if spec["rate_429"] + spec["rate_5xx"] + spec["rate_timeout"] > 1.0:
            raise InputError(f"{where}: rate_429 + rate_5xx + rate_timeout must not exceed 1")
    hashed = {"kind": kind, **{k: v for k, v in spec.items() if k not in ("api_key_env", "function")}}
    if kind == "fake":  # failure rates are the provider's weather, not the system: changing them re-runs nothing
        hashed = {k: v for k, v in hashed.items() if not k.startswith("rate_")}
        spec = {**spec, "latency_s": _number(raw, "latency_s", 0.0, where, low=0.0),
                "latency_ms": _number(raw, "latency_ms", 800.0, where, low=0.0)}
    return SystemConfig(name=name, kind=kind, spec=spec, system_hash=stable_hash(hashed), **prices)


def _python_spec(raw: Mapping[str, Any], where: str) -> dict[str, Any]:
    """``entry = "mod:fn"`` from a file; the Python API may hand the function itself (``function``)."""
    function = raw.get("function")
    if function is not None:
        if not callable(function):
            raise InputError(f"{where}: function must be callable, got {function!r}")
        entry = f"{getattr(function, '__module__', '?')}:{getattr(function, '__qualname__', repr(function))}"
        try:
            source = inspect.getsource(function)
        except (OSError, TypeError):
            source = repr(function)
        return {"entry": entry, "version": str(raw.get("version", "")), "source": source, "function": function}
    entry = _text(raw, "entry", None, where)
    return {"entry": entry, "version": str(raw.get("version", "")), "source": callable_source(entry, where)}


def _openai_spec(raw: Mapping[str, Any], base_dir: Path, where: str) -> dict[str, Any]:
    base_url = _text(raw, "base_url", None, where)
    if not base_url.startswith(("http://", "https://")):
        raise InputError(f"{where}: base_url must start with http:// or https://, got {base_url!r}")
    params = raw.get("params", {})
    if not isinstance(params, Mapping):
        raise InputError(f"{where}: params must be a table, e.g. params = {{ temperature = 0.7 }}")
    seed = raw.get("seed", "run")
    if seed not in SEED_POLICIES:
        raise InputError(f"{where}: seed must be one of {', '.join(SEED_POLICIES)}, got {seed!r}")
    key_env = raw.get("api_key_env")
    if key_env is not None and (not isinstance(key_env, str) or not key_env.strip()):
        raise InputError(f"{where}: api_key_env must name an environment variable, got {key_env!r}")
    return {
        "base_url": base_url.rstrip("/"),
        "model": _text(raw, "model", None, where),
        "system_prompt": _text_or_file(raw, "system_prompt", base_dir, where, ""),
        "user_template": _text_or_file(raw, "user_template", base_dir, where, "{input}"),
        "params": dict(params),
        "seed": seed,
        "api_key_env": key_env,
    }


def parse_metric(raw: Mapping[str, Any], base_dir: Path, where: str) -> MetricConfig:
    kind = raw.get("kind")
    if kind not in METRIC_KINDS:
        raise InputError(f"{where}: kind must be one of {', '.join(METRIC_KINDS)}, got {kind!r}")
    _no_unknown(raw, {"name", "kind"} | METRIC_KEYS[kind], where)
    name = _text(raw, "name", "passed", where)
    judge = None
    value = "passed"
    if kind in ("exact", "contains", "regex"):
        spec: dict[str, Any] = {"ignore_case": bool(_bool(raw, "ignore_case", False, where))}
    elif kind == "python":
        entry = _text(raw, "entry", None, where)
        spec = {"entry": entry, "version": str(raw.get("version", "")), "source": callable_source(entry, where)}
        value = "score" if _text(raw, "value", "passed", where) == "score" else "passed"
    else:
        value = _text(raw, "value", "passed", where)
        if value not in ("passed", "score"):
            raise InputError(f"{where}: value must be 'passed' or 'score', got {value!r}")
        pattern = _text(raw, "pattern", DEFAULT_JUDGE_PATTERN, where)
        try:
            compiled = re.compile(pattern)
        except re.error as exc:
            raise InputError(f"{where}: pattern is not a valid regular expression: {exc}") from None
        if compiled.groups < 1:
            raise InputError(f"{where}: pattern must have one group holding the verdict or the score")
        if not isinstance(raw.get("system"), Mapping):
            raise InputError(f"{where}: a judge needs a [run.metric.system] table (the judge's endpoint)")
        judge = parse_system({"name": "judge", **raw["system"]}, base_dir, f"{where}.system")
        spec = {"rubric": _text_or_file(raw, "rubric", base_dir, where, None), "pattern": pattern, "value": value,
                "judge_system": judge.system_hash}
    metric_hash = stable_hash({"kind": kind, **spec})
    return MetricConfig(name=name, kind=kind, spec=spec, metric_hash=metric_hash, value=value, judge=judge)


def resolve_callable(entry: str, where: str):
    """``package.module:function`` -> the function; a bad entry is an InputError, not a traceback."""
    module_name, sep, attr = entry.partition(":")
    if not sep or not module_name or not attr:
        raise InputError(f"{where}: entry must look like 'package.module:function', got {entry!r}")
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # noqa: BLE001  (any failure to import the user's module is their config's)
        raise InputError(f"{where}: cannot import {module_name!r}: {type(exc).__name__}: {exc}") from None
    target = module
    for part in attr.split("."):
        target = getattr(target, part, None)
        if target is None:
            raise InputError(f"{where}: {module_name!r} has no attribute {attr!r}")
    if not callable(target):
        raise InputError(f"{where}: {entry!r} is not callable")
    return target


def callable_source(entry: str, where: str) -> str:
    """The function's source (part of the hash: editing the function re-runs its cells)."""
    function = resolve_callable(entry, where)
    try:
        return inspect.getsource(function)
    except (OSError, TypeError):
        return repr(function)  # builtins and C functions: their identity, with the version string


def _no_unknown(raw: Mapping[str, Any], known: set[str], where: str) -> None:
    unknown = sorted(set(raw) - known)
    if unknown:
        raise InputError(f"{where}: unknown key(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")


def _path(base_dir: Path, text: str) -> Path:
    path = Path(text).expanduser()
    return path if path.is_absolute() else base_dir / path


def _text(raw: Mapping[str, Any], key: str, default: str | None, where: str) -> str:
    value = raw.get(key, default)
    if not isinstance(value, str) or (default is None and not value.strip()):
        raise InputError(f"{where}: {key} must be a non-empty text, got {value!r}")
    return value


def _text_or_file(raw: Mapping[str, Any], key: str, base_dir: Path, where: str, default: str | None) -> str:
    file_key = f"{key}_file"
    if key in raw and file_key in raw:
        raise InputError(f"{where}: give {key} or {file_key}, not both")
    if file_key in raw:
        path = _path(base_dir, _text(raw, file_key, None, where))
        try:
            return path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"{where}: cannot read {file_key} {path}: {getattr(exc, 'strerror', None) or exc}") from None
    if default is None and key not in raw:
        raise InputError(f"{where}: {key} or {file_key} is needed")
    return _text(raw, key, default if default is not None else None, where) if key in raw else default


def _bool(raw: Mapping[str, Any], key: str, default: bool, where: str) -> bool:
    value = raw.get(key, default)
    if not isinstance(value, bool):
        raise InputError(f"{where}: {key} must be true or false, got {value!r}")
    return value


def _int(raw: Mapping[str, Any], key: str, default: int, where: str, *, low: int) -> int:
    value = raw.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise InputError(f"{where}: {key} must be an integer >= {low}, got {value!r}")
    return value


def _number(raw: Mapping[str, Any], key: str, default: float | None, where: str, *, low: float,
            high: float | None = None, open_low: bool = False) -> float | None:
    value = raw.get(key, default)
    if value is None and default is None:
        return None
    ok = isinstance(value, int | float) and not isinstance(value, bool) and not math.isnan(value)
    if ok:
        ok = (value > low if open_low else value >= low) and (high is None or value <= high)
    if not ok:
        bound = f"{'>' if open_low else '>='} {low}" + (f" and <= {high}" if high is not None else "")
        raise InputError(f"{where}: {key} must be a number {bound}, got {value!r}")
    return float(value)
