"""The store read as the tidy table and its holes: :mod:`releasegate.load.store_table` (the gate reads stores
too, and the load stage imports nothing of run/)."""

from __future__ import annotations

from releasegate.load.store_table import Hole, StoreTable, keep_columns, read_store

__all__ = ["Hole", "StoreTable", "keep_columns", "read_store"]
