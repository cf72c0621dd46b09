"""The PDF typeset in a second process that starts with the command, so that importing WeasyPrint (0.3 s of one
core, 0.5 s or more of wall time) happens while this process loads and analyses, not after.

A command that writes a PDF starts this worker beside the chart worker (render/chart_worker.py). The worker
imports WeasyPrint at once and waits. When the report is ready, this process writes the page with its charts
named, not drawn (render/chart_url.py), and sends it; the worker parses and styles it while the chart worker
draws; this process then forwards the SVGs, which the worker reads when WeasyPrint first reaches a chart
(render/chart_fetcher.py), and the PDF comes back.

Protocol, pickles on the worker's stdin: ``("page", html, PrintOptions)`` (render/print_options.py), then ``("charts", {name: svg})``
or ``("error", message)`` (the charts could not be drawn: the worker stops). On its own copy of stdout, one
``("ok", pdf_bytes)`` or ``("error", message)``. A worker that ends without a reply (it could not start, or
died) is replaced by typesetting in process, as without one; an error it reports is raised here as one line.
A worker never used (the command failed first, or wrote no PDF after all) is killed.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import tempfile
from typing import Any


class TypesetterLost(Exception):
    """The worker ended without a reply (it could not start WeasyPrint, or its process died)."""


def start_typesetter() -> TypesetWorker | None:
    """A worker for the command's PDF, or None if no process can start (the PDF is then typeset in process)."""
    try:
        return TypesetWorker()
    except OSError:
        return None


class TypesetWorker:
    """A worker process for one PDF (see the module docstring)."""

    def __init__(self) -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)  # this same releasegate
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115  (lives as long as the worker; closed in close())
        self._process = subprocess.Popen(
            [sys.executable, "-c", "from releasegate.render.typeset_worker import serve; serve()"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr, env=env)

    def send(self, message: tuple[str, Any]) -> bool:
        """Write one message; False if the worker is gone (:meth:`result` then says why)."""
        try:
            pickle.dump(message, self._process.stdin, protocol=pickle.HIGHEST_PROTOCOL)
            self._process.stdin.flush()
        except (OSError, ValueError):
            return False
        return True

    def result(self) -> bytes:
        """The PDF's bytes. Raises :class:`TypesetterLost` if the worker ended without a reply."""
        try:
            status, value = pickle.load(self._process.stdout)
        except (EOFError, pickle.UnpicklingError, OSError) as exc:
            self._end()
            message = self._last_error() or f"the worker stopped with status {self._process.returncode}"
            self.close()
            raise TypesetterLost(message) from exc
        self.close()
        if status != "ok":
            raise RuntimeError(f"typesetting the PDF failed: {value}")
        return value

    def close(self, kill: bool = False) -> None:
        """Stop the worker (closing its input ends it, ``kill`` ends it at once) and wait for it."""
        self._end(kill)
        self._stderr.close()

    def _end(self, kill: bool = False) -> None:
        if kill:
            self._process.kill()
        for stream in (self._process.stdin, self._process.stdout):
            if stream and not stream.closed:
                try:
                    stream.close()
                except OSError:
                    pass  # a pipe to a worker that is gone
        self._process.wait()

    def _last_error(self) -> str:
        self._stderr.seek(0)
        lines = [line for line in self._stderr.read().decode("utf-8", "replace").splitlines() if line.strip()]
        return lines[-1].strip() if lines else ""


def serve() -> None:
    """The worker's side: import WeasyPrint while the parent works, then typeset the one page it is sent."""
    # The reply gets its own copy of stdout; anything a library prints goes to stderr and cannot corrupt it.
    reply_to = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    from releasegate.render.typeset import typeset

    try:
        _page, page_html, options = pickle.load(sys.stdin.buffer)
    except EOFError:
        return  # never used: the command ended first

    def svgs() -> dict[str, str]:
        kind, value = pickle.load(sys.stdin.buffer)
        if kind != "charts":
            raise RuntimeError(f"the charts could not be drawn: {value}")
        return value

    try:
        reply = ("ok", typeset(page_html, options, svgs))
    except Exception as exc:  # noqa: BLE001  (any failure becomes one line; the parent raises it)
        reply = ("error", f"{type(exc).__name__}: {' '.join(str(exc).split())[:300]}")
    pickle.dump(reply, reply_to, protocol=pickle.HIGHEST_PROTOCOL)
    reply_to.flush()
    os._exit(0)  # the reply is out: skip the interpreter's teardown, which the parent would wait for
