"""`report --archive DIR`: the note's JSON and its PDF/A-3b (the same JSON attached) in a new dated folder of DIR.

The folder is named ``YYYY-MM-DDTHHMMSSZ-TITLE`` from the note's time of generation (UTC; SOURCE_DATE_EPOCH when
set) and its title made safe for a file name (letters, digits, ``.``, ``_`` and ``-``; at most 60 characters),
so that a listing of DIR sorts by time; a second note of the same second and title gets ``-2``, then ``-3``.
It holds ``note.json`` and ``note.pdf``; nothing in DIR is ever replaced. `releasegate history DIR` and
`releasegate verify DIR/<folder>/note.json` read it back (docs/audit.md).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from releasegate.errors import InputError

FILES = ("note.json", "note.pdf")
ARCHIVE_PDF_VARIANT = "pdf/a-3b"  # the variant that carries the JSON: what verify and history read
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def check_archive(directory: Path) -> None:
    """Before any work: DIR is a folder, or can be made as one in a folder that exists, and can be written."""
    directory = Path(directory)
    if directory.exists() and not directory.is_dir():
        raise InputError(f"--archive {directory}: not a directory")
    parent = directory.parent if str(directory.parent) else Path(".")
    if not directory.exists() and not parent.is_dir():
        raise InputError(f"--archive {directory}: its parent folder {parent} does not exist")
    from releasegate.render.output_guard import check_writable

    check_writable(directory if directory.exists() else parent, f"--archive {directory}")


def folder_name(generated_at: str, title: str) -> str:
    """The dated folder's name: ``2026-11-30T005320Z-bank-assistant`` (see the module docstring)."""
    moment = re.sub(r"[^0-9TZ-]", "", generated_at.replace(":", ""))  # 2026-11-30T00:53:20Z -> ...T005320Z
    slug = _UNSAFE.sub("-", title).strip("-.")[:60].strip("-.") or "note"
    return f"{moment}-{slug}"


def _provenance(report: Any):
    # A several-metric report keeps a provenance per metric (titled "TITLE: METRIC"); they share the time.
    return report.provenance if hasattr(report, "provenance") else report.reports[0].provenance


def _new_folder(directory: Path, name: str) -> Path:
    directory.mkdir(exist_ok=True)
    for n in range(1, 1000):
        folder = directory / (name if n == 1 else f"{name}-{n}")
        try:
            folder.mkdir()
            return folder
        except FileExistsError:
            continue
    raise InputError(f"--archive {directory}: 999 folders named {name} already; archive elsewhere")


def write_archived(report: Any, paths: list[Path], directory: Path, charts: Any = None, **options: Any) -> list[Path]:
    """Write the ``-o`` outputs and the archive's note.json and note.pdf (PDF/A-3b), all or none; returns the
    archive's files (the note, its case file if it has one, the PDF). ``options`` are the outputs' rendering options (paper, pdf_variant, interactive); the
    archive's PDF takes the paper size and is always PDF/A-3b."""
    from releasegate.render import COMMENT, check_output_paths, output_files, render
    from releasegate.render.atomic import write_files_atomically
    from releasegate.render.chart_worker import Charts

    comment, comment_link = options.pop("comment", None), options.pop("comment_link", None)  # report --comment
    directory = Path(directory)
    check_archive(directory)
    check_output_paths(paths, comment)
    charts = charts or Charts()
    charts.ask(report)
    cache: dict[tuple[str, Any], bytes] = {}

    def rendered(suffix: str, **given: Any) -> bytes:
        key = (suffix.lower(), given.get("pdf_variant") if suffix.lower() == ".pdf" else None)
        if key not in cache:
            cache[key] = render(report, suffix, charts, **given)
        return cache[key]

    outputs: list[tuple[Path, bytes]] = []
    for path in paths:  # a JSON note with its case file, if it has one (render/json_cases.py)
        outputs += output_files(report, path) if path.suffix.lower() == ".json" else [
            (path, rendered(path.suffix, **options))]
    if comment is not None:
        outputs.append((comment, COMMENT.render(report, comment_link)))
    pdf = rendered(".pdf", **{**options, "pdf_variant": ARCHIVE_PDF_VARIANT})
    provenance = _provenance(report)
    title = provenance.title
    metrics = getattr(report, "metrics", ())
    if metrics and title.endswith(f": {metrics[0]}"):  # the note's title, not its first metric's
        title = title[: -len(f": {metrics[0]}")]
    try:
        folder = _new_folder(directory, folder_name(provenance.generated_at, title))
    except OSError as exc:
        raise InputError(f"--archive {directory}: cannot make a folder in it: {exc.strerror or exc}") from None
    # The note and, past the bound of its listings, its case file (render/json_cases.py), then the PDF.
    archived = [*output_files(report, folder / FILES[0]), (folder / FILES[1], pdf)]
    files = [path for path, _ in archived]
    try:
        write_files_atomically([*outputs, *archived])
    except BaseException:
        if folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()  # nothing was written: no empty dated folder left to mislead `history`
        raise
    return files
