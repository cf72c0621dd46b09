"""The files of an lm-evaluation-harness run around the samples: the ``samples_*.jsonl`` records (or the JSON
array lm-eval 0.4.0/0.4.1 wrote) and the ``results*.json`` beside them (the model, the version, the tasks'
configs). Split from :mod:`.lm_eval`, which maps the records onto the tidy table.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from releasegate.errors import InputError
from releasegate.load.adapters.fields import SURROGATE_ESCAPE, mapping_at, refuse_lone_surrogates


def old_task_name(path: Path) -> str:
    """The task of a file not named samples_<task>_<date>: the longest results task that ends the name."""
    stem = path.stem.removeprefix("samples_")
    summary = _read_results(path.with_name("results.json")) if path.with_name("results.json").is_file() else {}
    tasks = mapping_at(summary, "results")
    ends = [t for t in tasks if stem == t or stem.endswith("_" + t)]
    return max(ends, key=len) if ends else stem


def read_summary(path: Path, date: str | None) -> dict[str, Any]:
    """The results*.json beside the samples (the one of the same date, else the only one), or {}."""
    candidates = [path.with_name(f"results_{date}.json")] if date else []
    if not (candidates and candidates[0].is_file()):
        candidates = sorted(path.parent.glob("results_*.json")) or sorted(path.parent.glob("results.json"))
    return _read_results(candidates[0]) if len(candidates) == 1 else {}


def task_config(summary: dict[str, Any], task: str) -> dict[str, Any]:
    configs = mapping_at(summary, "configs")
    config = configs.get(task)
    return config if isinstance(config, dict) else {}


def harness_version(path: Path, date: str | None) -> str | None:
    """lm_eval_version from the results file beside the samples (written since 0.4.3; None before)."""
    for candidate in ([path.with_name(f"results_{date}.json")] if date else []) + [path.with_name("results.json")]:
        if candidate.is_file():
            version = _read_results(candidate).get("lm_eval_version")
            return str(version) if version else None
    return None


def _read_results(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}


def read_records(path: Path) -> Iterator[dict[str, Any]]:
    try:
        handle = path.open("r", encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None
    with handle:
        try:
            start = handle.read(1 << 12).lstrip("\ufeff \t\r\n")
            handle.seek(0)
            if start.startswith("["):  # lm-eval 0.4.0/0.4.1: one pretty-printed JSON array
                yield from _array_records(path, handle.read())
                return
            for number, line in enumerate(handle, 1):
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except RecursionError:
                    raise InputError(f"{path}: line {number} is nested too deeply to be an lm-eval record") from None
                except json.JSONDecodeError as exc:
                    raise InputError(f"{path}: line {number} is not valid JSON ({exc.msg}); an lm-eval "
                                     "samples_*.jsonl file was expected") from None
                if not isinstance(record, dict) or "doc_id" not in record:
                    raise InputError(f"{path}: line {number} has no 'doc_id'; an lm-eval samples_*.jsonl file "
                                     "(written with --log_samples) was expected")
                if SURROGATE_ESCAPE.search(line):
                    refuse_lone_surrogates(path, f"line {number}", record)
                yield record
        except UnicodeDecodeError:
            raise InputError(f"{path}: not UTF-8 text; an lm-eval samples_*.jsonl file was expected") from None


def _array_records(path: Path, text: str) -> Iterator[dict[str, Any]]:
    try:
        records = json.loads(text)
    except RecursionError:
        raise InputError(f"{path}: nested too deeply to be an lm-eval samples file") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}: not valid JSON ({exc.msg} at line {exc.lineno}); an lm-eval samples file "
                         "was expected") from None
    for number, record in enumerate(records if isinstance(records, list) else [None], 1):
        if not isinstance(record, dict) or "doc_id" not in record:
            raise InputError(f"{path}: record {number} has no 'doc_id'; an lm-eval samples file was expected")
        yield record


def model_name(path: Path, date: str | None) -> str:
    """The model named by the results_*.json beside the samples file (same date suffix when there is one)."""
    candidates = [path.with_name(f"results_{date}.json")] if date else []
    if not (candidates and candidates[0].is_file()):
        candidates = sorted(path.parent.glob("results_*.json")) or sorted(path.parent.glob("results.json"))
    if len(candidates) != 1:
        found = "none" if not candidates else f"{len(candidates)} and none with the samples' date"
        raise InputError(f"{path}: cannot tell the model: results_*.json beside it: {found}; "
                         "name the release (NAME=path)")
    try:
        results = json.loads(candidates[0].read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise InputError(f"{candidates[0]}: unreadable lm-eval results file ({type(exc).__name__}: {exc})") from None
    config = results.get("config") if isinstance(results, dict) else None
    config = config if isinstance(config, dict) else {}
    name = results.get("model_name") if isinstance(results, dict) else None
    args = config.get("model_args")
    if not name and isinstance(args, str):
        args = dict(part.split("=", 1) for part in args.split(",") if "=" in part)
    if not name and isinstance(args, dict):
        name = next((args[k] for k in ("pretrained", "model", "engine", "path") if args.get(k)), None)
    name = name or config.get("model")
    if not name:
        raise InputError(f"{candidates[0]}: names no model (model_name, config.model_args); name the release "
                         "(NAME=path)")
    return str(name)
