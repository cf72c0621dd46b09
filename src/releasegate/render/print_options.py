"""What typesetting the PDF needs besides its page, as plain values that cross a pipe to the typesetting worker
(render/typeset_worker.py) and reach WeasyPrint (render/typeset.py)."""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass


@dataclass(frozen=True)
class PrintOptions:
    """Paper, PDF variant, and for PDF/A-3b the JSON attached with its date."""

    size: str  # "A4" or "Letter"
    pdf_variant: str | None = None
    attachment: str | None = None  # the JSON analysis (pdf/a-3b)
    created: _dt.datetime | None = None  # the attachment's dates: the report's own time, never "now"
