"""A run store directory (``releasegate run``) read as a results input of ``report`` and ``check``.

Fail closed: while any expected cell is missing, errored, stale or unscored the gate refuses, unless the
user passes ``--drop-holes``. Then the cells a system failed to answer (status error or permanent, after
their attempts) stay in the table as the error state (an ``error`` text, as the harness adapters write
it): they reach the errored view and the error-rate rule, and the notes say, per release, how many errored.
Only the other holes (never called, stale, unscored, a judge's unreadable reply: no measurement, not the
system's failure) drop their cases from every release, listed in the notes. A candidate that errored on 31%
of the cases is never judged silently on the rest.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from releasegate.errors import StoreError
from releasegate.load.settled import SettledRecord, record_of, table_fingerprint
from releasegate.model import InputExclusion, InputFile

# What the run recorded per answer but the gate does not compare.
NOT_FOR_THE_GATE = ("output", "model", "fingerprint")
LISTED = 10


@dataclass(frozen=True)
class StoreInput:
    """A store read for the gate: its table, its provenance record, its notes, and the baseline a sweep's
    grid recorded (used when neither ``--baseline`` nor the policy names one)."""

    table: pd.DataFrame
    record: InputFile
    notes: tuple[str, ...]
    baseline: str | None = None
    settled: SettledRecord | None = None  # what run --settle decided (load/settled.py), when it did
    excluded: tuple[InputExclusion, ...] = ()  # the cases --drop-holes dropped, with their count


def read_store_input(directory: Path, release: str | None, drop_holes: bool) -> StoreInput:
    from releasegate.load.sources import sha256_of
    from releasegate.load.store_table import db_path, read_store

    if release is not None:
        raise StoreError(f"{directory}: a run store names its own releases; give it without NAME=")
    result = read_store(directory, texts=False)
    table = result.table
    settled = record_of(result.settled, str(directory))
    if settled is not None and settled.table != table_fingerprint(table):
        raise StoreError(f"{directory}: `releasegate run --settle` decided this store on other cells than it holds "
                         "now (a run changed it since); deciding them again would be a look the settle design did "
                         "not spend alpha on: run `releasegate run CONFIG --settle` to decide it anew")
    notes: list[str] = []
    excluded: tuple[InputExclusion, ...] = ()
    errored = [h for h in result.holes if h.errored]
    others = [h for h in result.holes if not h.errored]
    if result.holes:
        named = "; ".join(h.describe() for h in result.holes[:3])
        more = f" and {len(result.holes) - 3} more" if len(result.holes) > 3 else ""
        if not drop_holes:
            raise StoreError(f"{directory}: {len(result.holes)} cells missing or errored: run again to resume "
                             f"({named}{more}); or pass --drop-holes to compare without them (errored cells then "
                             "count as errors)")
        if errored:
            notes += _errored_notes(errored, table)
        if others:
            dropped = sorted({h.case_id for h in others})
            table = table[~table["case_id"].isin(dropped)]
            if table.empty:
                raise StoreError(f"{directory}: every case has a missing or unscored cell; nothing left to compare")
            shown = ", ".join(dropped[:LISTED]) + (f" and {len(dropped) - LISTED} more" if len(dropped) > LISTED else "")
            notes.append(f"{len(dropped)} case(s) dropped because {len(others)} of their cells are missing, stale "
                         f"or unscored in the run store (--drop-holes): {shown}.")
            excluded = (InputExclusion("holes_dropped", len(dropped), str(directory), tuple(dropped[:3])),)
    # Only the errored cells carry an error text into the gate; the other holes' cases are gone.
    errored_keys = {(h.release, h.case_id, h.run) for h in errored}
    if errored_keys:
        keys = list(zip(table["release"], table["case_id"], table["run"], strict=True))
        table = table.assign(error=[message if key in errored_keys else None
                                    for key, message in zip(keys, table["error"], strict=True)])
    else:
        table = table.drop(columns=["error"])
    for name, (models, prints) in result.models.items():
        if models:
            shown = ", ".join(prints[:3]) + (f" and {len(prints) - 3} more" if len(prints) > 3 else "")
            notes.append(f"{name}: answers recorded from model {', '.join(models)}"
                         + (f" (system fingerprint {shown})." if prints else "."))
    # A sweep: which candidate is best (Holm across candidates, apart from each one's own gate), as ranked by
    # the run that completed the store (releasegate.run.sweep); a store with holes has no ranking.
    if not result.holes:
        notes.extend(result.ranking)
    if table["run"].nunique() <= 1:
        table = table.drop(columns=["run"])
    table = table.drop(columns=[c for c in NOT_FOR_THE_GATE if c in table.columns])
    path = db_path(directory)
    metric = result.plan["metric"]
    judge = f"releasegate run judge metric {metric['name']}" if metric.get("kind") == "judge" else None
    record = InputFile(str(directory), sha256_of(path), int(table.shape[0]), "run-store", None, judge=judge)
    return StoreInput(table.reset_index(drop=True), record, tuple(notes), result.baseline, settled, excluded)


def _errored_notes(errored: list[Any], table: pd.DataFrame) -> list[str]:
    """Per release: how many of its cells errored, as a share, and that they are the error state."""
    counts = table.groupby("release", sort=False).size()
    by_release: dict[str, list[Any]] = {}
    for hole in errored:
        by_release.setdefault(hole.release, []).append(hole)
    notes = []
    for release, holes in by_release.items():
        total = int(counts.get(release, 0))
        cases = len({h.case_id for h in holes})
        share = f" ({len(holes) / total:.0%})" if total else ""
        kinds = sorted({h.kind or h.reason for h in holes})
        notes.append(f"{release}: {len(holes)} of its {total} cells{share} errored in the run store ({', '.join(kinds)}), "
                     f"on {cases} case(s); with --drop-holes they count as errors (the errored cases and the "
                     "error-rate rule), not as passes, failures or dropped cases.")
    return notes
