"""The labelling sheet of ``releasegate run --labelling-sheet FILE`` (issue 35 item 1): a random sample of the
cases with every release's answer side by side and an empty ``label`` column for a human to fill; ``--gold
FILE`` reads the filled sheet back (load/gold.py ignores the other columns).

One row per sampled case and release (and run, when there are several), the releases of one case on adjacent
rows, so the labeller compares the answers of one case together. The judge's verdict is not on the sheet: a
labeller who sees it anchors on it. The cases are drawn uniformly at random among those whose every cell
has an answer (the correction of the comparison is unbiased because the labelled cases are a random sample of
the compared ones, docs/judge.md); the same cases on every release give the paired design, the narrowest.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from releasegate.errors import InputError

if TYPE_CHECKING:
    import pandas as pd

DEFAULT_LABELS = 150  # per release: the example reads at 150 (docs/judge.md, bench/judge_gate.py)
# The case's own columns shown to the labeller, beside its answer, when the run's cases have them.
SHOWN = ("category", "input", "reference")


def labelling_sheet(table: pd.DataFrame, labels: int = DEFAULT_LABELS, seed: int = 20240501) -> pd.DataFrame:
    """``labels`` cases drawn at random (every case when fewer answer on every release) from a run's tidy table
    (release, case_id, run, output, ...): their rows with ``answer`` and an empty ``label``."""
    if labels < 1:
        raise InputError(f"--labels must be at least 1, got {labels}")
    answered = table["output"].notna() & ("error" not in table.columns or table["error"].isna())
    cells = table.groupby("case_id", sort=False).size()
    good = table[answered].groupby("case_id", sort=False).size().reindex(cells.index, fill_value=0)
    complete = good.index[(good == cells).to_numpy()].tolist()
    if not complete:
        raise InputError("no case has an answer on every release: nothing to label (run again to fill the holes)")
    rng = np.random.default_rng(seed)
    chosen = list(rng.choice(np.array(complete, dtype=object), min(labels, len(complete)), replace=False))
    order = {case: k for k, case in enumerate(chosen)}
    rows = table[table["case_id"].isin(order)].copy()
    rows["_order"] = rows["case_id"].map(order)
    rank = {name: k for k, name in enumerate(dict.fromkeys(table["release"]))}
    rows["_release"] = rows["release"].map(rank)
    keep_run = "run" in rows.columns and table["run"].nunique() > 1
    rows = rows.sort_values(["_order", "_release", *(["run"] if keep_run else [])], kind="stable")
    columns = ["case_id", "release", *(["run"] if keep_run else []), *[c for c in SHOWN if c in rows.columns]]
    sheet = rows[columns].assign(answer=rows["output"].to_numpy(), label="")
    return sheet.reset_index(drop=True)
