"""The inputs as named on the command line: a file, optionally ``NAME=path`` for the release it holds."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from releasegate.errors import FileError


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


def default_title(sources: list[Source]) -> str:
    """The report's title when none is given: the first input's folder name, else its file name."""
    first = sources[0].path
    name = first.parent.name if first.parent.name else first.stem
    return name or first.stem


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def check_file(path: Path, what: str = "results file", cap: int | None = None) -> None:
    """A results file, a case table or a gold file: a regular file (files.check_regular), within ``cap`` bytes
    when one is given, and not empty."""
    from releasegate.files import check_regular

    hint = "; give the results file(s) inside it" if what == "results file" else ""
    if check_regular(path, what, cap=cap, hint=hint) == 0:
        raise FileError(f"{path}: the file is empty")
