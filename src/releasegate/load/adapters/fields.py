"""A harness record's nested fields read as the shape they should have: a mapping or a list, else empty; and
its strings refused when one holds half a UTF-16 pair (tidy JSON files and harness records alike).

Harness files are JSON whose optional parts may be missing, null or of another shape; the adapters read each
such part through these, so that the type checker knows what they hold and a malformed part reads as absent."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from releasegate.errors import FileError


def mapping_at(record: Mapping[str, Any], key: str) -> dict[str, Any]:
    """``record[key]`` when it is a JSON object, else an empty one."""
    value = record.get(key)
    return value if isinstance(value, dict) else {}


def list_at(record: Mapping[str, Any], key: str) -> list[Any]:
    """``record[key]`` when it is a JSON array, else an empty one."""
    value = record.get(key)
    return value if isinstance(value, list) else []


def scalar_text(value: Any) -> str:
    """A JSON scalar as the text the file holds: ``true`` and ``false`` as JSON writes them (Python's ``str``
    gives ``True``, which the same value in a CSV file never reads as), anything else as ``str`` gives it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


# A \uD800-\uDFFF escape: half of a UTF-16 pair, which JSON reads into a string no UTF-8 text can hold.
SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def refuse_lone_surrogates(path: Path, where: str, value: object) -> None:
    """A string holding half a UTF-16 pair is refused here, not deep in the analysis where it is first encoded."""
    items = list(value.items()) if isinstance(value, dict) else list(enumerate(value)) if isinstance(value, list) else []
    for key, item in items:
        if isinstance(item, str) and not item.isascii():
            try:
                item.encode("utf-8")
            except UnicodeEncodeError as exc:
                raise FileError(f"{path}: {where}: {key!r} holds a lone UTF-16 surrogate "
                                f"({ascii(item[exc.start])[1:-1]}), not a character: write the character itself "
                                "or drop it") from None
        elif isinstance(item, (dict, list)):
            refuse_lone_surrogates(path, where, item)
