"""Chart work off the main thread, so that it overlaps work the main thread must do anyway.

vl-convert draws charts in its embedded JavaScript engine, in Rust, with the GIL released. The engine takes
about 0.4 s to start in a process and tens of ms per chart after that. Started at the beginning of a command
that writes HTML or PDF, the start overlaps loading and analysis; the drawing itself then overlaps the import
of WeasyPrint (render/pdf.py). One worker thread runs the tasks in order; it is not a daemon, so a process that
fails early still lets a started conversion finish before it exits (a native engine killed mid-call can abort).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

_lock = threading.RLock()
_pool: ThreadPoolExecutor | None = None
_engine: Future | None = None


def submit(task: Callable[..., Any], *args: Any) -> Future:
    """Run ``task(*args)`` on the chart thread (after any task submitted before it)."""
    global _pool
    with _lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="releasegate-charts")
        return _pool.submit(task, *args)


def _start_engine() -> None:
    import vl_convert

    from releasegate.render.charts import VL_VERSION

    # The smallest chart vl-convert accepts: its only purpose is to load the engine and this Vega-Lite version.
    spec = {"data": {"values": [{"x": 0}]}, "mark": "point", "encoding": {"x": {"field": "x", "type": "quantitative"}}}
    vl_convert.vegalite_to_svg(spec, vl_version=VL_VERSION, allowed_base_urls=[])


def start_chart_engine() -> None:
    """Start vl-convert's engine in the background (once per process); drawing later finds it running.

    A failure here is not reported: the real drawing repeats the same call and reports it then.
    """
    global _engine
    with _lock:
        if _engine is None:
            _engine = submit(_start_engine)
