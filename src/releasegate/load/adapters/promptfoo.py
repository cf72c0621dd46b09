"""Read promptfoo results (``promptfoo eval -o results.json`` or ``-o results.jsonl``) into the tidy table.

One file holds one release per provider (or per prompt with ``release_by="prompt"``). ``testIdx``
changes whenever the config is edited, so a case is keyed, in this order, on:
1. ``testCase.metadata.id``, 2. ``vars.id``, 3. the test's ``description``, 4. ``"vars:"`` + the
first 12 hex digits of the sha256 of the vars as canonical JSON (keys sorted, separators "," and ":",
UTF-8, no ASCII escaping). A provider error (``failureReason`` 2) gives ``passed`` and ``score`` NaN.
A cached response's latency is the cache's, not the model's, so it is left out (NaN).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pandas as pd

from releasegate.errors import InputError
from releasegate.text import clip as _clip

NAN = float("nan")
ERROR_REASON = 2  # ResultFailureReason.ERROR (0 none, 1 assertion)
_COLUMNS = ["release", "case_id", "passed", "score", "latency_ms", "input_tokens", "output_tokens", "cost",
            "description", "input", "output", "reason", "error"]
_EXPECTED = ("expected `promptfoo eval -o results.json` ({evalId, results: {version, results: [...]}}) "
             "or -o results.jsonl")


def read_promptfoo(path: Path, *, release: str | None = None, release_by: str = "provider") -> pd.DataFrame:
    """Read one promptfoo output; ``release`` renames the release when the file holds exactly one."""
    path = Path(path)
    if release_by not in ("provider", "prompt"):
        raise InputError(f"release_by must be 'provider' or 'prompt', not {release_by!r}")
    results, description = _load(path)
    rows = [_row(path, number, result, release_by) for number, result in enumerate(results, 1)]
    frame = pd.DataFrame(rows)
    releases = list(dict.fromkeys(frame["release"]))
    if release:
        if len(releases) > 1:
            raise InputError(f"{path} holds {len(releases)} releases ({', '.join(releases)}); a release name "
                             "can rename only a file that holds one")
        frame["release"] = release
    dup = frame[frame.duplicated(["release", "case_id"], keep=False)]
    if len(dup):
        where = dup["release"].iloc[0]
        keys = list(dict.fromkeys(dup.loc[dup["release"] == where, "case_id"]))
        hint = "" if release_by == "prompt" else " (several prompts per provider? try release_by='prompt')"
        raise InputError(f"{path}: {len(keys)} case key(s) repeat within release {where!r}: "
                         f"{', '.join(map(repr, keys[:3]))}; give each test a unique description or "
                         f"metadata.id (--repeat runs cannot be told apart){hint}")
    ordered = [c for c in _COLUMNS if c in frame.columns]
    extra = [c for c in frame.columns if c not in _COLUMNS]
    frame = frame[ordered + extra]
    optional = [c for c in frame.columns if c not in ("release", "case_id", "passed", "score")]
    frame = frame.drop(columns=[c for c in optional if frame[c].isna().all()])
    frame.attrs.update(task=description, source_format="promptfoo")
    return frame


def _load(path: Path) -> tuple[list[dict], str]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise InputError(f"{path}: not UTF-8 text; {_EXPECTED}") from None
    description = ""
    if path.suffix.lower() in (".jsonl", ".ndjson"):
        results = []
        for number, line in enumerate(text.splitlines(), 1):
            if line.strip():
                results.append(_parse(path, line, f"line {number}"))
    else:
        data = _parse(path, text, "the file")
        inner = data.get("results") if isinstance(data, dict) else None
        if isinstance(inner, dict) and isinstance(inner.get("results"), list):
            results = inner["results"]
        elif isinstance(data, dict) and "version" in data and isinstance(inner, list):
            results = inner  # an EvaluateSummary written on its own
        else:
            raise InputError(f"{path}: not a promptfoo results file; {_EXPECTED}")
        config = data.get("config")
        description = str(config.get("description") or "") if isinstance(config, dict) else ""
    if not results:
        raise InputError(f"{path}: the promptfoo file holds no results")
    for number, result in enumerate(results, 1):
        if not isinstance(result, dict) or "success" not in result:
            raise InputError(f"{path}: result {number} has no 'success' field; {_EXPECTED}")
    return results, description


def _parse(path: Path, text: str, where: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}: {where} is not valid JSON ({exc.msg} at line {exc.lineno}); {_EXPECTED}") from None


def case_key(result: dict) -> str:
    """The stable case key of one promptfoo result (see the module docstring for the order)."""
    test = result.get("testCase") if isinstance(result.get("testCase"), dict) else {}
    meta = test.get("metadata") if isinstance(test.get("metadata"), dict) else {}
    variables = test.get("vars") if isinstance(test.get("vars"), dict) else result.get("vars")
    variables = variables if isinstance(variables, dict) else {}
    for candidate in (meta.get("id"), variables.get("id"), test.get("description"), result.get("description")):
        if candidate not in (None, ""):
            return str(candidate)
    canonical = json.dumps(variables, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return "vars:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:12]


def _release(path: Path, number: int, result: dict, release_by: str) -> str:
    item = result.get(release_by)
    if isinstance(item, dict):
        keys = ("label", "id") if release_by == "provider" else ("label", "raw")
        name = next((item[k] for k in keys if item.get(k)), None)
    else:
        name = item
    if not name:
        raise InputError(f"{path}: result {number} names no {release_by} ({release_by}.label / "
                         f"{'id' if release_by == 'provider' else 'raw'})")
    return str(name)


def _row(path: Path, number: int, result: dict, release_by: str) -> dict[str, Any]:
    response = result.get("response") if isinstance(result.get("response"), dict) else {}
    errored = result.get("failureReason") == ERROR_REASON or (
        "failureReason" not in result and bool(response.get("error")))
    usage = _usage(result.get("tokenUsage"), response.get("tokenUsage"))
    latency = _number(result.get("latencyMs", response.get("latencyMs")))
    test = result.get("testCase") if isinstance(result.get("testCase"), dict) else {}
    prompt = result.get("prompt") if isinstance(result.get("prompt"), dict) else {}
    grading = result.get("gradingResult") if isinstance(result.get("gradingResult"), dict) else {}
    output = response.get("output")
    row = {"release": _release(path, number, result, release_by), "case_id": case_key(result),
           "passed": NAN if errored else float(bool(result.get("success"))),
           "score": NAN if errored else _number(result.get("score")),
           "latency_ms": NAN if response.get("cached") else latency,
           "input_tokens": usage[0], "output_tokens": usage[1],
           "cost": _number(result.get("cost", response.get("cost"))),
           "description": _clip(test.get("description") or result.get("description")),
           "input": _clip(prompt.get("raw")),
           "output": _clip(output if isinstance(output, str) or output is None else json.dumps(output)),
           "reason": None if errored or result.get("success") else _clip(grading.get("reason")),
           "error": _clip(result.get("error") or response.get("error")) if errored else None}
    # Scalar test metadata (e.g. a "category" or "difficulty" field) is kept as case metadata.
    meta = test.get("metadata") if isinstance(test.get("metadata"), dict) else {}
    for key, value in meta.items():
        if key not in row and key not in ("id", "run") and isinstance(value, (str, int, float, bool)):
            row[key] = str(value) if isinstance(value, str) else value
    return row


def _usage(*candidates: Any) -> tuple[float, float]:
    """(prompt, completion) tokens from the first usage that has them (result-level, then response-level)."""
    for usage in candidates:
        if isinstance(usage, dict) and ("prompt" in usage or "completion" in usage):
            return _number(usage.get("prompt")), _number(usage.get("completion"))
    return NAN, NAN


def _number(value: Any) -> float:
    if isinstance(value, bool) or value is None:
        return NAN if value is None else float(value)
    try:
        return float(value)
    except (TypeError, ValueError):
        return NAN



read = read_promptfoo
