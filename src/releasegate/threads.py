"""Work shared between the machine's cores: numpy lets go of the interpreter's lock in its array loops (selections,
sums, comparisons, conversions), so two threads of such work run on two cores at once.

:func:`beside` starts one piece of work in a thread of its own and hands back its future; :func:`two_at_once`
runs one function over a few items (the releases of a table) two at a time. Both keep what a plain loop would
give: the results in the items' order, and a failing item's error raised where the loop would raise it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from concurrent.futures import Future

T = TypeVar("T")
A = TypeVar("A")


def beside(work: Callable[..., T], *args: Any) -> Future[T]:
    """``work(*args)`` started in a thread of its own; its result (or its exception) is the future's."""
    from concurrent.futures import ThreadPoolExecutor

    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="releasegate-beside")
    try:
        return pool.submit(work, *args)
    finally:
        pool.shutdown(wait=False)  # the thread ends with its work; nothing else is given to it


def two_at_once(work: Callable[[A], T], items: Iterable[A]) -> list[T]:
    """``[work(item) for item in items]``, two items at a time in two threads (a single item in this thread). The
    results stand in the items' order; an error is the first failing item's, as in the loop (the items after it
    may have been worked on, and their results are dropped)."""
    items = list(items)
    if len(items) < 2:
        return [work(item) for item in items]
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=2, thread_name_prefix="releasegate-two") as pool:
        return list(pool.map(work, items))
