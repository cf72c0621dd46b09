"""Read promptfoo results (``promptfoo eval -o results.json`` or ``-o results.jsonl``) into the tidy table.

One file holds one release per provider (or per prompt with ``release_by="prompt"``). ``testIdx``
changes whenever the config is edited, so a case is keyed, in this order, on:
1. ``testCase.metadata.id``, 2. ``vars.id``, 3. the test's ``description``, 4. ``"vars:"`` + the
first 12 hex digits of the sha256 of the vars as canonical JSON (keys sorted, separators "," and ":",
UTF-8, no ASCII escaping). ``content_hash`` is the fingerprint of the test's vars and assertions (none of the
keys is a position). A provider error (``failureReason`` 2) gives ``passed`` and ``score`` NaN.
A cached response's latency is the cache's, not the model's, so it is left out (NaN).

What promptfoo users do around the file:
- ``--repeat N`` writes every test N times (a new ``testIdx`` each, the same test): the copies are runs 1..N,
  numbered in ``testIdx`` order. The same key on tests that differ (other vars) is still refused.
- prompt x provider: when a provider ran several prompts, its release is ``provider [prompt]`` (with
  ``release_by="prompt"``: ``prompt [provider]`` when a prompt ran on several providers).
- A prompt's name is its label (else its text), cut to 40 characters: a release name is typed on the command line.
- Results version 2 (promptfoo < 0.60) has no ``testCase``: each result's test is found in ``table.body`` by its
  vars, so the keys are the same as a version-3 file of the same tests; a provider without label in the results
  takes the label of its entry in ``config.providers``.
- ``NAME=path`` on a file of several releases prefixes them (``NAME/provider``), so two multi-provider runs compare.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pandas as pd

from releasegate.errors import InputError
from releasegate.load.adapters.fields import list_at, mapping_at
from releasegate.load.fingerprint import CONTENT_COLUMN, KIND_COLUMN, POSITION_COLUMN, content_fingerprint
from releasegate.text import clip as _clip

NAN = float("nan")
ERROR_REASON = 2  # ResultFailureReason.ERROR (0 none, 1 assertion)
_COLUMNS = ["release", "case_id", "passed", "score", "latency_ms", "input_tokens", "output_tokens", "cost",
            "description", "input", "output", "reason", "error"]
_EXPECTED = ("expected `promptfoo eval -o results.json` ({evalId, results: {version, results: [...]}}) "
             "or -o results.jsonl")


RELEASE_NAME_LIMIT = 40


def read_promptfoo(path: Path, *, release: str | None = None, release_by: str = "provider") -> pd.DataFrame:
    """Read one promptfoo output; ``release`` names a file of one release, or prefixes those of several."""
    path = Path(path)
    if release_by not in ("provider", "prompt"):
        raise InputError(f"release_by must be 'provider' or 'prompt', not {release_by!r}")
    results, description, meta = _load(path)
    rows = [_row(path, number, result) for number, result in enumerate(results, 1)]
    frame = pd.DataFrame(rows)
    _check_named(path, frame, release_by)
    crossed = _name_releases(frame, release_by)
    releases = list(dict.fromkeys(frame["release"]))
    if release:
        frame["release"] = release if len(releases) == 1 else release + "/" + frame["release"]
    frame = _number_runs(path, frame)
    ordered = [c for c in _COLUMNS if c in frame.columns]
    extra = [c for c in frame.columns if c not in _COLUMNS]
    frame = frame[ordered + extra]
    optional = [c for c in frame.columns if c not in ("release", "case_id", "passed", "score", "run")]
    frame = frame.drop(columns=[c for c in optional if frame[c].isna().all()])
    other = "prompt" if release_by == "provider" else "provider"
    key = f"{release_by} label" + (f" [{other} label]" if crossed else "")
    if release:
        key = "NAME=" if len(releases) == 1 else f"NAME/{key}"
    frame.attrs.update(task=description, source_format="promptfoo", harness=meta, release_key=key)
    graders = model_graded(results)
    if graders:
        # The pass/fail (promptfoo's success) holds every assertion: a judge's verdict if any is model-graded.
        frame.attrs["judge"] = f"promptfoo {', '.join(graders)}"
        # A named score (namedScores, read with --metric NAME) holds only the assertions naming it as their metric.
        frame.attrs["judge_metrics"] = {name: f"promptfoo {', '.join(kinds)}"
                                        for name, kinds in model_graded_by_metric(results).items()}
    return frame


# promptfoo's model-graded assertion types (docs: "Model-graded metrics"): a model grades the answer.
MODEL_GRADED = ("llm-rubric", "model-graded-closedqa", "model-graded-factuality", "factuality", "g-eval",
                "answer-relevance", "context-faithfulness", "context-recall", "context-relevance", "select-best",
                "search-rubric")


def model_graded(results: list[dict[str, Any]]) -> list[str]:
    """The model-graded assertion types the results were graded by (their gradingResult's components, or the
    test case's assertions), in the order met."""
    found: dict[str, None] = {}
    for result in results:
        grading = mapping_at(result, "gradingResult")
        parts = list_at(grading, "componentResults")
        test = mapping_at(result, "testCase")
        asserts = list_at(test, "assert")
        for item in [p.get("assertion") for p in parts if isinstance(p, dict)] + asserts:
            kind = item.get("type") if isinstance(item, dict) else None
            if isinstance(kind, str) and kind.removeprefix("not-") in MODEL_GRADED:
                found[kind.removeprefix("not-")] = None
    return list(found)


def model_graded_by_metric(results: list[dict[str, Any]]) -> dict[str, list[str]]:
    """Per named metric (an assertion's ``metric``, a key of namedScores), the model-graded assertion types
    among the assertions that name it, in the order met; metrics graded by none are absent."""
    found: dict[str, dict[str, None]] = {}
    for result in results:
        grading = mapping_at(result, "gradingResult")
        parts = list_at(grading, "componentResults")
        test = mapping_at(result, "testCase")
        asserts = list_at(test, "assert")
        for item in [p.get("assertion") for p in parts if isinstance(p, dict)] + asserts:
            if not isinstance(item, dict) or not isinstance(item.get("metric"), str):
                continue
            kind = item.get("type")
            if isinstance(kind, str) and kind.removeprefix("not-") in MODEL_GRADED:
                found.setdefault(item["metric"], {})[kind.removeprefix("not-")] = None
    return {name: list(kinds) for name, kinds in found.items()}


def _name_releases(frame: pd.DataFrame, release_by: str) -> bool:
    """Set ``release`` from the provider or prompt; True when the other one varies within a release (then both)."""
    other = "_prompt" if release_by == "provider" else "_provider"
    first = frame["_" + release_by]
    crossed = bool((frame.groupby(first, sort=False)[other].nunique() > 1).any())  # "" (unnamed) counts as one
    frame["release"] = first + " [" + frame[other] + "]" if crossed else first
    return crossed


def _number_runs(path: Path, frame: pd.DataFrame) -> pd.DataFrame:
    """Copies of one test within a release are runs (``--repeat``); different tests under one key are refused."""
    groups = frame.groupby(["release", "case_id"], sort=False)
    differ = groups["_test"].nunique() > 1
    if differ.any():
        where, _ = differ[differ].index[0]
        keys = [case for (rel, case), bad in differ.items() if bad and rel == where]
        raise InputError(f"{path}: {len(keys)} case key(s) name different tests within release {where!r}: "
                         f"{', '.join(map(repr, keys[:3]))}; give each test a unique description or metadata.id")
    frame = frame.sort_values("_order", kind="stable")
    if (groups.size() > 1).any():
        frame["run"] = (frame.groupby(["release", "case_id"], sort=False).cumcount() + 1).astype("int64")
    return frame.sort_index().drop(columns=["_prompt", "_provider", "_test", "_order"])


def _load(path: Path) -> tuple[list[dict[str, Any]], str, str]:
    """The results, the config's description, and what wrote them ("promptfoo 0.123.1, results version 3")."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise InputError(f"{path}: not UTF-8 text; {_EXPECTED}") from None
    description, data, inner = "", {}, {}
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
            results, inner = inner, data  # an EvaluateSummary written on its own
        else:
            raise InputError(f"{path}: not a promptfoo results file; {_EXPECTED}")
        config = data.get("config")
        description = str(config.get("description") or "") if isinstance(config, dict) else ""
    if not results:
        raise InputError(f"{path}: the promptfoo file holds no results")
    for number, result in enumerate(results, 1):
        if not isinstance(result, dict) or "success" not in result:
            raise InputError(f"{path}: result {number} has no 'success' field; {_EXPECTED}")
    if any("testCase" not in r for r in results):
        _attach_tests(path, results, inner.get("table") if isinstance(inner, dict) else None)
    _attach_provider_labels(results, data.get("config") if isinstance(data, dict) else None)
    meta = data.get("metadata") if isinstance(data, dict) and isinstance(data.get("metadata"), dict) else {}
    version = inner.get("version") if isinstance(inner, dict) else None
    wrote = "promptfoo" + (f" {meta['promptfooVersion']}" if meta.get("promptfooVersion") else "")
    return results, description, wrote + (f", results version {version}" if version is not None else "")


def _attach_tests(path: Path, results: list[dict[str, Any]], table: Any) -> None:
    """Version 2 results carry only vars: find each one's test (description, metadata) in ``table.body``."""
    body = table.get("body") if isinstance(table, dict) else None
    tests: dict[str, dict[str, dict[str, Any]]] = {}
    for row in body if isinstance(body, list) else []:
        test = row.get("test") if isinstance(row, dict) else None
        if isinstance(test, dict):
            tests.setdefault(_canonical(test.get("vars")), {})[_canonical(test)] = test
    for result in results:
        if "testCase" in result:
            continue
        found = list(tests.get(_canonical(result.get("vars")), {}).values())
        if len(found) > 1:
            raise InputError(f"{path}: {len(found)} tests have the vars {_canonical(result.get('vars'))[:80]}; "
                             "a version-2 file cannot tell their results apart (rerun with promptfoo >= 0.60)")
        if found:
            result["testCase"] = found[0]


def _attach_provider_labels(results: list[dict[str, Any]], config: Any) -> None:
    """A provider written without its label (results version 2) takes the label its config entry gives it."""
    entries = config.get("providers") if isinstance(config, dict) else None
    labels = {str(e["id"]): str(e["label"]) for e in entries if isinstance(e, dict) and e.get("id") and e.get("label")} \
        if isinstance(entries, list) else {}
    for result in results:
        provider = result.get("provider")
        if isinstance(provider, dict) and not provider.get("label") and str(provider.get("id")) in labels:
            result["provider"] = {**provider, "label": labels[str(provider["id"])]}


def _canonical(value: Any) -> str:
    return json.dumps(value if value is not None else {}, sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False, default=str)


def _parse(path: Path, text: str, where: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}: {where} is not valid JSON ({exc.msg} at line {exc.lineno}); {_EXPECTED}") from None
    except RecursionError:
        raise InputError(f"{path}: {where} is nested too deeply to be promptfoo's output; {_EXPECTED}") from None


def case_key(result: dict[str, Any]) -> str:
    """The stable case key of one promptfoo result (see the module docstring for the order)."""
    test = mapping_at(result, "testCase")
    meta = mapping_at(test, "metadata")
    variables = test.get("vars") if isinstance(test.get("vars"), dict) else result.get("vars")
    variables = variables if isinstance(variables, dict) else {}
    for candidate in (meta.get("id"), variables.get("id"), test.get("description"), result.get("description")):
        if candidate not in (None, ""):
            return str(candidate)
    canonical = json.dumps(variables, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return "vars:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:12]


def _name(result: dict[str, Any], role: str) -> str:
    """The provider's label (else id), or the prompt's label (else display, else text) cut for the command line."""
    item = result.get(role)
    if isinstance(item, dict):
        keys = ("label", "id") if role == "provider" else ("label", "display", "raw")
        name = next((item[k] for k in keys if item.get(k)), None)
    else:
        name = item
    return short_name(str(name)) if name else ""


def _check_named(path: Path, frame: pd.DataFrame, role: str) -> None:
    unnamed = frame.index[frame["_" + role] == ""]
    if len(unnamed):
        raise InputError(f"{path}: result {unnamed[0] + 1} names no {role} ({role}.label / "
                         f"{'id' if role == 'provider' else 'raw'})")


def short_name(text: str) -> str:
    """The first line of a name, cut at RELEASE_NAME_LIMIT characters with a short hash of the whole kept unique."""
    first = " ".join(text.split("\n", 1)[0].split())
    if first == text and len(text) <= RELEASE_NAME_LIMIT:
        return text
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:6]
    return f"{first[:RELEASE_NAME_LIMIT - 10].rstrip()}… #{digest}"


def _row(path: Path, number: int, result: dict[str, Any]) -> dict[str, Any]:
    response = mapping_at(result, "response")
    errored = result.get("failureReason") == ERROR_REASON or (
        "failureReason" not in result and bool(response.get("error")))
    usage = _usage(result.get("tokenUsage"), response.get("tokenUsage"))
    latency = _number(result.get("latencyMs", response.get("latencyMs")))
    test = mapping_at(result, "testCase")
    prompt = mapping_at(result, "prompt")
    grading = mapping_at(result, "gradingResult")
    output = response.get("output")
    row = {"_provider": _name(result, "provider"), "_prompt": _name(result, "prompt"),
           "_test": _canonical(test.get("vars", result.get("vars"))), "_order": _order(result, number),
           "case_id": case_key(result),
           "passed": NAN if errored else _success(path, number, result.get("success")),
           "score": NAN if errored else _number(result.get("score")),
           "latency_ms": NAN if response.get("cached") else latency,
           "input_tokens": usage[0], "output_tokens": usage[1],
           "cost": _number(result.get("cost", response.get("cost"))),
           "description": _clip(test.get("description") or result.get("description")),
           "input": _clip(prompt.get("raw")),
           "output": _clip(output if isinstance(output, str) or output is None else json.dumps(output)),
           "reason": None if errored or result.get("success") else _clip(grading.get("reason")),
           "error": _clip(result.get("error") or response.get("error")) if errored else None,
           CONTENT_COLUMN: _content(test, result), POSITION_COLUMN: False,
           KIND_COLUMN: "promptfoo"}  # keys are names, never testIdx
    # Named metrics (namedScores: correctness, brevity, ...) become columns of their own, which --metric NAME
    # gates on; a name that clashes with a column above is left out rather than overwrite it.
    named = result.get("namedScores") or grading.get("namedScores") or {}
    for key, value in (named.items() if isinstance(named, dict) else ()):
        if str(key) not in row:
            row[str(key)] = NAN if errored else _number(value)
    # Scalar test metadata (e.g. a "category" or "difficulty" field) is kept as case metadata.
    meta = mapping_at(test, "metadata")
    for key, value in meta.items():
        if key not in row and key not in ("id", "run") and isinstance(value, (str, int, float, bool)):
            row[key] = str(value) if isinstance(value, str) else value
    return row


def _content(test: dict[str, Any], result: dict[str, Any]) -> str | None:
    """The fingerprint of a test's content, what pairing compares across files: its vars and its assertions'
    types and values (what it asks and what counts as right); None for a test with neither."""
    variables = test.get("vars", result.get("vars"))
    variables = variables if isinstance(variables, dict) else {}
    asserts = list_at(test, "assert")
    checks = [[a.get("type"), a.get("value")] for a in asserts if isinstance(a, dict)]
    return content_fingerprint(variables, checks) if variables or checks else None


def _success(path: Path, number: int, value: Any) -> float:
    """promptfoo writes ``success`` as a JSON boolean; a string "false" is not a pass (issue 28, item 4)."""
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return float(value.strip().lower() == "true")
    if isinstance(value, (int, float)) and value in (0, 1):
        return float(value)
    raise InputError(f"{path}: result {number}: 'success' is {json.dumps(value)[:40]}, not true or false; "
                     "promptfoo writes a boolean there: was the file edited?")


def _order(result: dict[str, Any], number: int) -> int:
    # --repeat copies a test under a new testIdx: its runs are numbered in testIdx order, else in file order.
    index = result.get("testIdx")
    return index if isinstance(index, int) else number


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


def combine(frames: list[pd.DataFrame]) -> None:
    """A file of one run beside a ``--repeat`` file: the single run's results are its run 1 (issue 31 item 7), so
    both compare on their run axis instead of leaving the single run's rows without a run."""
    if any("run" in f.columns for f in frames):
        for frame in frames:
            if "run" not in frame.columns:
                frame["run"] = pd.Series(1, index=frame.index, dtype="int64")
