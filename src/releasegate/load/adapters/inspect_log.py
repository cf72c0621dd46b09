"""Reading an Inspect AI log file: the ``.eval`` zip (deflate or zstd members, decompressed within a budget) or
a ``.json`` EvalLog, into its header and its samples cut down to what the adapter reads (:func:`_slim`).

Split from :mod:`.inspect_ai`, which maps the samples onto the tidy table.
"""

from __future__ import annotations

import io
import json
import re
import struct
import zipfile
import zlib
from pathlib import Path
from typing import Any

from releasegate.errors import InputError
from releasegate.load.adapters.fields import list_at, mapping_at
from releasegate.load.adapters.bounded_unzip import Budget, read_chunks, read_deflated
from releasegate.load.fingerprint import TEXT_KIND, content_fingerprint, text_fingerprint
from releasegate.text import clip as _clip

ZSTD_METHOD = 93  # APPNOTE 4.4.5; what Inspect writes since April 2026, unreadable by Python < 3.14
_SAMPLE_MEMBER = re.compile(r"^samples/[^/]+\.json$")  # samples/{id}_epoch_{n}.json
_LOCAL_HEADER = struct.Struct("<IHHHHHIIIHH")
NAN = float("nan")


def _slim(sample: dict[str, Any], model: str) -> dict[str, Any]:
    """What the reader uses of one sample, with its texts resolved and clipped: the parsed sample (its messages,
    events and attachments, up to megabytes each) is dropped as soon as it is read, so memory follows the number
    of samples, not the size of the log (issue 28, item 13)."""
    attachments = mapping_at(sample, "attachments")
    scores = sample.get("scores")
    error = sample.get("error")
    metadata = mapping_at(sample, "metadata")
    own, others = _tokens(sample, model)
    return {
        "id": sample.get("id"), "epoch": sample.get("epoch"),
        "scores": {name: {"value": score.get("value") if isinstance(score, dict) else score}
                   for name, score in scores.items()} if isinstance(scores, dict) else None,
        "metadata": {k: v if isinstance(v, (int, float, bool)) or v is None else _clip(str(v))
                     for k, v in metadata.items()},
        "error": ({"message": _clip(str(error.get("message")))} if isinstance(error, dict) else _clip(str(error)))
        if error else None,
        "total_time": sample.get("total_time"), "working_time": sample.get("working_time"),
        "_tokens": own, "_other_tokens": others,
        "input": _clip(_text(sample.get("input"), attachments)),
        "target": _clip(_text(sample.get("target"), attachments, sep=" | ")),
        "output": {"completion": _clip(_output_text(sample.get("output"), attachments))},
        "_content": _content(sample, attachments),
        "_content_kind": _content_kind(sample),
    }


def _content(sample: dict[str, Any], attachments: dict[str, Any]) -> str | None:
    """The fingerprint of the sample's content, what pairing compares across logs: its whole input (text, or each
    message's role, content and tool calls) and target, and its choices when it has any; None when the sample
    holds neither input nor target. Message ids and sources are left out: Inspect draws them afresh each run."""
    given, target = sample.get("input"), sample.get("target")
    if given is None and target is None:
        return None
    choices = sample.get("choices")
    if _content_kind(sample) == TEXT_KIND:
        return text_fingerprint(_text(given, attachments), _text(target, attachments))
    parts = [_plain_content(given, attachments), _plain_content(target, attachments)]
    return content_fingerprint(*parts, *([_plain_content(choices, attachments)] if choices else []))


def _content_kind(sample: dict[str, Any]) -> str:
    """``TEXT_KIND`` for a sample that is two plain texts (a string input, a string target, no choices): what a
    tidy file's input and target columns can say of it; else "inspect" (chat messages, several targets, choices:
    no tidy column holds them as the log does, so a tidy file's case is paired with it by id only)."""
    given, target = sample.get("input"), sample.get("target")
    plain = isinstance(given, str) and (target is None or isinstance(target, str)) and not sample.get("choices")
    return TEXT_KIND if plain else "inspect"


def _plain_content(value: Any, attachments: dict[str, Any]) -> Any:
    """A sample's input, target or choices as plain JSON with attachments resolved and per-run fields dropped."""
    if isinstance(value, str):
        return _text(value, attachments)
    if isinstance(value, list):
        return [_plain_content(v, attachments) for v in value]
    if not isinstance(value, dict):
        return value
    if "role" in value:  # a chat message
        message = {"role": value.get("role"), "content": _plain_content(value.get("content"), attachments)}
        calls = value.get("tool_calls")
        if isinstance(calls, list) and calls:
            message["tool_calls"] = [[c.get("function"), _plain_content(c.get("arguments"), attachments)]
                                     for c in calls if isinstance(c, dict)]
        return message
    kind = value.get("type")
    if kind == "text":
        return _text(value.get("text"), attachments)
    if isinstance(kind, str) and kind in value:  # an image, audio or video part: its reference or data
        return {kind: _plain_content(value[kind], attachments)}
    return {k: _plain_content(v, attachments) for k, v in value.items() if k not in ("id", "internal", "source")}


def _load_log(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    try:
        with path.open("rb") as handle:
            head = handle.read(2)
            data = b"" if head == b"PK" else head + handle.read()
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None
    if head == b"PK":
        return _load_eval_zip(path)
    log = _parse_json(path, data, "file")
    if not isinstance(log, dict) or not isinstance(log.get("eval"), dict):
        raise InputError(f"{path}: not an Inspect log: expected a .eval zip or a JSON EvalLog with 'eval' and "
                         "'samples' keys")
    samples = log.get("samples")
    if not isinstance(samples, list) or not samples:
        raise InputError(f"{path}: the Inspect log holds no samples; per-sample results are needed "
                         "(run without --no-log-samples)")
    if not all(isinstance(s, dict) for s in samples):
        raise InputError(f"{path}: a sample is not a JSON object: not an Inspect log")
    return log, [_slim(s, _model(log)) for s in samples]


def read_header(path: Path) -> dict[str, Any]:
    """The log's header alone (header.json of a .eval, the log without samples of a small .json), {} when it has
    none; for choosing among the logs of a directory (task, task_id, status, created)."""
    if path.suffix.lower() != ".eval":
        try:  # a JSON log of more than 32 MB is not read twice: it keeps its place without grouping
            log = json.loads(path.read_bytes()) if path.stat().st_size <= 32 << 20 else None
        except (OSError, ValueError, RecursionError):
            return {}
        return {k: v for k, v in log.items() if k != "samples"} if isinstance(log, dict) else {}
    try:
        with zipfile.ZipFile(path) as archive:
            if "header.json" not in archive.namelist():
                return {}
            budget = Budget()
            budget.check_declared(path, [archive.getinfo("header.json")])
            header = _member_json(path, archive, "header.json", budget)
    except (zipfile.BadZipFile, OSError):
        return {}
    return header if isinstance(header, dict) else {}


def _load_eval_zip(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise InputError(f"{path}: not a readable .eval log: a zip file was expected ({exc})") from None
    with archive:
        names = set(archive.namelist())
        members = sorted(n for n in names if _SAMPLE_MEMBER.match(n))
        budget = Budget()
        budget.check_declared(path, [archive.getinfo(n) for n in ["header.json", "reductions.json", *members]
                                     if n in names])
        if "header.json" in names:
            header = _member_json(path, archive, "header.json", budget)
        elif "_journal/start.json" in names:
            raise InputError(f"{path}: the Inspect log has no header.json: the eval did not finish; "
                             "a finished .eval log was expected")
        else:
            raise InputError(f"{path}: zip without header.json: not an Inspect .eval log")
        if not isinstance(header, dict):
            raise InputError(f"{path}: header.json is not a JSON object: not an Inspect .eval log")
        if not members:
            raise InputError(f"{path}: the Inspect log holds no samples (no samples/*.json members)")
        samples = []
        for name in members:  # each sample is cut down to what is read as soon as it is parsed
            sample = _member_json(path, archive, name, budget)
            if not isinstance(sample, dict):
                raise InputError(f"{path}: a samples/*.json member is not a JSON object")
            samples.append(_slim(sample, _model(header)))
        if "reductions.json" in names and "reductions" not in header:
            header = {**header, "reductions": _member_json(path, archive, "reductions.json", budget)}
    return header, samples


def _model(header: dict[str, Any]) -> str:
    spec = mapping_at(header, "eval")
    return str(spec.get("model") or "")


def _member_json(path: Path, archive: zipfile.ZipFile, name: str, budget: Budget) -> Any:
    info = archive.getinfo(name)
    if info.compress_type == ZSTD_METHOD:
        data = _read_zstd_member(path, info, budget)
    else:
        data = read_deflated(path, archive, info, budget)
    return _parse_json(path, data, f"member {name}")


def _read_zstd_member(path: Path, info: zipfile.ZipInfo, budget: Budget) -> bytes:
    """Read the raw bytes of a zstd member and decompress them (Python 3.11's zipfile refuses method 93)."""
    import zstandard  # imported here: only zstd logs need it

    try:
        with path.open("rb") as handle:
            handle.seek(info.header_offset)
            fields = _LOCAL_HEADER.unpack(handle.read(_LOCAL_HEADER.size))
            if fields[0] != 0x04034B50:
                raise ValueError("bad local header signature")
            if fields[2] & 0x1:
                raise ValueError("encrypted members are not supported")
            handle.seek(fields[9] + fields[10], io.SEEK_CUR)  # skip file name and extra field
            raw = handle.read(info.compress_size)
        reader = zstandard.ZstdDecompressor().stream_reader(io.BytesIO(raw), read_across_frames=True)
        data = read_chunks(path, info, reader, budget)
    except (struct.error, ValueError, OSError, zstandard.ZstdError) as exc:
        raise InputError(f"{path}: zstd member {info.filename} is corrupt ({exc})") from None
    if len(data) != info.file_size or zlib.crc32(data) != info.CRC:
        raise InputError(f"{path}: zstd member {info.filename} is corrupt (size or CRC-32 mismatch)")
    return data


def _parse_json(path: Path, data: bytes, what: str) -> Any:
    try:
        return json.loads(data)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: {what} is not valid JSON ({exc}); an Inspect log was expected") from None
    except RecursionError:
        raise InputError(f"{path}: {what} is nested too deeply to be an Inspect log") from None


def _tokens(sample: dict[str, Any], model: str) -> tuple[tuple[float, float], dict[str, tuple[float, float]]]:
    """The release's own (input, output) tokens and every other model's, kept apart: a grader's tokens are the
    grading's cost, not the release's. The release's are its model's entry of model_usage (the only entry when
    there is one; the output's usage when model_usage is empty), NaN when several models used it and none is
    the release's."""
    usage = mapping_at(sample, "model_usage")
    usage = {str(name): counts for name, counts in usage.items() if isinstance(counts, dict)}
    if not usage and isinstance(sample.get("output"), dict) and isinstance(sample["output"].get("usage"), dict):
        usage = {model: sample["output"]["usage"]}
    own = model if model in usage else next(iter(usage)) if len(usage) == 1 else None
    others = {name: _counts(counts) for name, counts in usage.items() if name != own}
    return (_counts(usage[own]) if own is not None else (NAN, NAN)), others


def _counts(usage: dict[str, Any]) -> tuple[float, float]:
    def number(key: str) -> float:
        value = usage.get(key)
        return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else NAN

    return number("input_tokens"), number("output_tokens")


def _text(value: Any, attachments: dict[str, Any], sep: str = "\n") -> str | None:
    """Plain text of a string, chat message, content part, or a list of them (image parts are skipped)."""
    if value is None or isinstance(value, str):
        # .eval samples move long strings into "attachments", leaving "attachment://<hash>" behind.
        is_ref = isinstance(value, str) and value.startswith("attachment://")
        return str(attachments.get(value[len("attachment://"):], value)) if is_ref else value
    if isinstance(value, dict):
        return _text(value.get("content", value.get("text") if value.get("type") == "text" else None), attachments)
    if isinstance(value, list):
        return sep.join(t for t in (_text(v, attachments) for v in value) if t)
    return str(value)


def _output_text(output: Any, attachments: dict[str, Any]) -> str | None:
    if not isinstance(output, dict):
        return None
    choices = list_at(output, "choices")
    first = choices[0] if choices and isinstance(choices[0], dict) else {}
    return _text(output.get("completion") or first.get("message"), attachments)
