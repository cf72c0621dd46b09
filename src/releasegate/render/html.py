"""HTML release note: one self-contained file (inline CSS, charts as inline SVG, no network, no script needed).

The same HTML feeds the PDF (render/pdf.py), so the print stylesheet lives in the same CSS. With
``interactive=True`` one inline Vega bundle redraws the charts with tooltips; the static SVG stays in the page
for readers with scripts blocked.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from markupsafe import Markup

from releasegate.model import Report
from releasegate.provenance import package_versions
from releasegate.render.chart_url import CHART_URL
from releasegate.render.chart_worker import Charts
from releasegate.render.columns import case_columns
from releasegate.render.context import build_context
from releasegate.render.filters import environment
from releasegate.render.html_limits import (
    MAX_CASE_ROWS,
    MAX_CATEGORY_ROWS,
    MAX_DETAILED_CANDIDATES,
    limit_context,
)

RENDER_PACKAGES = ("altair", "vl-convert-python", "weasyprint")
CSP_STATIC = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:"
# Vega compiles its expressions with Function(): the interactive page needs 'unsafe-eval' for its own script.
CSP_INTERACTIVE = CSP_STATIC + "; script-src 'unsafe-inline' 'unsafe-eval'"


def render_html(report: Report, paper: str = "A4", pdf_variant: str | None = None,
                interactive: bool = False, *, charts: Charts | None = None, pdf_page: bool = False) -> str:
    """Render the HTML release note (SPEC section 6). ``paper`` and ``pdf_variant`` only matter to the PDF
    and are accepted so that one set of options serves every output. ``charts`` is the command's chart owner
    (render.rendering); without one they are drawn here. ``pdf_page``: the page the PDF is typeset from, each
    chart an ``<img>`` of its name (render/chart_url.py) taken before it is drawn (the PDF's fetcher,
    render/chart_fetcher.py, waits for the SVG only when WeasyPrint reaches the image, after parsing the page
    and its styles), and the fixed cases listed without their answers (paper keeps the broken cases' answers;
    the fixed cases' are in the HTML and the JSON)."""
    owner = charts or Charts()
    context = page_context(report, owner.plan(report) if pdf_page else owner.get(report),
                           interactive=interactive, pdf_page=pdf_page)
    return environment("html").get_template("report.html").render(context)


PAGE_LIMITS = (MAX_CASE_ROWS, MAX_CATEGORY_ROWS, MAX_DETAILED_CANDIDATES)


def page_context(report: Report, drawn_charts, *, interactive: bool = False, pdf_page: bool = False,
                 anchor: str = "", limits: tuple[int, int, int] = PAGE_LIMITS) -> dict[str, Any]:
    """What the note's templates read for one report. ``drawn_charts`` is :meth:`Charts.get`'s answer (with
    ``pdf_page``, :meth:`Charts.plan`'s: named, not yet drawn);
    ``anchor`` starts every id of the note's sections and the names of its charts (drawn with that prefix:
    render/metrics_html.py gives each metric's section its own); ``limits`` are the case rows, category rows and
    detailed candidates shown (render/html_limits.py)."""
    case_limit, category_limit, max_candidates = limits
    # Long lists are cut with a count (render/html_limits.py); the JSON keeps every row.
    context = limit_context(build_context(report, case_limit=case_limit, category_limit=category_limit,
                                          typographic=True), max_candidates)
    drawn, drawn_costs = drawn_charts
    context.update({
        # Keyed by the chart's own name, which the templates look up; its id on the page keeps the anchor.
        "charts": {c.name.removeprefix(anchor): _chart_context(c) for c in drawn},
        # The cost section's contract (render/charts_costs.py): a list of {"title", "svg"}, plus the anchor.
        "cost_charts": [{**_chart_context(c), "kind": kind} for kind, c in drawn_costs],
        "interactive": interactive,
        "vega_bundle": Markup(_script_safe(_cached_bundle())) if interactive else None,
        "chart_specs": {c.name: c.spec for c in (*drawn, *(c for _, c in drawn_costs))} if interactive else {},
        "csp": CSP_INTERACTIVE if interactive else CSP_STATIC,
        "subject": " ".join(v.headline for v in report.verdicts),
        "renderers": package_versions(RENDER_PACKAGES),
        "case_columns": case_columns,
        "anchor": anchor,  # the ids' prefix: empty on a single-metric page
        "pdf_page": pdf_page,
    })
    if pdf_page:
        _as_links([*context["charts"].values(), *context["cost_charts"]])
    return context


def chart_contexts(report: Report) -> list[dict[str, Any]]:
    """Every chart of the report (the overall and category charts, then the cost charts) as inline SVG: for the
    notebook view (api.ReleaseComparison._repr_html_)."""
    drawn, drawn_costs = Charts().get(report)
    return [_chart_context(c) for c in (*drawn, *(c for _, c in drawn_costs))]


def _chart_context(chart) -> dict[str, Any]:
    # vl-convert writes well-formed SVG with every data string XML-escaped: safe to place as markup.
    return {"name": chart.name, "title": chart.title, "caption": chart.caption, "svg": Markup(chart.svg)}


def _as_links(charts: list[dict[str, Any]]) -> None:
    # WeasyPrint parses an inline SVG as HTML and cascades its stylesheet over every element; an image goes to
    # its own SVG loader instead (about 0.3 s less on the example), and stays vector, text included. Named, so
    # that the page exists before the chart does.
    for chart in charts:
        chart["image"] = Markup('<img src="{}{}" alt="{}">').format(CHART_URL, chart["name"], chart["title"])


@functools.cache
def _cached_bundle() -> str:
    from releasegate.render.charts import vega_bundle

    return vega_bundle()


def _script_safe(code: str) -> str:
    # Text inside <script> ends at "</script" and changes state at "<!--": neither may appear literally.
    code = re.sub(r"</(script)", r"<\\/\1", code, flags=re.IGNORECASE)
    return code.replace("<!--", "<\\!--")
