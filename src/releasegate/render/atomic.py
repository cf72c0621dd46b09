"""Write files all-or-nothing: each to a short-named temporary beside it, then renamed into place.

Three things a plain "write a temporary, rename it" gets wrong (issue 15, item 12):
- a SIGTERM (CI cancelling the job) while the temporaries exist used to leave ``.note.md.XXXX.tmp``
  behind: while they exist, SIGTERM and SIGHUP raise SystemExit, so the cleanup below runs;
- replacing a report used to reset its mode to 0644: an existing file's mode is kept;
- the temporary was named after the report, so a valid 250-byte name became an invalid 270-byte one: the
  temporary's name is short and fixed in length.
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import stat
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

from releasegate.errors import OutputError

NEW_FILE_MODE = 0o644
_SIGNALS = tuple(s for s in (getattr(signal, "SIGTERM", None), getattr(signal, "SIGHUP", None)) if s is not None)


def _exit_on_signal(signum: int, _frame: object) -> None:
    raise SystemExit(128 + signum)  # unwinds through the cleanup; the shell's status for a signal


@contextlib.contextmanager
def _signals_unwind() -> Iterator[None]:
    """While the block runs, SIGTERM and SIGHUP raise SystemExit instead of killing the process outright."""
    if threading.current_thread() is not threading.main_thread():
        yield  # handlers can only be set from the main thread; a library caller's thread keeps its own
        return
    previous = {}
    for signum in _SIGNALS:
        if signal.getsignal(signum) is signal.SIG_DFL:  # a handler the caller installed stays theirs
            previous[signum] = signal.signal(signum, _exit_on_signal)
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _mode_for(target: Path) -> int:
    try:
        return stat.S_IMODE(os.stat(target).st_mode)
    except OSError:
        return NEW_FILE_MODE


def write_files_atomically(contents: list[tuple[Path, bytes]]) -> None:
    """Write every (path, bytes) pair, or none: a failure or a signal leaves each path as it was."""
    temporaries: list[tuple[str, Path]] = []
    target: Path | None = None
    with _signals_unwind():
        try:
            for target, data in contents:
                parent = target.parent if str(target.parent) else Path(".")
                handle, temporary = tempfile.mkstemp(prefix=".rg-", suffix=".tmp", dir=parent)
                # Registered before writing: a write that fails (disk full) must not leave its temporary behind.
                temporaries.append((temporary, target))
                with os.fdopen(handle, "wb") as stream:
                    stream.write(data)
                    stream.flush()
                    # On disk before the rename, so a crash cannot leave an empty file under the report's name.
                    os.fsync(stream.fileno())
                os.chmod(temporary, _mode_for(target))
            # A directory in the way would fail its rename after the others were done: none is renamed.
            for _, target in temporaries:
                if target.is_dir():
                    raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR))
            for temporary, target in temporaries:
                os.replace(temporary, target)
        except BaseException as exc:
            for temporary, _ in temporaries:
                if os.path.exists(temporary):
                    os.unlink(temporary)
            if isinstance(exc, OSError):
                raise OutputError(f"cannot write {target}: {exc.strerror or exc}") from None
            raise
