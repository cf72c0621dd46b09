"""A run store directory (``releasegate run``) read as a results input of ``report`` and ``check``.

Fail closed: while any expected cell is missing, errored, stale or unscored the gate refuses, unless the
user drops those cases (``--drop-holes``); the dropped cases are then listed in the report's notes.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from releasegate.errors import InputError
from releasegate.model import InputFile

# What the run recorded per answer but the gate does not compare (one output per release and run, not per case).
NOT_FOR_THE_GATE = ("error", "output", "model", "fingerprint")
LISTED = 10


def read_store_input(directory: Path, release: str | None, drop_holes: bool) -> tuple[pd.DataFrame, InputFile,
                                                                                        tuple[str, ...]]:
    from releasegate.load.sources import sha256_of
    from releasegate.load.store_table import db_path, read_store

    if release is not None:
        raise InputError(f"{directory}: a run store names its own releases; give it without NAME=")
    result = read_store(directory)
    table = result.table
    notes: list[str] = []
    if result.holes:
        named = "; ".join(h.describe() for h in result.holes[:3])
        more = f" and {len(result.holes) - 3} more" if len(result.holes) > 3 else ""
        if not drop_holes:
            raise InputError(f"{directory}: {len(result.holes)} cells missing or errored: run again to resume "
                             f"({named}{more}); or pass --drop-holes to compare without those cases")
        dropped = sorted({h.case_id for h in result.holes})
        table = table[~table["case_id"].isin(dropped)]
        if table.empty:
            raise InputError(f"{directory}: every case has a missing or errored cell; nothing left to compare")
        shown = ", ".join(dropped[:LISTED]) + (f" and {len(dropped) - LISTED} more" if len(dropped) > LISTED else "")
        notes.append(f"{len(dropped)} case(s) dropped because {len(result.holes)} of their cells are missing or "
                     f"errored in the run store (--drop-holes): {shown}.")
    for name, rows in table.groupby("release", sort=False):
        models = sorted({str(m) for m in rows["model"].dropna()})
        prints = sorted({str(f) for f in rows["fingerprint"].dropna()})
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
    return table.reset_index(drop=True), InputFile(str(directory), sha256_of(path), int(table.shape[0]),
                                                   "run-store", None), tuple(notes)
