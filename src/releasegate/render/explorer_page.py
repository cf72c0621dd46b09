"""The case explorer as the HTML page carries it: its rows as data, its script and style inline, and the
Content-Security-Policy source that lets that one script run.

The rows (render/explorer.py) are JSON in a ``<script type="application/json">``, which no browser runs: its
every "<" is written ``\\u003c``, so no text of a case can end the element or open a comment in it. Past
:data:`COMPRESS_ABOVE` bytes the JSON is gzip-compressed and base64-encoded instead
(``type="application/gzip"``), and the script inflates it with the browser's own DecompressionStream (no eval,
no request): a 20,000-case note with 6,000 changed cases holds 14 MB of JSON, 2.9 MB compressed
(bench/explorer.py). Below it the JSON stays as text: smaller notes open without the extra step and the data
reads in the page's source. The script and style are package files (templates/explorer.js, explorer.css);
the policy names the script by its SHA-256, so the page still allows no other script, no eval and no request.
"""

from __future__ import annotations

import base64
import functools
import gzip
import hashlib
from dataclasses import dataclass
from importlib.resources import files

from markupsafe import Markup

from releasegate.model import Report
from releasegate.render.explorer import build_explorer, explorer_data
from releasegate.render.json_text import dumps_compact

# Bytes of JSON above which the page carries it compressed (measured: bench/explorer.py, bench/RESULTS.md).
COMPRESS_ABOVE = 2 * 1024 * 1024
JSON_TYPE = "application/json"
GZIP_TYPE = "application/gzip"
SORTS = (("note", "the note's order"), ("category", "category"), ("score", "score change, largest drop first"),
         ("latency", "latency change, largest increase first"), ("cost", "cost change, largest increase first"))


@dataclass(frozen=True)
class ExplorerView:
    """What templates/partials/explorer.html places: the lead, the sorts offered, the data and the script."""

    lead: str
    rows: int
    several_metrics: bool  # the metric select is drawn (the script fills every select from the data)
    sorts: list[tuple[str, str]]
    data_type: str
    data: Markup
    script: Markup


def explorer_view(report: Report, compress_above: int | None = None) -> ExplorerView | None:
    """The explorer of ``report``'s page; None when it would hold no row (no case listed on any candidate)."""
    explorer = build_explorer(report)
    if not explorer.rows:
        return None
    text = dumps_compact(explorer_data(explorer))
    limit = COMPRESS_ABOVE if compress_above is None else compress_above
    if len(text.encode("utf-8")) > limit:
        packed = gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0)
        data_type, data = GZIP_TYPE, Markup(base64.b64encode(packed).decode("ascii"))
    else:
        data_type, data = JSON_TYPE, Markup(text.replace("<", "\\u003c"))
    has = {name: any(getattr(r, f"{name}_change") == getattr(r, f"{name}_change") for r in explorer.rows)
           for name in ("latency", "cost")}
    sorts = [(value, label) for value, label in SORTS if has.get(value, True)]
    return ExplorerView(explorer.lead, len(explorer.rows), len(explorer.metrics) > 1, sorts, data_type, data,
                        Markup(script()))


@functools.cache
def script() -> str:
    """The explorer's script, as the page holds it between ``<script>`` and ``</script>``."""
    text = (files("releasegate") / "templates" / "explorer.js").read_text(encoding="utf-8")
    if "</script" in text.lower() or "<!--" in text:
        raise AssertionError("templates/explorer.js must not hold </script or <!--")
    return text


@functools.cache
def style() -> str:
    return (files("releasegate") / "templates" / "explorer.css").read_text(encoding="utf-8")


def script_source() -> str:
    """The Content-Security-Policy source of the explorer's script: its SHA-256, base64."""
    digest = hashlib.sha256(script().encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode('ascii')}'"
