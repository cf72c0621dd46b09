"""PDF release note: the HTML note typeset by WeasyPrint with its print stylesheet.

Reproducible: the same report gives the same bytes. The dates come from the report's generation time
(``dcterms.created``, which honours SOURCE_DATE_EPOCH), fonts are subset by HarfBuzz (libharfbuzz-subset0;
without it fontTools stamps the current time into each font), and the file identifier is a hash of the content.
No network: the URL fetcher accepts only ``data:`` URLs and the page's own chart names
(render/chart_fetcher.py). Typeset in a worker process started with the command when there is one
(render/typeset_worker.py), else here; the same bytes either way. ``pdf_variant="pdf/a-3b"`` is the audit variant, with
the JSON analysis attached (``pdfdetach -list`` shows it).
"""

from __future__ import annotations

import datetime as _dt
import gc

from releasegate.errors import InputError
from releasegate.model import Report
from releasegate.render.chart_worker import Charts

PAPERS = {"a4": "A4", "letter": "Letter"}
VARIANTS = ("pdf/a-3b",)


def render_pdf(report: Report, paper: str = "A4", pdf_variant: str | None = None,
               interactive: bool = False, *, charts: Charts | None = None) -> bytes:
    """Render the PDF (SPEC section 6) from :func:`releasegate.render.html.render_html`'s output with
    WeasyPrint. ``interactive`` is accepted and ignored: a PDF runs no scripts."""
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
        return _typeset(report, size, pdf_variant, charts or Charts())
    finally:
        gc.unfreeze()


def _typeset(report: Report, size: str, pdf_variant: str | None, charts: Charts) -> bytes:
    from releasegate.render.html import render_html
    from releasegate.render.print_options import PrintOptions
    from releasegate.render.typeset_worker import TypesetterLost

    charts.ask(report)  # the chart worker draws while the page is written, parsed and styled
    attachment = None
    if pdf_variant:
        from releasegate.render.json_out import render_json

        attachment = render_json(report)
    options = PrintOptions(size=size, pdf_variant=pdf_variant, attachment=attachment,
                           created=_generated(report) if pdf_variant else None)
    # Charts as SVG images (WeasyPrint's own SVG loader, still vector) rather than inline SVG in the page, named
    # rather than carried: the page is parsed and styled while they are drawn (render/chart_fetcher.py).
    page_html = render_html(report, charts=charts, pdf_page=True)
    worker = charts.take_typesetter()
    if worker is not None and worker.send(("page", page_html, options)):
        try:
            svgs = _svgs(charts, report)
        except BaseException:
            worker.close(kill=True)  # the charts failed: their error is the command's, the page is not needed
            raise
        worker.send(("charts", svgs))
        try:
            return worker.result()
        except TypesetterLost:
            pass  # the worker is gone without a reply: typeset here, as without one
    elif worker is not None:
        worker.close(kill=True)
    from releasegate.render.typeset import typeset

    return typeset(page_html, options, lambda: _svgs(charts, report))


def _svgs(charts: Charts, report: Report) -> dict[str, str]:
    drawn, drawn_costs = charts.get(report)
    return {c.name: c.svg for c in (*drawn, *(c for _, c in drawn_costs))}


def _generated(report: Report) -> _dt.datetime:
    # The report's own time (SOURCE_DATE_EPOCH when set), never "now": attachments carry dates.
    return _dt.datetime.strptime(report.provenance.generated_at, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=_dt.UTC)
