"""Stage 1: files (or in-memory frames) -> one tidy table with canonical columns, and the provenance of every
file. :mod:`.results` reads files (tidy tables through :mod:`.tidy`, harness logs through the registry in
:mod:`.adapters`), :mod:`.frame` takes pandas DataFrames, :mod:`.cases` joins a case table.

The names below are imported on first use, so that importing the registry (the CLI does, for its options)
does not import pandas.
"""

from __future__ import annotations

from typing import Any

_WHERE = {
    "Source": "sources", "parse_source": "sources", "default_title": "sources",
    "AdapterOptions": "results", "LoadedResults": "results", "load_results": "results",
    "require_column": "columns", "load_frame": "frame",
}
__all__ = [*_WHERE]  # noqa: PLE0604


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        import importlib

        return getattr(importlib.import_module(f"releasegate.load.{_WHERE[name]}"), name)
    raise AttributeError(f"module 'releasegate.load' has no attribute {name!r}")
