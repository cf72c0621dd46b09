"""PDF release note: the HTML note typeset by WeasyPrint with its print stylesheet.

Reproducible: the same report gives the same bytes. The dates come from the report's generation time
(``dcterms.created``, which honours SOURCE_DATE_EPOCH), fonts are subset by HarfBuzz (libharfbuzz-subset0;
without it fontTools stamps the current time into each font), and the file identifier is a hash of the content.
No network: the URL fetcher accepts only ``data:`` URLs and the page's own chart names
(render/chart_fetcher.py). ``pdf_variant="pdf/a-3b"`` is the audit variant, with
the JSON analysis attached (``pdfdetach -list`` shows it).
"""

from __future__ import annotations

import datetime as _dt
import gc
from typing import Any

from releasegate.errors import InputError
from releasegate.model import Report
from releasegate.render.chart_worker import Charts

PAPERS = {"a4": "A4", "letter": "Letter"}
VARIANTS = ("pdf/a-3b",)


def render_pdf(report: Report, paper: str = "A4", pdf_variant: str | None = None,
               interactive: bool = False, *, charts: Charts | None = None, appendix: bool = False) -> bytes:
    """Render the PDF (SPEC section 6) from :func:`releasegate.render.html.render_html`'s page with WeasyPrint.
    ``interactive`` is accepted and ignored: a PDF runs no scripts. ``appendix``: every case listing in full
    at the end (without it the paper lists the broken cases without their answers)."""
    size = PAPERS.get(str(paper).lower())
    if size is None:
        raise InputError(f"unknown paper size {paper!r}: use A4 or Letter")
    if pdf_variant is not None and pdf_variant not in VARIANTS:
        raise InputError(f"unknown PDF variant {pdf_variant!r}: use {', '.join(VARIANTS)}")
    # Importing WeasyPrint and typesetting allocate enough to set off full garbage collections, and each walks
    # every object alive (some 150,000 in the CLI: modules, data, report) though none of them is garbage.
    # Frozen, they are skipped: 0.25 s of full collections became 0.02 s on the example.
    gc.freeze()
    try:
        return _typeset(report, size, pdf_variant, charts or Charts(), appendix)
    finally:
        gc.unfreeze()


def _typeset(report: Report, size: str, pdf_variant: str | None, charts: Charts, appendix: bool = False) -> bytes:
    charts.ask(report)  # the chart worker draws while WeasyPrint is imported and the page parsed and styled
    import weasyprint
    from weasyprint.urls import FatalURLFetchingError

    from releasegate.render.chart_fetcher import ChartFetcher, unwrap

    fetcher = ChartFetcher(lambda: _svgs(charts, report))
    # Charts as SVG images (WeasyPrint's own SVG loader, still vector) rather than inline SVG in the page, named
    # rather than carried: the page is written, parsed and styled while they are drawn (render/chart_fetcher.py).
    page_html = _page(report, charts, appendix)
    html = weasyprint.HTML(string=page_html, url_fetcher=fetcher, base_url=None)
    page = weasyprint.CSS(string=f"@page {{ size: {size}; }}", url_fetcher=fetcher)
    options: dict[str, Any] = {"stylesheets": [page], "pdf_identifier": False}
    if pdf_variant:
        created = _generated(report)
        options["pdf_variant"] = pdf_variant
        options["attachments"] = [weasyprint.Attachment(
            string=_analysis_json(report), name="analysis.json", url_fetcher=fetcher,
            description="releasegate analysis, verdicts and provenance (JSON)",
            created=created, modified=created, relationship="Source")]
    gc.freeze()  # again, with WeasyPrint's modules and the page now alive too
    try:
        return html.write_pdf(**options)
    except FatalURLFetchingError as exc:
        raise unwrap(exc) from None  # the chart's own error (a drawing failure), not WeasyPrint's wrapper


def _svgs(charts: Charts, report: Report) -> dict[str, str]:
    return {c.name: c.svg for main, costs in charts.get(report) for c in (*main, *(c for _, c in costs))}


def _page(report: Report, charts: Charts, appendix: bool = False) -> str:
    from releasegate.render.html import render_html

    return render_html(report, charts=charts, pdf_page=True, appendix=appendix)


def _analysis_json(report: Report) -> str:
    from releasegate.render.json_out import render_json

    return render_json(report)


def _generated(report: Report) -> _dt.datetime:
    # The report's own time (SOURCE_DATE_EPOCH when set), never "now": attachments carry dates.
    return _dt.datetime.strptime(report.provenance.generated_at, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=_dt.UTC)
