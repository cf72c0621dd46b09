"""The PDF's page typeset by WeasyPrint: HTML text and print options in, PDF bytes out.

Run in the typesetting worker (render/typeset_worker.py), or in process when there is none; the bytes are the
same either way. Plain inputs only (text, a paper size, the attachment's text and date), so that they cross a
pipe. Imports WeasyPrint: imported only where a PDF is made.
"""

from __future__ import annotations

import gc
from collections.abc import Callable

import weasyprint
from weasyprint.urls import FatalURLFetchingError

from releasegate.render.chart_fetcher import ChartFetcher, unwrap
from releasegate.render.print_options import PrintOptions


def typeset(page_html: str, options: PrintOptions, svgs: Callable[[], dict[str, str]]) -> bytes:
    """The PDF of ``page_html``; its charts (named, render/chart_url.py) come from ``svgs()`` when reached."""
    fetcher = ChartFetcher(svgs)
    html = weasyprint.HTML(string=page_html, url_fetcher=fetcher, base_url=None)
    page = weasyprint.CSS(string=f"@page {{ size: {options.size}; }}", url_fetcher=fetcher)
    write: dict = {"stylesheets": [page], "pdf_identifier": False}
    if options.pdf_variant:
        write["pdf_variant"] = options.pdf_variant
        write["attachments"] = [weasyprint.Attachment(
            string=options.attachment, name="analysis.json", url_fetcher=fetcher,
            description="releasegate analysis, verdicts and provenance (JSON)",
            created=options.created, modified=options.created, relationship="Source")]
    # Typesetting allocates enough to set off full garbage collections, each walking every object alive though
    # none of them is garbage; frozen, they are skipped (render/pdf.py).
    gc.freeze()
    try:
        return html.write_pdf(**write)
    except FatalURLFetchingError as exc:
        raise unwrap(exc) from None  # the chart's own error (a drawing failure), not WeasyPrint's wrapper
