"""What ``releasegate plan -o`` writes, one format per suffix (the table :data:`PLAN_FORMATS`): the plan's
figures as JSON, its lines as Markdown (a pull request or a wiki) or as a small self-contained HTML page. Every
output is checked before anything is simulated, and all are written or none (render/atomic.py)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from markupsafe import escape

from releasegate.errors import InputError
from releasegate.render.filters import md_escape

TITLE = "releasegate plan"


def _json(lines: list[str], data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2) + "\n"


def _markdown(lines: list[str], data: dict[str, Any]) -> str:
    return f"## {TITLE}\n\n" + "".join(f"- {md_escape(line)}\n" for line in lines)


def _html(lines: list[str], data: dict[str, Any]) -> str:
    items = "".join(f"<li>{escape(line)}</li>\n" for line in lines)
    return ("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{TITLE}</title><style>body{{font-family:system-ui,sans-serif;max-width:50rem;margin:1rem auto;"
            "padding:0 1rem;line-height:1.45}li{margin:0.4rem 0}</style></head>\n"
            f"<body><h1>{TITLE}</h1>\n<ul>\n{items}</ul>\n</body></html>\n")


PLAN_FORMATS: dict[str, tuple[str, Callable[[list[str], dict[str, Any]], str]]] = {
    ".json": ("every figure", _json),
    ".md": ("the plan's lines as Markdown", _markdown),
    ".html": ("the plan's lines as a page", _html),
}


def check_outputs(paths: list[Path], inputs: list[Path | None]) -> None:
    """Refuse before anything is simulated: an unknown suffix, the same file twice, an input, a missing folder."""
    seen: set[Path] = set()
    for path in paths:
        if path.suffix.lower() not in PLAN_FORMATS:
            raise InputError(f"-o {path}: releasegate plan writes {', '.join(PLAN_FORMATS)}; name the file so")
        target = path.resolve()
        if target in seen:
            raise InputError(f"-o {path} is given twice")
        seen.add(target)
        if any(target == p.resolve() for p in inputs if p is not None):
            raise InputError(f"-o {path} is one of the inputs; write the plan elsewhere")
        if not target.parent.is_dir():
            raise InputError(f"-o {path}: folder {path.parent} does not exist")


def write_outputs(paths: list[Path], lines: list[str], data: dict[str, Any], inputs: list[Path | None]) -> None:
    """Every output in its format, all written or none."""
    from releasegate.render.atomic import write_files_atomically

    check_outputs(paths, inputs)
    write_files_atomically([(path, PLAN_FORMATS[path.suffix.lower()][1](lines, data).encode("utf-8"))
                            for path in paths])
