"""Outputs never overwrite inputs: ``-o results.json`` on the input results.json would destroy the data."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path

from releasegate.errors import OutputError

# A directory input is a harness's output folder (an Inspect log dir, an lm-eval output path): every file in
# it is the harness's, read or not (lm-eval's results_*.json sits beside the samples it describes). Walked
# only this deep and this far, which holds any harness layout; a larger tree is refused as an output's home.
_WALK_DEPTH = 4
_WALK_FILES = 200_000


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        info = os.stat(path)  # follows symbolic links: a link to an input is the input
    except OSError:
        return None
    return info.st_dev, info.st_ino


def _files_inside(directory: Path) -> Iterator[Path]:
    """The files of a directory input, to ``_WALK_DEPTH`` levels (symbolic links to files included)."""
    root_depth = len(directory.parts)
    count = 0
    for folder, subfolders, files in os.walk(directory):
        if len(Path(folder).parts) - root_depth >= _WALK_DEPTH:
            subfolders[:] = []
        for name in files:
            count += 1
            if count > _WALK_FILES:
                return
            yield Path(folder) / name


def check_outputs_are_not_inputs(outputs: Iterable[Path], inputs: Iterable[Path | None]) -> None:
    """Refuse an output that is an input, a file inside a directory input, or a symbolic or hard link of one.

    The same file is recognised by device and inode, which a symbolic or hard link shares with its target;
    an output that does not exist yet cannot be an input, unless it is a dangling link resolving to one's
    path (compared after resolving). A directory input stands for every file in it (the files it expands to
    and the harness's own files beside them).
    """
    known: dict[tuple[int, int], tuple[Path, Path | None]] = {}
    resolved: dict[Path, tuple[Path, Path | None]] = {}
    folders: list[tuple[Path, Path]] = []
    for path in inputs:
        if path is None:
            continue
        path = Path(path)
        if path.is_dir():
            folders.append((path.resolve(), path))
            for inside in _files_inside(path):
                identity = _identity(inside)
                if identity is not None:
                    known[identity] = (inside, path)
            continue
        identity = _identity(path)
        if identity is not None:
            known[identity] = (path, None)
        resolved[path.resolve()] = (path, None)
    for output in outputs:
        identity = _identity(output)
        found = known.get(identity) if identity is not None else None
        found = found or resolved.get(Path(output).resolve())
        if found is None and os.path.lexists(output):  # an existing file of a directory input, however linked
            target = Path(output).resolve()
            found = next(((target, given) for root, given in folders if target.is_relative_to(root)), None)
        if found is not None:
            source, folder = found
            where = (f"the input file {source}" if folder is None else f"a file of the input directory {folder}"
                     + ("" if Path(source) == Path(output) else f" ({source})"))
            raise OutputError(f"output {output} is {where}; write the report to another name")
