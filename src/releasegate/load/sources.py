"""The inputs as named on the command line: a file, optionally ``NAME=path`` for the release it holds."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from releasegate.errors import FileError

if TYPE_CHECKING:  # pandas only for the annotation: reading a source's name needs no pandas
    import pandas as pd


@dataclass(frozen=True)
class Source:
    """One results file, optionally named for the release it holds (``NAME=path``)."""

    path: Path
    release: str | None = None


def parse_source(text: str) -> Source:
    """``NAME=path`` names the release of a file; a plain path does not (an existing path always wins)."""
    if "=" in text and not Path(text).exists():
        name, _, path = text.partition("=")
        if name.strip() and path.strip():
            return Source(Path(path.strip()), name.strip())
    return Source(Path(text))


def default_title(sources: list[Source], names: tuple[str, ...] = ()) -> str:
    """The report's title when the policy sets none, from the data: the names the inputs give what they evaluated
    (an Inspect task, lm-eval tasks, a promptfoo description, an OpenAI evals eval), else the first input file's
    name without its suffix; never a folder's name, which says where the files were put, not what they hold."""
    if names:
        return ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
    first = sources[0].path if sources else None
    return first.stem if first is not None and first.suffix and first.stem else "release comparison"


def frame_sha256(frame: pd.DataFrame) -> str:
    """sha256 of a DataFrame's canonical CSV text (no index, UTF-8): saving the same frame with
    ``frame.to_csv(index=False)`` gives a file of the same hash."""
    return hashlib.sha256(frame.to_csv(index=False).encode("utf-8")).hexdigest()


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def check_file(path: Path) -> None:
    if not path.exists():
        raise FileError(f"file not found: {path}")
    if path.is_dir():
        raise FileError(f"{path} is a directory; give the results file(s) inside it")
    if path.stat().st_size == 0:
        raise FileError(f"{path}: the file is empty")
