"""Work started in a thread of its own beside the caller's, for the analysis's parts that are numpy selections,
sums and logarithms of every case (numpy lets go of the interpreter in them, so two cores share them).

The caller asks for the result where it needs it (:meth:`Future.result`); a part that fails raises there, so a
caller that reads its parts in the order it would have worked them out keeps the order of its errors. Each part
reads arrays no other part writes: the figures are those of the same work done one after the other.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

T = TypeVar("T")


def beside(work: Callable[..., T], *args: Any) -> Future[T]:
    """``work(*args)`` started in a thread of its own; its result (or its exception) is the future's."""
    from concurrent.futures import ThreadPoolExecutor

    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="releasegate-beside")
    try:
        return pool.submit(work, *args)
    finally:
        pool.shutdown(wait=False)  # the thread ends with its work; nothing else is given to it


def done(work: Callable[..., T], *args: Any) -> Future[T]:
    """``work(*args)`` worked out here and now, as a future (its exception the future's): for parts too small for a
    thread of their own, read by the same code as :func:`beside`'s."""
    future: Future[T] = Future()
    try:
        future.set_result(work(*args))
    except BaseException as exc:  # noqa: BLE001 - handed to whoever reads the result, as a thread's would be
        future.set_exception(exc)
    return future
