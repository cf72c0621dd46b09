"""Load an in-memory pandas DataFrame (the notebook's tidy table) as if it had been read from a file.

The frame gets the same treatment as a tidy file: column names as text, the ``[columns]`` renaming, identity
columns as text, the optional case table joined (a file or a DataFrame), and an input record for provenance. A frame
has no path, so its record is ``<DataFrame>`` with the sha256 of its canonical CSV text
(``frame.to_csv(index=False)``, UTF-8): saving the same frame with that call gives a file of the same hash.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from releasegate.errors import ColumnError, InputError
from releasegate.load import shapes
from releasegate.load.cases import join_cases
from releasegate.load.columns import outcome_taken, rename_columns, require_column
from releasegate.load.results import LoadedResults
from releasegate.load.sources import frame_sha256
from releasegate.load.identity import TEXT_COLUMNS, identity_as_text
from releasegate.model import InputFile
from releasegate.load.fingerprint import PAIRING_COLUMNS
from releasegate.policy import CANONICAL_COLUMNS

FRAME_PATH = "<DataFrame>"


def load_frame(
    frames: pd.DataFrame | Mapping[str, pd.DataFrame],
    *,
    columns: Mapping[str, str] | None = None,
    cases: Path | pd.DataFrame | None = None,
    wide_release_cols: tuple[str, ...] = (),
    latency_unit: str = "ms",
    metrics: tuple[str, ...] = (),
) -> LoadedResults:
    """A tidy DataFrame, or one DataFrame per release (``{"r1-live": df1, "r2": df2}``), -> LoadedResults.

    A mapping names the release of every row of each frame, as ``NAME=path`` does for a file. ``metrics`` name
    the outcome columns (the API's ``metric=``), so no passed or score column is needed.
    """
    named = frames.items() if isinstance(frames, Mapping) else [(None, frames)]
    columns = dict(columns or {})
    parts, inputs, notes = [], [], []
    for release, frame in named:
        label = FRAME_PATH if release is None else f"<DataFrame {release}>"
        if not isinstance(frame, pd.DataFrame):
            raise InputError(f"{label}: expected a pandas DataFrame, got {type(frame).__name__}")
        if frame.shape[0] == 0:
            raise InputError(f"{label}: the DataFrame has no rows")
        inputs.append(InputFile(label, frame_sha256(frame), int(frame.shape[0]), "dataframe",
                                None if release is None else str(release)))
        part = frame.reset_index(drop=True).copy()
        part.columns = [str(c).strip() for c in part.columns]
        taken = None if metrics else outcome_taken(columns, list(part.columns))
        if taken:
            raise ColumnError(f"{label}: {taken}")
        part = rename_columns(part, columns, Path(label))
        # The shapes of load/shapes.py, as for files: a wide frame (release columns given), latency in seconds.
        if wide_release_cols:
            part = shapes.melt_wide(part, wide_release_cols, Path(label))
        part = shapes.latency_in_ms(part, latency_unit, Path(label))
        if release is not None:
            renamed = shapes.named_over_column(part, str(release), label)
            notes += [renamed] if renamed else []
            part["release"] = str(release)
        require_column(part, "release", label, "columns={'release': ...}", columns.get("release"))
        require_column(part, "case_id", label, "columns={'case_id': ...}", columns.get("case_id"))
        parts.append(part)
    if not parts:
        raise InputError("no results given")
    table = pd.concat(parts, ignore_index=True, sort=False) if len(parts) > 1 else parts[0]
    identity_as_text(table, TEXT_COLUMNS, FRAME_PATH)
    # A JSON object or list in the metadata as its JSON text, as a file's (load/shapes.py): a dict can be neither
    # compared, grouped nor shown.
    table = shapes.nested_as_text(table, [c for c in table.columns if c not in CANONICAL_COLUMNS])
    case_columns: tuple[str, ...] = ()
    if cases is not None:
        before = set(table.columns)
        table, case_input = join_cases(table, cases if isinstance(cases, pd.DataFrame) else Path(cases), columns,
                                       set(map(str, table.columns)), metrics)
        inputs.append(case_input)
        case_columns = tuple(str(c) for c in table.columns if c not in before)
    if "passed" not in table.columns and "score" not in table.columns and not metrics:
        present = ", ".join(str(c) for c in table.columns)
        raise InputError(f"no outcome column: need 'passed' (0/1) or 'score'; columns present: {present}")
    metadata = tuple(str(c) for c in table.columns
                     if c not in CANONICAL_COLUMNS and c != "doc_hash" and c not in PAIRING_COLUMNS)
    return LoadedResults(table, tuple(inputs), metadata, notes=tuple(notes), case_columns=case_columns)
