"""Stage 5: Report -> files. Each output's format comes from its suffix; writing is all-or-nothing.

:data:`RENDERERS` is the table of output formats, one row each: the suffix, what it is for, the function that
renders a Report to bytes (its module imported only when that format is written) and whether it draws charts.
The writer, the command line (its -o help and the suffixes it accepts) and the API read this table and
nothing else. This module imports nothing heavy: the command line reads the table at start-up.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from releasegate.errors import InputError, OutputError

if TYPE_CHECKING:  # the model (numpy) and the chart worker are imported by the outputs that need them
    from releasegate.model import Report
    from releasegate.render.chart_worker import Charts


def _html(report: Report, **options: Any) -> bytes:
    from releasegate.render.html import render_html

    return render_html(report, **options).encode("utf-8")


def _markdown(report: Report, **options: Any) -> bytes:
    from releasegate.render.markdown import render_markdown

    return render_markdown(report).encode("utf-8")


def _pdf(report: Report, **options: Any) -> bytes:
    from releasegate.render.pdf import render_pdf

    return render_pdf(report, **options)


def _json(report: Report, **options: Any) -> bytes:
    from releasegate.render.json_out import render_json

    return render_json(report).encode("utf-8")


def _json_files(report: Report, path: Path) -> list[tuple[Path, bytes]]:
    from releasegate.render.json_cases import json_files
    from releasegate.render.json_out import render_json

    return json_files(report, path, render_json)


def _text(report: Report, **options: Any) -> bytes:
    from releasegate.render.summary import render_plain_text

    return render_plain_text(report).encode("utf-8")


def _comment(report: Report, link: str | None = None, **options: Any) -> bytes:
    from releasegate.render.comment import render_comment

    return render_comment(report, link).encode("utf-8")


@dataclass(frozen=True)
class Renderer:
    """One output format: ``render(report, **options: Any) -> bytes``; a ``charted`` one also takes ``charts=``
    (the command's chart owner) and the options (paper, pdf_variant, interactive)."""

    suffix: str
    use: str
    render: Callable[..., bytes]
    charted: bool = False
    # The files written for an output at a path, when there may be more than one (the JSON note and, past a
    # bound, its case file: render/json_cases.py); None, the output alone.
    files: Callable[[Report, Path], list[tuple[Path, bytes]]] | None = None


RENDERERS: dict[str, Renderer] = {r.suffix: r for r in (
    Renderer(".html", "one self-contained page", _html, charted=True),
    Renderer(".md", "a pull-request comment", _markdown),
    Renderer(".pdf", "A4 or Letter", _pdf, charted=True),
    Renderer(".json", "every figure, for machines and audits", _json, files=_json_files),
    Renderer(".txt", "each verdict in plain words, a line per candidate", _text),
)}
SUFFIXES = tuple(RENDERERS)
# The pull-request comment (--comment FILE): not a format of -o (it is Markdown, as .md is), but a short note of
# its own whatever the file's name.
COMMENT = Renderer(".md", "the pull-request comment: verdicts, reasons in plain words, the worst cases", _comment)
CHARTED = tuple(r.suffix for r in RENDERERS.values() if r.charted)  # the outputs that draw charts


def formats_help() -> str:
    """The formats as the command line's -o help lists them: ".html (one self-contained page), .md (...)"."""
    return ", ".join(f"{r.suffix} ({r.use})" for r in RENDERERS.values())


def check_output_paths(paths: list[Path], comment: Path | None = None) -> None:
    """Refuse unknown suffixes, missing or unwritable folders and directories (a JSON note's case file too)
    before any work is done (``comment``: the --comment file, whatever its suffix)."""
    from releasegate.render.output_guard import check_output_places

    for path in paths:
        if path.suffix.lower() not in RENDERERS:
            raise InputError(f"cannot tell the output format of {path}: use one of {', '.join(SUFFIXES)}")
    check_output_places([*paths, *([comment] if comment is not None else [])])
    named = {path.resolve() for path in [*paths, *([comment] if comment is not None else [])]}
    for companion in companion_paths(paths):  # written beside a note past a bound: refused now, not at the end
        if companion.is_dir():
            raise OutputError(f"output path is a directory: {companion} (the case file a JSON note may write)")
        if companion.resolve() in named:
            raise OutputError(f"output {companion} is given twice (also the case file a JSON note may write)")


def _drawn(paths: list[Path]) -> bool:
    return any(path.suffix.lower() in CHARTED for path in paths)


@contextlib.contextmanager
def rendering(paths: list[Path]) -> Iterator[Charts | None]:
    """Around a command: start early what its outputs need and can prepare beside loading and analysis (a
    chart worker process for HTML and PDF, render/chart_worker.py), and stop it if the command ends first.
    Yields the command's chart owner (None when no output has charts), for :func:`write_reports`."""
    charts = None
    if _drawn(paths):
        from releasegate.render.chart_worker import Charts

        charts = Charts(start_worker=True)
    try:
        yield charts
    finally:
        if charts is not None:
            charts.close()


def render(report: Report, suffix: str, charts: Charts | None = None, **options: Any) -> bytes:
    """The bytes of one output format (a suffix of :data:`RENDERERS`)."""
    renderer = RENDERERS[suffix.lower()]
    if renderer.charted:
        return renderer.render(report, charts=charts, **options)
    return renderer.render(report)


def output_files(report: Report, path: Path, charts: Charts | None = None, **options: Any) -> list[tuple[Path, bytes]]:
    """The files the output ``path`` is made of (path, bytes): itself, and a JSON note's case file past a bound."""
    renderer = RENDERERS[path.suffix.lower()]
    if renderer.files is not None:
        return renderer.files(report, path)
    return [(path, render(report, path.suffix, charts, **options))]


def companion_paths(paths: list[Path]) -> list[Path]:
    """The files an output may write beside itself (a JSON note's case file), which no input may be."""
    from releasegate.render.json_cases import case_file_path

    return [case_file_path(path) for path in paths if path.suffix.lower() == ".json"]


def write_reports(report: Report, paths: list[Path], charts: Charts | None = None, *, comment: Path | None = None,
                  comment_link: str | None = None, **options: Any) -> None:
    """Render every output in memory, then write each to a temporary file beside it and rename it into place.

    A failure while rendering writes nothing; an existing report is replaced only by a complete new one.
    ``charts`` is the command's chart owner from :func:`rendering` (without one they are drawn in process);
    ``comment`` the pull-request comment's file (``comment_link``: where the full note is).
    """
    check_output_paths(paths, comment)
    if _drawn(paths):
        if charts is None:
            from releasegate.render.chart_worker import Charts

            charts = Charts()
        charts.ask(report)  # drawn beside the other outputs and the imports they need
    rendered = [one for path in paths for one in output_files(report, path, charts, **options)]
    if comment is not None:
        rendered.append((comment, COMMENT.render(report, comment_link)))
    from releasegate.render.atomic import write_files_atomically

    write_files_atomically(rendered)
