"""What a run store recorded of itself, checked before the gate reads it: a store that does not hold what it
recorded is refused, never read as complete.

Completeness is the expected grid (the plan's releases x the cases x the runs) against the stored cells: a
cell with no row is a hole. The releases and runs are in the plan text; the cases are a table of their own,
so a deleted case row made the grid smaller and took the case's cells out of the gate unseen (and a gap in
the positions placed other cases' cells on the wrong rows). The plan therefore records the cases it was made
of: their number and a sha256 of every case's id, position, input hash and fields in order. A store whose
cases are not those is refused with what changed; one written before the record was kept is checked for its
positions only (0 to n-1, each once), so no cell is ever placed on another's row.

What this can and cannot see. A deleted cell row is a missing cell (a hole, named, as any). A deleted score
row leaves its cells unscored (holes). A deleted, added or edited case row breaks the record. A deleted plan
is refused. A changed answer text leaves its output hash as it was, so its score and the verdict stand: the
gate reads the score, not the text. An edited score value, or a cell's figures edited, is seen by nothing
but a settled record's table fingerprint (load/settled.py): the store keeps no digest of its scores, and this
is no signature scheme; whoever can write the store can rewrite any record of it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from releasegate.errors import StoreError

CASES_KEY = "cases"  # the plan's record of its cases
CASES_QUERY = "SELECT case_id, fields, position, input_hash FROM cases ORDER BY position, case_id"
PLANNED_CASES = "SELECT case_id, fields, position, input_hash FROM temp.plan_cases ORDER BY position"
CASE_ID, FIELDS, POSITION, INPUT_HASH = range(4)


def cases_record(rows: Sequence[tuple[Any, ...]]) -> dict[str, Any]:
    """The plan's record of its cases (rows as :data:`CASES_QUERY` gives them, in position order)."""
    return {"count": len(rows), "sha256": _digest(rows)}


def checked_cases(directory: Path, plan: dict[str, Any], rows: list[tuple[Any, ...]]) -> list[tuple[str, str]]:
    """The store's cases as (case_id, fields), in the grid's order, once they are the ones its plan was made of;
    else the one line that says what differs (a :class:`StoreError`)."""
    where = f"{directory}: the run store's cases table"
    advice = ("it cannot be read as complete; run `releasegate run CONFIG` again to record the cases anew (its "
              "cells are kept and the missing ones called)")
    record = plan.get(CASES_KEY)
    if record is not None and not isinstance(record, dict):
        raise StoreError(f"{where} cannot be checked: the plan's record of its cases is unreadable ({record!r:.40}); "
                         f"{advice}")
    if isinstance(record, dict):
        count = record.get("count")
        if count != len(rows):
            raise StoreError(f"{where} holds {len(rows):,} cases where its plan recorded {count!r:.20}: "
                             f"{_difference(len(rows), count)}; {advice}")
        if record.get("sha256") != _digest(rows):
            raise StoreError(f"{where} holds {len(rows):,} cases as its plan recorded, but not the same ones (a case's "
                             f"id, position, input or fields edited, or the record, since the run); {advice}")
    for expected, row in enumerate(rows):
        if row[POSITION] != expected:
            raise StoreError(f"{where} places case {row[CASE_ID]!r} at position {row[POSITION]!r} where position "
                             f"{expected:,} is expected (the positions of {len(rows):,} cases run from 0 to "
                             f"{len(rows) - 1:,}: a case row deleted or edited since the run); {advice}")
    return [(row[CASE_ID], row[FIELDS]) for row in rows]


def checked_meta(directory: Path, meta_text: dict[str, Any]) -> dict[str, Any]:
    """The store's meta records read as JSON, its plan (when it has one) of the shape the gate reads: releases
    (each a name and a system hash), a whole number of runs and a metric (name, hash, value); else the one line
    that says what is unreadable (a :class:`StoreError`)."""
    meta: dict[str, Any] = {}
    for key, text in meta_text.items():
        try:
            if not isinstance(text, str):
                raise ValueError(text)
            meta[key] = json.loads(text)
        except (ValueError, RecursionError):
            raise StoreError(f"{directory}: the run store's {key!r} record is not JSON ({str(text)!r:.40}); edited "
                             "or damaged since the run: run `releasegate run CONFIG` again into a new store") from None
    if not isinstance(meta.get("sweep_ranking", []), list):
        raise StoreError(f"{directory}: the run store's 'sweep_ranking' record is not a list "
                         f"({str(meta['sweep_ranking'])!r:.40}); edited or damaged since the run: run `releasegate "
                         "run CONFIG` again into a new store")
    plan = meta.get("plan")
    releases = plan.get("releases") if isinstance(plan, dict) else None
    metric = plan.get("metric") if isinstance(plan, dict) else None
    shaped = plan is None or (
        isinstance(releases, list) and bool(releases)
        and all(isinstance(r, dict) and isinstance(r.get("name"), str) and isinstance(r.get("system_hash"), str)
                for r in releases)
        and type(plan.get("runs")) is int and plan["runs"] >= 1
        and isinstance(metric, dict) and all(isinstance(metric.get(k), str) for k in ("name", "hash", "value")))
    if not shaped:
        raise StoreError(f"{directory}: the run store's plan is not one a run writes (releases, runs and metric "
                         f"expected; found {str(plan)!r:.60}); edited or damaged since the run: run `releasegate run "
                         "CONFIG` again into a new store")
    return meta


def _difference(held: int, recorded: Any) -> str:
    """How the cases held differ in number from the plan's record: the words for the refusal."""
    if not isinstance(recorded, int) or isinstance(recorded, bool):
        return "the record is no number of cases (edited since the run)"
    if held < recorded:
        return f"{recorded - held:,} fewer (case rows deleted, or the record edited, since the run)"
    return f"{held - recorded:,} more (case rows added, or the record edited, since the run)"


def _digest(rows: Sequence[tuple[Any, ...]]) -> str:
    """sha256 of the cases' id (after its length, so that no id can run into the next part), position, input
    hash and fields, a row's parts apart (unit separator, which a JSON text and a hash never hold) and the rows
    apart (record separator)."""
    text = "\x1e".join(f"{len(str(row[CASE_ID]))}:{row[CASE_ID]}\x1f{row[POSITION]}\x1f{row[INPUT_HASH]}\x1f{row[FIELDS]}"
                       for row in rows)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
