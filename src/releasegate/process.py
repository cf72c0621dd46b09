"""How a command's process runs: Python's cyclic garbage collector paused while it builds and writes a report,
and its lines written to a reader that may stop reading.

A report is made of acyclic objects (dataclasses, tuples, arrays); reference counting frees them. At 1,000,000
cases the cyclic collector ran three full passes over some 300,000 live objects (the changed cases and their
JSON rows) and took 0.2 s to find 859 objects to free. The command line pauses it for ``report``, ``check`` and
``verify`` (a report's run, then two notes compared value by value: at 1,000,000 cases 0.83x the time with the
collector on); the library (``releasegate.compare``, a notebook) leaves the caller's collector alone.

``releasegate check ... | head -1`` closes the pipe after the first line; the next write fails with EPIPE. The
verdict's exit status is what a CI step reads, so a closed stdout (or stderr) ends the writing, never the
command: the stream is pointed at the null device and the command goes on to its exit status.

The same commands keep the memory they free for their next arrays (:func:`keep_freed_memory`): glibc's
allocator gave every array above its threshold fresh pages from the kernel and returned them when freed, so each
step's arrays were faulted in anew (at 1,000,000 cases about 0.2-0.3 of the command's 2.7 CPU seconds, in the
kernel). They also take their memory in the kernel's ordinary 4 KiB pages (:func:`small_pages_only`): Arrow's
allocator asked for transparent huge pages and handed freed pieces back 64 KiB at a time, so each piece used
again was a fresh 2 MiB page zeroed whole; at 10,000,000 cases that zeroing was nearly half the command's
CPU time.
"""

from __future__ import annotations

import contextlib
import gc
import io
import os
import sys
from collections.abc import Iterator
from typing import TextIO


@contextlib.contextmanager
def cyclic_gc_paused() -> Iterator[None]:
    """The cyclic collector off inside the block and on again after it (also after an error); a collector the
    caller had already turned off stays off. ``RELEASEGATE_GC=1`` keeps it on."""
    pause = gc.isenabled() and not os.environ.get("RELEASEGATE_GC")
    keep_freed_memory()
    small_pages_only()
    if pause:
        gc.disable()
    try:
        yield
    finally:
        if pause:
            gc.enable()


def say(line: str = "", err: bool = False) -> None:
    """One line on stdout (stderr with ``err``); a reader that closed the pipe is not an error."""
    stream = sys.stderr if err else sys.stdout
    try:
        stream.write(f"{line}\n")
        stream.flush()
    except BrokenPipeError:
        _to_null_device(stream)


def _to_null_device(stream: TextIO) -> None:
    """Point the closed stream's descriptor at the null device: what is still buffered, and every later line,
    goes nowhere instead of failing again (at exit too)."""
    try:
        fd = stream.fileno()
    except (AttributeError, ValueError, io.UnsupportedOperation):
        return  # not a file (a test's captured stream): nothing is written to a closed pipe again
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, fd)
    finally:
        os.close(null)


_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # glibc's mallopt parameters (malloc.h)


def keep_freed_memory() -> None:
    """Ask glibc's allocator to serve arrays up to 32 MiB from its heap and to keep up to 64 MiB of what is
    freed there for the next ones, instead of mapping fresh pages for each and unmapping them when freed. Kept
    without a bound (1 GiB), the freed heap added 0.1-0.15 GiB to the peak at 10^7 rows and saved nothing
    measurable at 10^6 (bench/stages.py). Nothing happens on another C library, or when the environment sets
    glibc's own ``MALLOC_`` variables (the user's choice stands)."""
    if any(name.startswith("MALLOC_") for name in os.environ):
        return
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6")
        libc.mallopt(_M_MMAP_THRESHOLD, 32 << 20)  # glibc's largest
        libc.mallopt(_M_TRIM_THRESHOLD, 64 << 20)
    except (OSError, AttributeError):
        pass


_PR_SET_THP_DISABLE = 41  # prctl's option (linux/prctl.h)


def small_pages_only() -> None:
    """Ask Linux to give this process (and the processes it starts) no transparent huge pages.

    Arrow's allocator (mimalloc) reserves its memory in 1 GiB arenas marked for huge pages and, a second after a
    piece is freed, hands it back to the kernel, often 64 KiB at a time. The next use of that piece is a fresh
    page, and on a huge-page mapping that is 2 MiB zeroed for 64 KiB. At 10,000,000 cases x 2 the command spent 8-14
    of its 17-25 CPU seconds in the kernel, most of it zeroing such pages (``perf``: ``clear_page_erms`` under
    ``do_huge_pmd_anonymous_page``, 45% of every sample); in 4 KiB pages the kernel's share was 2.9-3.3 s and the
    user time the same (bench/RESULTS.md). mimalloc's own option ``MIMALLOC_ALLOW_THP=0`` makes this same call;
    when the environment sets that option the user's choice stands. Nothing happens on another system."""
    if "MIMALLOC_ALLOW_THP" in os.environ or not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").prctl(_PR_SET_THP_DISABLE, 1, 0, 0, 0)
    except (OSError, AttributeError):
        pass
