"""What was read from each file, for the provenance: the InputFile record with the adapter's choices.

Also the check that a release comes from one file: two harness files of one release and task (two Inspect logs
of one model, the same promptfoo provider in two runs) would otherwise be concatenated into duplicate rows,
refused later without saying which files to name.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from releasegate.errors import InputError
from releasegate.model import InputFile

HARNESS_FORMATS = ("inspect", "lm-eval", "promptfoo", "openai-evals", "inspect-samples")


def input_record(path: Path, sha256: str, frame: pd.DataFrame, fmt: str, release: str | None) -> InputFile:
    """The provenance of one file; a harness file also records its tool, release key, scorer, metric, filter."""
    attrs = frame.attrs if fmt in HARNESS_FORMATS else {}
    choices = {key: (str(attrs[key]) if attrs.get(key) else None)
               for key in ("harness", "release_key", "scorer", "metric", "filter", "direction", "reducer",
                           "judge")}
    return InputFile(str(path), sha256, int(frame.shape[0]), fmt, release, **choices)


def check_one_file_per_release(read: list[tuple[Path, pd.DataFrame, str, str | None]]) -> None:
    """Refuse a (release, task) read from two harness files none of which is named: suggest NAME=path."""
    owner: dict[tuple[str, str, str], Path] = {}
    for path, frame, fmt, named in read:
        if fmt not in HARNESS_FORMATS or named is not None or "release" not in frame.columns:
            continue
        task = str(frame.attrs.get("task") or "")
        for release in dict.fromkeys(frame["release"]):
            key = (fmt, str(release), task)
            if key in owner and owner[key] != path:
                first = owner[key]
                raise InputError(f"{first} and {path} both hold release {release!r}"
                                 + (f" (task {task})" if task else "") + ": name each file's release, e.g. "
                                 f"base={first} cand={path}")
            owner[key] = path
