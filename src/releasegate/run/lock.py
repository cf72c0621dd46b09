"""One writer per store: a run holds an exclusive lock on ``releasegate-run.lock`` in the store directory.

A second run on the same store is refused at once, with one line naming the process that holds it (its pid,
host, command and start time, which the holder writes into the lock file); it never waits, so that two runs
cannot both call the same cells (issue 30, D8: 3,887 calls for 2,000 cells). The lock is the operating
system's (``flock``; ``msvcrt.locking`` on Windows): a killed run releases it with its process, so a kill -9
never leaves a store locked. Readers (``report``, ``check``, ``--dry-run``) take no lock.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import socket
import sys
from pathlib import Path
from typing import Self

from releasegate.errors import StoreError

LOCK_NAME = "releasegate-run.lock"


class StoreLock:
    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)
        self.path = self.directory / LOCK_NAME
        self._fd: int | None = None

    def __enter__(self) -> Self:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()

    def acquire(self) -> None:
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise StoreError(f"{self.directory}: cannot create the run store: {exc.strerror or exc}") from None
        if not _try_lock(fd):
            holder = _read_holder(fd)
            os.close(fd)
            raise StoreError(f"{self.directory}: another run is writing to this store ({holder}); wait for it to "
                             "finish or stop it, then run again (one writer per store)")
        self._fd = fd
        record = {"pid": os.getpid(), "host": socket.gethostname(), "command": " ".join(sys.argv)[:300],
                  "started_at": _dt.datetime.now(tz=_dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")}
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps(record).encode(), 0)

    def release(self) -> None:
        if self._fd is not None:
            _unlock(self._fd)
            os.close(self._fd)
            self._fd = None


def _read_holder(fd: int) -> str:
    try:
        record = json.loads(os.pread(fd, 4096, 0) or b"{}")
    except (OSError, ValueError):
        record = {}
    if not isinstance(record, dict) or "pid" not in record:
        return "a process that has not said who it is"
    return (f"pid {record.get('pid')} on {record.get('host', '?')}, started {record.get('started_at', '?')}: "
            f"{record.get('command', '?')}")


if sys.platform == "win32":  # pragma: no cover (the tests run on Linux)
    import msvcrt

    def _try_lock(fd: int) -> bool:
        try:
            os.lseek(fd, 0, os.SEEK_SET)
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
            return True
        except OSError:
            return False

    def _unlock(fd: int) -> None:
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
else:
    import fcntl

    def _try_lock(fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except OSError:
            return False

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)
