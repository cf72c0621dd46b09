"""Outputs never overwrite inputs: ``-o results.json`` on the input results.json would destroy the data."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from releasegate.errors import InputError


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        info = os.stat(path)  # follows symbolic links: a link to an input is the input
    except OSError:
        return None
    return info.st_dev, info.st_ino


def check_outputs_are_not_inputs(outputs: Iterable[Path], inputs: Iterable[Path | None]) -> None:
    """Refuse an output that is an input, a symbolic link to one, or a hard link of one.

    The same file is recognised by device and inode, which a symbolic or hard link shares with its target;
    an output that does not exist yet cannot be an input, unless it is a dangling link resolving to one's
    path (compared after resolving).
    """
    known: dict[tuple[int, int], Path] = {}
    resolved: dict[Path, Path] = {}
    for path in inputs:
        if path is None:
            continue
        identity = _identity(Path(path))
        if identity is not None:
            known[identity] = Path(path)
        resolved[Path(path).resolve()] = Path(path)
    for output in outputs:
        identity = _identity(output)
        source = known.get(identity) if identity is not None else None
        source = source or resolved.get(Path(output).resolve())
        if source is not None:
            raise InputError(f"output {output} is the input file {source}; write the report to another name")
