"""The case explorer as the HTML page carries it: its rows as data, its script and style inline, and the
Content-Security-Policy source that lets that one script run.

The rows (render/explorer.py) are JSON in a ``<script type="application/json">``, which no browser runs: its
every "<" is written ``\\u003c``, so no text of a case can end the element or open a comment in it. Past
:data:`COMPRESS_ABOVE` bytes the JSON is gzip-compressed and base64-encoded instead
(``type="application/gzip"``), and the script inflates it with the browser's own DecompressionStream (no eval,
no request): a 20,000-case note with 6,000 changed cases holds 11.3 MiB of JSON, 4.0 MiB compressed and in
base64, and the note is 6.0 MiB instead of 13.3 (bench/explorer.py, bench/RESULTS.md). Below it the JSON stays
as text: a smaller note is small either way, and its data reads in the page's source. The script and style are package files (templates/explorer.js, explorer.css);
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
from releasegate.render.explorer import Explorer, build_explorer, explorer_data
from releasegate.render.json_text import dumps_compact
from releasegate.wording.explorer import json_place

MIB = 1024 * 1024
# Bytes of JSON above which the page carries it compressed (measured: bench/explorer.py, bench/RESULTS.md).
COMPRESS_ABOVE = 2 * MIB
# At most this much data in the page, whatever the texts' lengths, and less when the rest of the note leaves
# less room under MAX_NOTE_BYTES (render/html.py measures it): past it the explorer holds fewer rows and says so.
MAX_DATA_BYTES = 16 * MIB
MAX_NOTE_BYTES = 20 * MIB
MIN_DATA_BYTES = 1 * MIB  # however large the rest of the note, the explorer keeps its worst cases
GZIP_LEVEL = 4  # a 12 MB JSON: 0.6 s and 3.0 MB; level 6 takes 2.8 s for 2.75 MB, level 1 0.4 s for 3.35 MB
JSON_TYPE = "application/json"
GZIP_TYPE = "application/gzip"
# Each sort's label: score change puts the largest drop first, latency and cost the largest increase first.
SORTS = (("note", "the note's order"), ("category", "category"), ("score", "largest drop"),
         ("latency", "latency increase"), ("cost", "cost increase"))


@dataclass(frozen=True)
class ExplorerView:
    """What templates/partials/explorer.html places: the lead, the sorts offered, the data and the script."""

    lead: str
    rows: int
    several_metrics: bool  # the metric select is drawn (the script fills every select from the data)
    categories: bool  # the category select is drawn: some row has a category
    json_place: str  # where the JSON report holds every case (wording/explorer.json_place)
    sorts: list[tuple[str, str]]
    data_type: str
    data: Markup
    script: Markup


def explorer_view(report: Report, compress_above: int | None = None,
                  max_data_bytes: int | None = None) -> ExplorerView | None:
    """The explorer of ``report``'s page, its data at most ``max_data_bytes`` (default :data:`MAX_DATA_BYTES`);
    None when it would hold no row (no case listed on any candidate)."""
    limit = COMPRESS_ABOVE if compress_above is None else compress_above
    most = MAX_DATA_BYTES if max_data_bytes is None else max_data_bytes
    explorer = build_explorer(report)
    if not explorer.rows:
        return None
    data_type, data = _packed(explorer, limit)
    while len(data) > most:
        # Fewer rows, in proportion to the excess (the texts' lengths vary: measured, not assumed); each candidate
        # keeps one row at least, so past that there is nothing left to take.
        fewer = build_explorer(report, max(1, int(len(explorer.rows) * most / len(data) * 0.95)))
        if len(fewer.rows) >= len(explorer.rows):
            break
        explorer = fewer
        data_type, data = _packed(explorer, limit)
    has = {name: any(getattr(r, f"{name}_change") == getattr(r, f"{name}_change") for r in explorer.rows)
           for name in ("latency", "cost")}
    has["category"] = bool(explorer.categories)  # a suite without categories has nothing to filter or sort by
    sorts = [(value, label) for value, label in SORTS if has.get(value, True)]
    return ExplorerView(explorer.lead, len(explorer.rows), len(explorer.metrics) > 1, has["category"],
                        json_place(explorer.case_file), sorts, data_type, data, Markup(script()))


def _packed(explorer: Explorer, compress_above: int) -> tuple[str, Markup]:
    """The data element's type and text: JSON with every "<" escaped, or above ``compress_above`` bytes its
    gzip (no time stamp: the same note gives the same bytes) in base64."""
    text = dumps_compact(explorer_data(explorer)).encode("utf-8")
    if len(text) > compress_above:
        packed = gzip.compress(text, compresslevel=GZIP_LEVEL, mtime=0)
        return GZIP_TYPE, Markup(base64.b64encode(packed).decode("ascii"))
    return JSON_TYPE, Markup(text.decode("utf-8").replace("<", "\\u003c"))


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
