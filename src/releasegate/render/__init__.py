"""Stage 5: Report -> files. Each output's format comes from its suffix; writing is all-or-nothing."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from releasegate.errors import InputError
from releasegate.model import MetricsReport, Report

if TYPE_CHECKING:  # the chart worker module is imported only by outputs that draw charts
    from releasegate.render.chart_worker import Charts

SUFFIXES = (".html", ".md", ".pdf", ".json")
CHARTED = (".html", ".pdf")  # the outputs that draw charts


def _markdown(report: Report) -> bytes:
    from releasegate.render.markdown import render_markdown

    return render_markdown(report).encode("utf-8")


def _json(report: Report) -> bytes:
    from releasegate.render.json_out import render_json

    return render_json(report).encode("utf-8")


def _html(report: Report, **options) -> bytes:
    from releasegate.render.html import render_html

    return render_html(report, **options).encode("utf-8")


def _pdf(report: Report, **options) -> bytes:
    from releasegate.render.pdf import render_pdf

    return render_pdf(report, **options)


RENDERERS: dict[str, Callable[..., bytes]] = {".md": _markdown, ".json": _json, ".html": _html, ".pdf": _pdf}


def check_output_paths(paths: list[Path]) -> None:
    """Refuse unknown suffixes and missing directories before any work is done."""
    seen = set()
    for path in paths:
        suffix = path.suffix.lower()
        if suffix not in RENDERERS:
            raise InputError(f"cannot tell the output format of {path}: use one of {', '.join(SUFFIXES)}")
        parent = path.parent if str(path.parent) else Path(".")
        if not parent.is_dir():
            raise InputError(f"output directory does not exist: {parent} (for {path})")
        if path.is_dir():
            raise InputError(f"output path is a directory: {path}")
        resolved = path.resolve()
        if resolved in seen:
            raise InputError(f"output {path} is given twice")
        seen.add(resolved)


def _drawn(paths: list[Path]) -> bool:
    return any(path.suffix.lower() in CHARTED for path in paths)


@contextlib.contextmanager
def rendering(paths: list[Path]) -> Iterator[Charts | None]:
    """Around a command: start early what its outputs need and can prepare beside loading and analysis (a
    chart worker process for HTML and PDF, render/chart_worker.py), and stop it if the command ends first.
    Yields the command's chart owner (None when no output has charts), for :func:`write_reports`."""
    from releasegate.render.chart_worker import Charts

    charts = Charts(start_worker=True) if _drawn(paths) else None
    try:
        yield charts
    finally:
        if charts is not None:
            charts.close()


def render(report: Report, suffix: str, charts: Charts | None = None, **options) -> bytes:
    """The bytes of one output format (``.md``, ``.json``, ``.html``, ``.pdf``)."""
    if isinstance(report, MetricsReport):  # several metrics: the grid and each metric's note
        from releasegate.render.metrics import render_metrics

        return render_metrics(report, suffix)
    renderer = RENDERERS[suffix.lower()]
    if suffix.lower() in CHARTED:
        return renderer(report, charts=charts, **options)
    return renderer(report)


def write_reports(report: Report, paths: list[Path], charts: Charts | None = None, **options) -> None:
    """Render every output in memory, then write each to a temporary file beside it and rename it into place.

    A failure while rendering writes nothing; an existing report is replaced only by a complete new one.
    ``charts`` is the command's chart owner from :func:`rendering` (without one they are drawn in process).
    """
    check_output_paths(paths)
    if _drawn(paths) and not isinstance(report, MetricsReport):
        if charts is None:
            from releasegate.render.chart_worker import Charts

            charts = Charts()
        charts.ask(report)  # drawn beside the other outputs and the imports they need
    rendered = [(path, render(report, path.suffix, charts, **options)) for path in paths]
    from releasegate.render.atomic import write_files_atomically

    write_files_atomically(rendered)
