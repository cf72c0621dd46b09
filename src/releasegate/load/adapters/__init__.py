"""Harness adapters: tell a file's format from its content and read it into the tidy table.

``detect_format`` reads at most the first 64 KiB (plus the rest of the first line of a JSON-lines
file), so a large log is read once, by its adapter. ``read_adapter`` dispatches on the format.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import pandas as pd

from releasegate.errors import InputError

FORMATS = ("inspect", "lm-eval", "promptfoo", "tidy")
SNIFF_BYTES = 64 * 1024
_LM_EVAL_041 = frozenset({"doc_id", "doc", "arguments", "resps", "filtered_resps"})  # no doc_hash before 0.4.2
_OPTIONS = {  # the keyword options each reader accepts
    "inspect": ("release", "scorer", "category_field"),
    "lm-eval": ("release", "metric", "filter_name"),
    "promptfoo": ("release", "release_by"),
}


def detect_format(path: Path) -> str:
    """Return "inspect", "lm-eval", "promptfoo" or "tidy" from the file's content.

    A zip with header.json (or any ``.eval`` file) is an Inspect log; a JSON object with ``eval`` plus
    ``samples``/``results``/``status`` is an Inspect EvalLog; one with ``evalId`` or ``results.version`` +
    ``results.results`` is promptfoo; a JSON-lines file whose first record has ``doc_id`` and ``doc_hash``
    is lm-eval, one whose first record has ``success`` and ``testIdx``/``provider`` is promptfoo.
    Anything else is "tidy" (the tidy reader names the problem).
    """
    path = Path(path)
    try:
        with path.open("rb") as handle:
            head = handle.read(SNIFF_BYTES)
            if path.suffix.lower() in (".jsonl", ".ndjson") and b"\n" not in head:
                head += handle.readline()  # finish the first record, however long
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None
    if head.startswith((b"PK\x03\x04", b"PK\x05\x06")):
        return "inspect" if _is_inspect_zip(path) else "tidy"
    text = head.decode("utf-8", errors="replace").lstrip("\ufeff \t\r\n")
    if text.startswith("[") and path.suffix.lower() == ".jsonl":
        # lm-eval 0.4.0/0.4.1 wrote <model>_<task>.jsonl as one pretty-printed JSON array
        top, _ = _object_keys(text[1:].lstrip())
        return "lm-eval" if _LM_EVAL_041 <= set(top) else "tidy"
    if not text.startswith("{"):
        return "tidy"
    first_line = text.split("\n", 1)[0]
    try:
        record = json.loads(first_line)  # a JSON-lines record, or a one-line JSON document
        top, nested = list(record) if isinstance(record, dict) else [], {}
        if isinstance(record, dict) and isinstance(record.get("results"), dict):
            nested["results"] = list(record["results"])
    except (json.JSONDecodeError, RecursionError):  # a deeply nested line is not a harness record
        top, nested = _object_keys(text)
    return _classify(set(top), {k: set(v) for k, v in nested.items()})


def read_adapter(path: Path, fmt: str | None = None, **options: Any) -> pd.DataFrame:
    """Read a harness file with its adapter; ``options`` left as None are ignored.

    An option the format does not use (e.g. ``metric`` for an Inspect log) is an InputError rather
    than silently ignored, since the user expected it to change the result.
    """
    path = Path(path)
    fmt = fmt or detect_format(path)
    if fmt not in _OPTIONS:
        if fmt == "tidy":
            raise InputError(f"{path}: not an Inspect, lm-eval or promptfoo file; read it as a tidy table")
        raise InputError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")
    given = {key: value for key, value in options.items() if value is not None}
    unused = sorted(set(given) - set(_OPTIONS[fmt]))
    if unused:
        raise InputError(f"{path}: option(s) {', '.join(unused)} do not apply to {fmt} files "
                         f"(they take {', '.join(_OPTIONS[fmt])})")
    if fmt == "inspect":
        from releasegate.load.adapters.inspect_ai import read_inspect

        return read_inspect(path, **given)
    if fmt == "lm-eval":
        from releasegate.load.adapters.lm_eval import read_lm_eval

        return read_lm_eval(path, **given)
    from releasegate.load.adapters.promptfoo import read_promptfoo

    return read_promptfoo(path, **given)


def _is_inspect_zip(path: Path) -> bool:
    if path.suffix.lower() == ".eval":
        return True  # the Inspect reader gives the precise error if it is not a log
    try:
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
    except (zipfile.BadZipFile, OSError):
        return False
    return "header.json" in names or "_journal/start.json" in names


def _classify(top: set[str], nested: dict[str, set[str]]) -> str:
    if "eval" in top and top & {"samples", "results", "status", "plan"}:
        return "inspect"
    if "results" in top and ("evalId" in top or {"version", "results"} <= nested.get("results", set())):
        return "promptfoo"
    if {"doc_id", "doc_hash"} <= top or _LM_EVAL_041 <= top:
        return "lm-eval"
    if "success" in top and top & {"testIdx", "provider"}:
        return "promptfoo"
    return "tidy"


def _object_keys(text: str) -> tuple[list[str], dict[str, list[str]]]:
    """Keys of the first JSON object in ``text`` (which may be cut short), and the keys one level below.

    A small scanner instead of json.loads: the prefix of a large log is not valid JSON on its own.
    """
    top: list[str] = []
    nested: dict[str, list[str]] = {}
    stack: list[tuple[str, str | None]] = []  # (bracket, top-level key owning it)
    last_top: str | None = None
    i, n = 0, len(text)
    while i < n:
        char = text[i]
        if char == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            if j >= n:
                break
            k = j + 1
            while k < n and text[k] in " \t\r\n":
                k += 1
            if k < n and text[k] == ":" and stack and stack[-1][0] == "{":
                key = text[i + 1:j]
                if len(stack) == 1:
                    top.append(key)
                    last_top = key
                elif len(stack) == 2 and stack[-1][1] is not None:
                    nested.setdefault(stack[-1][1], []).append(key)
            i = j + 1
            continue
        if char in "{[":
            stack.append((char, last_top if len(stack) == 1 else (stack[-1][1] if stack else None)))
        elif char in "}]":
            if stack:
                stack.pop()
            if not stack:
                break
        i += 1
    return top, nested
