"""Tell a file's format from its content: the first record's keys, matched against each adapter's sniff.

``detect_format`` reads at most the first 64 KiB (plus the rest of the first line of a JSON-lines file), so a
large log is read once, by its adapter. No pandas here: the CLI lists the formats without it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path

from releasegate.errors import FileError

SNIFF_BYTES = 64 * 1024


Sniff = Callable[[set[str], dict[str, set[str]]], bool]


def detect_format(path: Path, sniffs: Iterable[tuple[str, Sniff]], zip_format: str,
                  table_sniffs: Iterable[tuple[str, Callable[[set[str]], bool]]] = ()) -> str:
    """The name of the first adapter whose sniff accepts the file's first record, or "tidy".

    ``sniffs`` are (name, sniff) in the registry's order: each gets the first JSON object's top-level keys and
    the keys one level below (by top-level key). A zip with header.json (or any ``.eval`` file) is
    ``zip_format``. Anything else is "tidy" (the tidy reader names the problem).
    """
    path = Path(path)
    if path.suffix.lower() in (".csv", ".tsv", ".parquet"):
        columns = _table_columns(path)
        return next((name for name, sniff in table_sniffs if sniff(columns)), "tidy")
    try:
        with path.open("rb") as handle:
            head = handle.read(SNIFF_BYTES)
            if path.suffix.lower() in (".jsonl", ".ndjson") and b"\n" not in head:
                head += handle.readline()  # finish the first record, however long
    except OSError as exc:
        raise FileError(f"cannot read {path}: {exc.strerror or exc}") from None
    if head.startswith((b"PK\x03\x04", b"PK\x05\x06")):
        return zip_format if _is_inspect_zip(path) else "tidy"
    text = head.decode("utf-8", errors="replace").lstrip("\ufeff \t\r\n")
    if text.startswith("[") and path.suffix.lower() == ".jsonl":
        text = text[1:].lstrip()  # lm-eval 0.4.0/0.4.1 wrote <model>_<task>.jsonl as one pretty-printed array
        if not text.startswith("{"):
            return "tidy"
        top, nested = _object_keys(text)
        keys, below = set(top), {k: set(v) for k, v in nested.items()}
        return next((name for name, sniff in sniffs if sniff(keys, below)), "tidy")
    if not text.startswith("{"):
        return "tidy"
    first_line = text.split("\n", 1)[0]
    try:
        record = json.loads(first_line)  # a JSON-lines record, or a one-line JSON document
        top, nested = list(record) if isinstance(record, dict) else [], {}
        for key, value in (record.items() if isinstance(record, dict) else ()):
            if isinstance(value, dict):  # the keys one level below: {"results": {...}}, {"spec": {...}}
                nested[key] = list(value)
    except (json.JSONDecodeError, RecursionError):  # a deeply nested line is not a harness record
        top, nested = _object_keys(text)
    keys, below = set(top), {k: set(v) for k, v in nested.items()}
    return next((name for name, sniff in sniffs if sniff(keys, below)), "tidy")


def _table_columns(path: Path) -> set[str]:
    """The column names of a CSV/TSV header or a Parquet schema; empty when they cannot be read (the tidy reader
    then names the problem)."""
    try:
        if path.suffix.lower() == ".parquet":
            import pyarrow.parquet  # only for a Parquet file, which needs pyarrow anyway

            return set(pyarrow.parquet.read_schema(path).names)
        import csv

        with path.open(encoding="utf-8-sig", newline="") as handle:
            line = handle.readline(SNIFF_BYTES)
        return {c.strip() for c in next(csv.reader([line], delimiter="\t" if path.suffix.lower() == ".tsv" else ","),
                                         [])}
    except Exception:  # noqa: BLE001 - an unreadable table is the tidy reader's to name
        return set()


def _is_inspect_zip(path: Path) -> bool:
    if path.suffix.lower() == ".eval":
        return True  # the Inspect reader gives the precise error if it is not a log
    import zipfile  # only for a file that starts as a zip archive

    try:
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
    except (zipfile.BadZipFile, OSError):
        return False
    return "header.json" in names or "_journal/start.json" in names


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
