"""Read OpenAI evals records (``oaieval COMPLETION_FN EVAL --record_path run.jsonl``) into the tidy table.

A record file is JSON lines: a ``spec`` line (the completion fns, the eval's name, the run id), a
``final_report`` line (the eval's own figures, e.g. ``accuracy``), then one line per event. Match-style evals
(``evals.elsuite.basic.match``, ``includes``, ``fuzzy_match``, multiple choice) log a ``match`` event per sample:
``sample_id`` is the case, ``data.correct`` its pass or fail, ``data.expected`` / ``data.picked`` the target and
the answer. ``sample_id`` numbers the samples by their line in the samples file (``id_is_position``);
``content_hash`` is the fingerprint of the sample's prompt (its first ``sampling`` event) and ideal answer, missing
when the record holds no sampling event. A sample with several match events (several completions) has them as runs 1..N in event order. The
release is the completion fn (``spec.completion_fns``; ``NAME=path`` renames it). Other event types (sampling,
metrics) carry no per-sample pass/fail and are not read; a record without match events is refused.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pandas as pd

from releasegate.errors import InputError
from releasegate.load.adapters.fields import list_at, mapping_at
from releasegate.load.fingerprint import CONTENT_COLUMN, KIND_COLUMN, POSITION_COLUMN, TEXT_KIND, content_fingerprint, text_fingerprint
from releasegate.text import clip as _clip

# evals names each sample "<eval>.<split>.<n>" by its place in the samples file: an id that names another
# question as soon as the file changes.
_POSITION = re.compile(r"^.+\.[0-9]+$")
_EXPECTED = "an OpenAI evals record file (oaieval --record_path) was expected"


def read_openai_evals(path: Path, *, release: str | None = None) -> pd.DataFrame:
    """One row per match event: (release, case_id[, run], passed, input, target, output, content_hash,
    id_is_position)."""
    path = Path(path)
    spec, report, events = _load(path)
    functions = list_at(spec, "completion_fns")
    model = ",".join(str(f) for f in functions)
    if not (release or model):
        raise InputError(f"{path}: the record names no completion fn (spec.completion_fns); name the release "
                         "(NAME=path)")
    matches = [e for e in events if e.get("type") == "match"]
    if not matches:
        kinds = sorted({str(e.get("type")) for e in events}) or ["none"]
        raise InputError(f"{path}: the record has no match events (event types: {', '.join(kinds)}); releasegate "
                         "reads evals that log a pass or fail per sample (Match, Includes, FuzzyMatch, ...)")
    prompts = _prompts(events)
    rows = []
    for event in sorted(matches, key=lambda e: e.get("event_id") if isinstance(e.get("event_id"), int) else 0):
        data = mapping_at(event, "data")
        case = event.get("sample_id")
        if case in (None, ""):
            raise InputError(f"{path}: match event {event.get('event_id')} has no sample_id")
        correct = data.get("correct")
        if not isinstance(correct, bool):
            raise InputError(f"{path}: match event {event.get('event_id')} (sample {case}): 'correct' is "
                             f"{json.dumps(correct)[:40]}, not true or false")
        prompt = prompts.get(str(case))
        rows.append({"case_id": str(case), "passed": float(correct), "input": _clip(_prompt_text(prompt)),
                     "target": _clip(_text(data.get("expected"))),
                     "output": _clip(_text(data.get("picked", data.get("sampled")))),
                     # the sample's prompt and ideal answer; without the prompt the record holds too little of it
                     CONTENT_COLUMN: _content(prompt, data.get("expected")),
                     POSITION_COLUMN: bool(_POSITION.match(str(case))),
                     KIND_COLUMN: None if prompt is None else TEXT_KIND if _is_text(prompt, data.get("expected"))
                     else "evals"})
    frame = pd.DataFrame(rows)
    copies = frame.groupby("case_id", sort=False).cumcount() + 1
    if (copies > 1).any():
        frame.insert(1, "run", copies.astype("int64"))
    frame.insert(0, "release", release or model)
    for column in ("input", "target", "output"):
        if frame[column].isna().all():
            frame = frame.drop(columns=column)
    accuracy = report.get("accuracy")
    frame.attrs.update(task=str(spec.get("eval_name") or spec.get("base_eval") or ""), source_format="openai-evals",
                       harness="OpenAI evals" + (f" (final_report accuracy {accuracy:g})"
                                                 if isinstance(accuracy, (int, float)) else ""),
                       release_key="NAME=" if release else "spec.completion_fns")
    return frame


def _prompts(events: list[dict[str, Any]]) -> dict[str, Any]:
    """sample id -> the prompt of its first sampling event (``record_sampling``, which evals' completion fns
    call); samples without one are absent."""
    found: dict[str, Any] = {}
    for event in sorted(events, key=lambda e: e.get("event_id") if isinstance(e.get("event_id"), int) else 0):
        data = mapping_at(event, "data")
        if event.get("type") == "sampling" and data.get("prompt") is not None:
            found.setdefault(str(event.get("sample_id")), data["prompt"])
    return found


def _prompt_text(prompt: Any) -> str | None:
    """A prompt as text: a string as it is, chat messages as their contents, one a line."""
    if isinstance(prompt, list) and all(isinstance(m, dict) for m in prompt):
        return "\n".join(str(m.get("content")) for m in prompt if m.get("content") is not None)
    return _text(prompt)


def _text(value: Any) -> str | None:
    if value is None:
        return None
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _load(path: Path) -> tuple[dict[str, Any], dict[str, Any], list[dict[str, Any]]]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise InputError(f"{path}: not UTF-8 text; {_EXPECTED}") from None
    spec: dict[str, Any] = {}
    report: dict[str, Any] = {}
    events: list[dict[str, Any]] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"{path}: line {number} is not valid JSON ({exc.msg}); {_EXPECTED}") from None
        except RecursionError:
            raise InputError(f"{path}: line {number} is nested too deeply to be a record; {_EXPECTED}") from None
        if not isinstance(record, dict):
            raise InputError(f"{path}: line {number} is not a JSON object; {_EXPECTED}")
        if isinstance(record.get("spec"), dict):
            spec = record["spec"]
        elif isinstance(record.get("final_report"), dict):
            report = record["final_report"]
        elif "type" in record and "sample_id" in record:
            events.append(record)
    if not spec:
        raise InputError(f"{path}: no spec line; {_EXPECTED}")
    return spec, report, events


read = read_openai_evals


def combine(frames: list[pd.DataFrame]) -> None:
    """Records of different evals are not the same cases."""
    tasks = {f.attrs.get("task") for f in frames if f.attrs.get("task")}
    if len(tasks) > 1:
        raise InputError(f"the OpenAI evals records are of different evals ({', '.join(sorted(tasks))}); compare "
                         "records of one eval")


def _is_text(prompt: Any, expected: Any) -> bool:
    """A plain-text prompt and a plain-text ideal: what a tidy file's input and target columns can say."""
    return isinstance(prompt, str) and (expected is None or isinstance(expected, str))


def _content(prompt: Any, expected: Any) -> str | None:
    """The fingerprint of the sample's prompt and ideal answer; None without the prompt (too little of it)."""
    if prompt is None:
        return None
    return text_fingerprint(prompt, expected) if _is_text(prompt, expected) else content_fingerprint(prompt, expected)
