"""The files a user names (results, a case table, gold labels, a policy, a run configuration and the prompts,
templates and rubrics it names, a note): each must be a regular file, and is read within a size cap.

A device, a FIFO or a directory named where a file is expected is refused in one line saying what it is:
``/dev/zero`` would otherwise be read until memory runs out, and a FIFO would wait for a writer forever. A file
is opened without blocking (a FIFO opens at once) and checked on the open descriptor, so what is checked is what
is read; a file larger than its cap is refused, naming the cap, before any of it is read.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from releasegate.errors import FileError, InputError

KIB = 1 << 10
MIB = 1 << 20
GIB = 1 << 30
# A prompt, a template, a rubric, a policy or a run configuration: text a person writes.
TEXT_CAP = 1 * MIB
# A case table, a gold-label file or a note: one row (or listing entry) per case; a million cases of text fit.
TABLE_CAP = 1 * GIB

_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def size_text(n: int) -> str:
    """A byte count as a person reads it: ``1 MiB``, ``2.5 GiB``, ``300 bytes``."""
    for unit, name in ((GIB, "GiB"), (MIB, "MiB"), (KIB, "KiB")):
        if n >= unit:
            return f"{n / unit:.3g} {name}"
    return f"{n} bytes"


def _refuse_unless_regular(info: os.stat_result, path: Path, what: str, cap: int | None,
                           error: type[InputError], hint: str) -> None:
    if not stat.S_ISREG(info.st_mode):
        kind = next((name for test, name in _KINDS if test(info.st_mode)), "not a regular file")
        raise error(f"{what} {path} is {kind}, not a regular file{hint if stat.S_ISDIR(info.st_mode) else ''}")
    if cap is not None and info.st_size > cap:
        raise error(f"{what} {path} is {info.st_size:,} bytes, over the cap of {size_text(cap)}")


def check_regular(path: Path | str, what: str, *, cap: int | None = None, error: type[InputError] = FileError,
                  hint: str = "") -> int:
    """Refuse ``path`` unless it is a regular file (symbolic links followed) of at most ``cap`` bytes; return its
    size. For files another library opens by name (pandas, pypdf): nothing is opened here, so a FIFO never
    blocks. ``what`` names the file in the message ("case file"); ``hint`` ends the line of a directory."""
    path = Path(path)
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise error(f"{what} not found: {path}") from None
    except OSError as exc:
        raise error(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    _refuse_unless_regular(info, path, what, cap, error, hint)
    return info.st_size


def read_capped(path: Path | str, what: str, *, cap: int, error: type[InputError] = FileError,
                hint: str = "") -> bytes:
    """The bytes of the regular file ``path``, at most ``cap`` of them: anything else is ``error`` in one line."""
    path = Path(path)
    try:
        # O_NONBLOCK: a FIFO opens at once (and is then refused) instead of waiting for a writer.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise error(f"{what} not found: {path}") from None
    except IsADirectoryError:
        raise error(f"{what} {path} is a directory, not a regular file{hint}") from None
    except OSError as exc:
        raise error(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    try:
        _refuse_unless_regular(os.fstat(fd), path, what, cap, error, hint)
    except InputError:
        os.close(fd)
        raise
    with os.fdopen(fd, "rb") as handle:
        try:
            data = handle.read(cap + 1)
        except OSError as exc:
            raise error(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    if len(data) > cap:  # it grew while it was read
        raise error(f"{what} {path} is over the cap of {size_text(cap)}")
    return data


def read_text_capped(path: Path | str, what: str, *, cap: int = TEXT_CAP, error: type[InputError] = FileError,
                     encoding: str = "utf-8") -> str:
    """The text of the regular file ``path`` (UTF-8; ``utf-8-sig`` reads a byte-order mark as nothing)."""
    data = read_capped(path, what, cap=cap, error=error)
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        raise error(f"{what} {path} is not UTF-8 text (byte 0x{data[exc.start]:02X} at offset {exc.start}); "
                    "re-save it as UTF-8") from None
