"""A harness record's nested fields read as the shape they should have: a mapping or a list, else empty.

Harness files are JSON whose optional parts may be missing, null or of another shape; the adapters read each
such part through these, so that the type checker knows what they hold and a malformed part reads as absent."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def mapping_at(record: Mapping[str, Any], key: str) -> dict[str, Any]:
    """``record[key]`` when it is a JSON object, else an empty one."""
    value = record.get(key)
    return value if isinstance(value, dict) else {}


def list_at(record: Mapping[str, Any], key: str) -> list[Any]:
    """``record[key]`` when it is a JSON array, else an empty one."""
    value = record.get(key)
    return value if isinstance(value, list) else []
