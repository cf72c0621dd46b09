"""Charts drawn in a second process that starts with the command, so that their cost hides behind other work.

Drawing the report's charts costs about 1.1 s of one core: importing altair (0.22 s), starting vl-convert's
JavaScript engine (0.45 s) and drawing (about 0.4 s for the example). vl-convert 1.9 holds the GIL while it
works, so a thread cannot overlap any of it. A worker process can: started at the beginning of a command that
writes HTML or PDF, it imports altair and starts the engine on the other core while this process loads and
analyses; it then draws while this process renders the other outputs or imports WeasyPrint.

Protocol: the worker reads one pickled Report (each metric section's charts, :func:`draw_charts`) from stdin (the parent's own object, case lists left out: no chart uses them), writes back on its own copy of
stdout one pickled ``("planned", charts)`` (the specs, names, titles and captions, before any drawing: enough
for the PDF's page to be parsed while the charts are drawn), then one ``("ok", charts)`` or
``("error", message)``, and exits. A drawing error comes back as one line and is raised in the parent. A
worker that ends without a reply (it could not start, or died) is replaced by drawing in process. A worker
never used (the command failed before rendering) is killed. Its stderr goes to a temporary file, so nothing it
prints reaches the user. Without a worker (the library used from a notebook) the charts are drawn in process; the
SVGs are the same bytes either way.

:class:`Charts` owns the worker and its lifetime: ``render.rendering()`` makes one per command, the renderers
ask it for a report's charts, and it draws them once for every output that needs them.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import tempfile
from dataclasses import replace
from typing import IO, TYPE_CHECKING, Any

from releasegate.model import MetricSection, Report

if TYPE_CHECKING:  # altair and the chart modules are imported by the process that draws
    from releasegate.render.chart_look import Chart


class WorkerLost(Exception):
    """The worker ended without a reply (it could not start its engine, or its process died)."""


class ChartWorker:
    """A worker process for one report's charts (see the module docstring)."""

    def __init__(self) -> None:
        env = dict(os.environ)
        # The worker must import this same releasegate: give it the path this process resolved.
        env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115  (lives as long as the worker; closed in close())
        self._process = subprocess.Popen(
            [sys.executable, "-c", "from releasegate.render.chart_worker import serve; serve()"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr, env=env)
        self._plan: Any = None  # the first reply, once read
        self._last: tuple[str, Any] | None = None  # an error read in place of the plan

    def send(self, report: Report) -> None:
        """Hand the report over; the worker starts drawing at once."""
        light = _light(report)
        try:
            pickle.dump(light, self._process.stdin, protocol=pickle.HIGHEST_PROTOCOL)
            self._process.stdin.close()
        except OSError:
            pass  # the worker is gone: result() says why

    def planned(self) -> Any:
        """The charts before drawing, as :func:`plan_charts` returns them (the worker's first reply)."""
        if self._plan is None:
            status, value = self._reply()
            if status != "planned":  # the plan failed: its error is also the result
                self._last = (status, value)
                self.close()
                raise RuntimeError(f"drawing the charts failed: {value}")
            self._plan = value
        return self._plan

    def result(self) -> Any:
        """The drawn charts, as :func:`draw_charts` returns them."""
        status, value = self._last or self._reply()
        if status == "planned":
            self._plan = value
            status, value = self._reply()
        self.close()
        if status != "ok":
            raise RuntimeError(f"drawing the charts failed: {value}")
        return value

    def _reply(self) -> tuple[str, Any]:
        try:
            return pickle.load(self._process.stdout)
        except (EOFError, pickle.UnpicklingError, OSError) as exc:
            self._end()
            message = self._last_error() or f"the worker stopped with status {self._process.returncode}"
            self.close()
            raise WorkerLost(message) from exc

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
                except OSError:  # a dead worker's input still held bytes of the report: nobody will read them
                    pass
        self._process.wait()

    def _last_error(self) -> str:
        self._stderr.seek(0)
        lines = [line for line in self._stderr.read().decode("utf-8", "replace").splitlines() if line.strip()]
        return lines[-1].strip() if lines else ""


def _light(report: Report) -> Report:
    # The case lists are left out: no chart uses them, and they are most of a large report's pickle.
    def light(section: MetricSection) -> MetricSection:
        analysis = section.analysis
        candidates = tuple(replace(c, broken_cases=(), fixed_cases=(), details=None) for c in analysis.candidates)
        return replace(section, analysis=replace(analysis, candidates=candidates))

    return replace(report, sections=tuple(light(s) for s in report.sections))


def metric_anchor(report: Report, index: int) -> str:
    """The prefix of the ids (and chart names) of the ``index``-th metric's section: none with one metric, whose
    page is that section alone."""
    return f"metric-{index + 1}-" if report.several else ""


Plan = tuple[list["Chart"], list[tuple[str, "Chart"]]]  # one section's charts and its cost section's charts (with kind)


def plan_charts(report: Report) -> tuple[Plan, ...]:
    """A report's charts before drawing (:func:`plan_report_charts`): a plan per metric section, every chart
    named with its section's anchor so that the ids inside its SVG are its own on the page."""
    return tuple(plan_report_charts(s, metric_anchor(report, i)) for i, s in enumerate(report.sections))


def draw_charts(report: Report) -> tuple[Plan, ...]:
    """A report's charts drawn: :func:`plan_charts`' answer with every SVG filled in."""
    return draw_plan(plan_charts(report))


def draw_plan(planned: tuple[Plan, ...]) -> tuple[Plan, ...]:
    """:func:`plan_charts`' answer drawn (one vl-convert batch per metric section)."""
    return tuple(draw_planned(p) for p in planned)


def plan_report_charts(report: MetricSection, prefix: str = "") -> Plan:
    """One metric section's charts and its cost section's charts (with their kind), specs built and not yet
    drawn; ``prefix`` starts every chart's name."""
    from releasegate.render import charts
    from releasegate.render.chart_limits import chart_view
    from releasegate.render.chart_look import Chart
    from releasegate.render.charts_costs import latency_charts, quality_cost_chart

    section, note = chart_view(report)  # the worst N categories and candidates when there are many
    main = [replace(c, name=prefix + c.name, caption=f"{c.caption} {note}".strip())
            for c in charts.build_charts(section.analysis)]
    # charts_costs.cost_charts(report), taken by kind so that the template captions each kind once.
    quality = quality_cost_chart(section)
    costs = [("quality", Chart(f"{prefix}chart-costs-quality", quality["title"]["text"], note, quality))] if quality else []
    costs += [("latency", Chart(f"{prefix}chart-costs-latency-{i}", title, note, spec))
              for i, (title, spec) in enumerate(latency_charts(section), start=1)]
    return main, costs


def draw_planned(planned: Plan) -> Plan:
    """:func:`plan_report_charts`' charts drawn in one vl-convert batch (the same shape, SVGs filled in)."""
    from releasegate.render import charts

    main, costs = planned
    drawn = charts.draw(main + [chart for _, chart in costs])
    kinds = [kind for kind, _ in costs]
    return drawn[:len(main)], list(zip(kinds, drawn[len(main):]))


class Charts:
    """The charts of one command: a worker started with it (or none: draw in process), one report's charts
    asked for once (:meth:`ask`, so the worker draws while this process does other work) and handed to every
    renderer that needs them (:meth:`get`). :meth:`close` ends a worker that was never used."""

    def __init__(self, start_worker: bool = False) -> None:
        self._worker: ChartWorker | None = None
        if start_worker:
            try:
                self._worker = ChartWorker()
            except OSError:
                self._worker = None  # no process could start: draw in process
        self._report: Report | None = None
        self._planned: Any = None
        self._drawn: Any = None

    @property
    def worker(self) -> ChartWorker | None:
        return self._worker

    def ask(self, report: Report) -> None:
        """Hand the report to the worker (if any) so that its charts are drawn meanwhile."""
        if self._report is report:
            return
        self._report, self._planned, self._drawn = report, None, None
        if self._worker is not None:
            self._worker.send(report)

    def plan(self, report: Report) -> Any:
        """The report's charts before drawing, as :func:`plan_charts` returns them: names, titles and captions
        for a page that fetches the SVGs later (the PDF's, render/chart_fetcher.py)."""
        self.ask(report)
        if self._planned is None and self._drawn is None and self._worker is not None:
            try:
                self._planned = self._worker.planned()
            except WorkerLost:
                self._worker = None  # gone without a reply: planned and drawn here, as without one
        if self._planned is None:
            self._planned = self._drawn if self._drawn is not None else plan_charts(report)
        return self._planned

    def get(self, report: Report) -> Any:
        """The report's charts, as :func:`draw_charts` returns them."""
        self.ask(report)
        if self._drawn is None and self._worker is not None:
            worker, self._worker = self._worker, None
            try:
                self._drawn = worker.result()
            except WorkerLost:
                self._drawn = None  # the worker is gone (it never replied): draw here, as without one
        if self._drawn is None:
            self._drawn = draw_plan(self._planned) if self._planned is not None else draw_charts(report)
        return self._drawn

    def close(self) -> None:
        """End a worker that was started and never used (the command ended early, e.g. on bad input): it holds
        nothing of value, so it is killed rather than waited for while it still starts its engine."""
        if self._worker is not None:
            self._worker.close(kill=True)
            self._worker = None


def serve() -> None:
    """The worker's side: prepare while the parent works, then draw the one report it is sent."""
    # The reply gets its own copy of stdout; anything a library prints goes to stderr and cannot corrupt it.
    reply_to = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    import altair  # noqa: F401  (imported now, while the parent loads and analyses)
    import vl_convert

    from releasegate.render import charts  # noqa: F401  (the chart modules too, before the report arrives)
    from releasegate.render.chart_look import VL_VERSION

    # The smallest chart vl-convert accepts: it starts the engine and loads this Vega-Lite version.
    tiny = {"data": {"values": [{"x": 0}]}, "mark": "point", "encoding": {"x": {"field": "x", "type": "quantitative"}}}
    vl_convert.vegalite_to_svg(tiny, vl_version=VL_VERSION, allowed_base_urls=[])
    try:
        report = pickle.load(sys.stdin.buffer)
    except EOFError:
        return
    try:
        planned = plan_charts(report)
        _reply(reply_to, ("planned", planned))  # the parent may lay out its page while these are drawn
        reply: tuple[str, Any] = ("ok", draw_plan(planned))
    except Exception as exc:  # noqa: BLE001  (any failure becomes one line; the parent raises it)
        reply = ("error", f"{type(exc).__name__}: {' '.join(str(exc).split())[:300]}")
    _reply(reply_to, reply)
    # The reply is out: skip the interpreter's and the JavaScript engine's teardown (about 0.4 s), which the
    # parent would otherwise wait for. Nothing is left to flush or close.
    os._exit(0)


def _reply(stream: IO[bytes], message: tuple[str, Any]) -> None:
    pickle.dump(message, stream, protocol=pickle.HIGHEST_PROTOCOL)
    stream.flush()
