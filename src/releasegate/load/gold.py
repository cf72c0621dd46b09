"""The gold labels (``--gold FILE``, policy ``gold``): a human's pass/fail for a sample of the judged
(release, case[, run]) cells, read from a tidy file (.csv, .tsv, .jsonl, .json records, .parquet).

Columns: ``release``, ``case_id``, ``label`` (boolean-like, as ``passed``) and ``run`` where the results have
runs; any other column (the answers shown to the labeller, a note) is ignored. The file's own checks are here;
validate_gold.py checks it against the validated results.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from releasegate.errors import InputError
from releasegate.files import TABLE_CAP
from releasegate.load.sources import check_file, sha256_of
from releasegate.load.tidy import read_tidy
from releasegate.model import InputFile

GOLD_COLUMNS = ("release", "case_id", "label")
# Read as text, as the results' identity columns are: "007" stays "007"; a run "1" is matched as text.
GOLD_TEXT_COLUMNS = ("release", "case_id", "run")


@dataclass(frozen=True)
class LoadedGold:
    """The gold file's rows (its columns ``release``, ``case_id``, ``label`` and ``run`` when present) and
    its provenance record."""

    table: pd.DataFrame
    input: InputFile


def load_gold(path: Path | str) -> LoadedGold:
    """Read the gold file; a missing file, an unreadable one or a missing column is one line naming it."""
    path = Path(path)
    check_file(path, "gold file", TABLE_CAP)
    frame = read_tidy(path, GOLD_TEXT_COLUMNS)
    missing = [c for c in GOLD_COLUMNS if c not in frame.columns]
    if missing:
        raise InputError(f"{path}: the gold file needs columns release, case_id and label (and run when the "
                         f"results have runs); missing {', '.join(map(repr, missing))}; columns present: "
                         f"{', '.join(map(str, frame.columns))}")
    keep = [c for c in (*GOLD_COLUMNS, "run") if c in frame.columns]
    table = frame[keep].reset_index(drop=True)
    return LoadedGold(table, InputFile(str(path), sha256_of(path), int(table.shape[0]), "gold"))
