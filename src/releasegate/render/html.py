"""HTML release note: one self-contained file (inline CSS, charts as inline SVG, no network, no script needed).

The same HTML feeds the PDF (render/pdf.py), so the print stylesheet lives in the same CSS. With
``interactive=True`` one inline Vega bundle redraws the charts with tooltips; the static SVG stays in the page
for readers with scripts blocked.

One metric: its note (report.html). Several: page one holds each candidate's combined verdict, its headline
naming the blocking metric(s), and the candidate x metric grid (render/grid.py); then each metric has its own
section, that metric's note rendered through the same partials with the ids of its section (``metric-N-``);
provenance once at the end (metrics.html). The lists are bounded as one note's are (render/html_limits.py), the
limits shared among the metrics, so three metrics lay out about as many rows as one.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from markupsafe import Markup

from releasegate import fmt
from releasegate.model import CandidateVerdict, Decision, MetricSection, Provenance, Report
from releasegate.provenance import package_versions
from releasegate.render.chart_url import CHART_URL
from releasegate.render.chart_worker import Charts, metric_anchor
from releasegate.render.columns import case_columns
from releasegate.render.console import excluded_inputs
from releasegate.render.context import build_context
from releasegate.render.explorer_page import (
    MAX_NOTE_BYTES,
    MIN_DATA_BYTES,
    ExplorerView,
    explorer_view,
    script_source,
)
from releasegate.render.filters import environment
from releasegate.render.grid import GridCell, grid, section_provenance, worst_first
from releasegate.render.html_limits import (
    MAX_CASE_ROWS,
    MAX_CATEGORY_ROWS,
    MAX_DETAILED_CANDIDATES,
    MAX_SUMMARY_ROWS,
    limit_context,
    shared_limits,
)
from releasegate.render.views import ChartView, NoteView, PageView, fields_of

if TYPE_CHECKING:
    from releasegate.render.chart_look import Chart

RENDER_PACKAGES = ("altair", "vl-convert-python", "weasyprint")
CSP_STATIC = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:"
# Vega compiles its expressions with Function(): the interactive page needs 'unsafe-eval' for its own script.
CSP_INTERACTIVE = CSP_STATIC + "; script-src 'unsafe-inline' 'unsafe-eval'"


def page_csp(interactive: bool, explorer: ExplorerView | None) -> str:
    """The page's policy: no script at all, the case explorer's one script by its hash, or (interactive charts)
    the inline scripts Vega needs, the explorer's among them."""
    if interactive:
        return CSP_INTERACTIVE
    return CSP_STATIC if explorer is None else f"{CSP_STATIC}; script-src {script_source()}"


def render_html(report: Report, paper: str = "A4", pdf_variant: str | None = None,
                interactive: bool = False, *, charts: Charts | None = None, pdf_page: bool = False,
                appendix: bool = False) -> str:
    """Render the HTML release note (SPEC section 6). ``paper`` and ``pdf_variant`` only matter to the PDF
    and are accepted so that one set of options serves every output. ``charts`` is the command's chart owner
    (render.rendering); without one they are drawn here. ``pdf_page``: the page the PDF is typeset from, each
    chart an ``<img>`` of its name (render/chart_url.py) taken before it is drawn (the PDF's fetcher,
    render/chart_fetcher.py, waits for the SVG only when WeasyPrint reaches the image, after parsing the page
    and its styles), and the fixed cases listed without their answers (paper keeps the broken cases' answers;
    the fixed cases' are in the HTML and the JSON). ``appendix``: the PDF's page ends with every case listing in
    full (the paper's own lists are compact: the broken cases without their answers)."""
    owner = charts or Charts()
    drawn = owner.plan(report) if pdf_page else owner.get(report)
    # The case explorer is the screen's: paper (and so the PDF) keeps the case lists alone.
    explorer = None if pdf_page else explorer_view(report)
    html = _page(report, drawn, explorer, interactive=interactive, pdf_page=pdf_page, appendix=appendix)
    size = len(html.encode("utf-8"))
    if explorer is not None and size > MAX_NOTE_BYTES:
        # The rest of the note (many candidates' case tables) left the explorer less room than its own limit.
        room = MAX_NOTE_BYTES - (size - len(explorer.data)) - 64 * 1024
        explorer = explorer_view(report, max_data_bytes=max(room, MIN_DATA_BYTES))
        html = _page(report, drawn, explorer, interactive=interactive, pdf_page=pdf_page, appendix=appendix)
    return html


def _page(report: Report, drawn: Any, explorer: ExplorerView | None, *, interactive: bool, pdf_page: bool,
          appendix: bool) -> str:
    if report.several:
        return _metrics_page(report, drawn, interactive=interactive, pdf_page=pdf_page, appendix=appendix,
                             explorer=explorer)
    note, page = page_context(report.sections[0], report.provenance, drawn[0], interactive=interactive,
                              pdf_page=pdf_page, appendix=appendix)
    page = dataclasses.replace(page, explorer=explorer, csp=page_csp(interactive, explorer))
    return environment("html").get_template("report.html").render(fields_of(note, page))


PAGE_LIMITS = (MAX_CASE_ROWS, MAX_CATEGORY_ROWS, MAX_DETAILED_CANDIDATES)


def page_context(section: MetricSection, provenance: Provenance, drawn_charts: Any, *, interactive: bool = False,
                 pdf_page: bool = False, anchor: str = "", metric: str = "",
                 limits: tuple[int, int, int] = PAGE_LIMITS, appendix: bool = False) -> tuple[NoteView, PageView]:
    """What the note's templates read for one metric's section: the note's view, and what the page adds.
    ``drawn_charts`` is that section's entry of :meth:`Charts.get`'s answer (with ``pdf_page``,
    :meth:`Charts.plan`'s: named, not yet drawn); ``anchor`` starts every id of the note's sections and the names
    of its charts (drawn with that prefix: each metric's section of a several-metric page has its own);
    ``limits`` are the case rows, category rows and detailed candidates shown (render/html_limits.py)."""
    case_limit, category_limit, max_candidates = limits
    # Long lists are cut with a count (render/html_limits.py); the JSON keeps every row.
    note = limit_context(build_context(section, provenance, case_limit=case_limit, category_limit=category_limit,
                                       typographic=True), max_candidates)
    drawn, drawn_costs = drawn_charts
    page = PageView(
        # Keyed by the chart's own name, which the templates look up; its id on the page keeps the anchor.
        charts={c.name.removeprefix(anchor): _chart_view(c, pdf_page) for c in drawn},
        # The cost section's charts (render/charts_costs.py), each with its kind.
        cost_charts=[_chart_view(c, pdf_page, kind) for kind, c in drawn_costs],
        interactive=interactive,
        vega_bundle=Markup(_script_safe(_cached_bundle())) if interactive else None,
        chart_specs={c.name: c.spec for c in (*drawn, *(c for _, c in drawn_costs))} if interactive else {},
        csp=CSP_INTERACTIVE if interactive else CSP_STATIC,
        subject=" ".join(v.headline for v in section.verdicts),
        renderers=package_versions(RENDER_PACKAGES),
        case_columns=case_columns,
        anchor=anchor,
        pdf_page=pdf_page,
        metric=metric,
        appendix=appendix and pdf_page,
    )
    return note, page


def chart_contexts(report: Report) -> list[list[ChartView]]:
    """Every chart of each metric's section (the overall and category charts, then the cost charts) as inline
    SVG: for the notebook view (render/notebook.py)."""
    return [[_chart_view(c) for c in (*drawn, *(c for _, c in drawn_costs))]
            for drawn, drawn_costs in Charts().get(report)]


def _chart_view(chart: Chart, as_link: bool = False, kind: str = "") -> ChartView:
    # vl-convert writes well-formed SVG with every data string XML-escaped: safe to place as markup.
    # As a link (the PDF's page): WeasyPrint parses an inline SVG as HTML and cascades its stylesheet over every
    # element; an image goes to its own SVG loader instead (about 0.3 s less on the example), and stays vector,
    # text included. Named, so that the page exists before the chart does.
    image = Markup('<img src="{}{}" alt="{}">').format(CHART_URL, chart.name, chart.title) if as_link else None
    return ChartView(chart.name, chart.title, chart.caption, Markup(chart.svg), image, kind)


@functools.cache
def _cached_bundle() -> str:
    from releasegate.render.charts import vega_bundle

    return vega_bundle()


def _script_safe(code: str) -> str:
    # Text inside <script> ends at "</script" and changes state at "<!--": neither may appear literally.
    code = re.sub(r"</(script)", r"<\\/\1", code, flags=re.IGNORECASE)
    return code.replace("<!--", "<\\!--")


# --------------------------------------------------------------------------------------------------------
# several metrics: the grid on page one, then one section per metric


def _metrics_page(report: Report, drawn: Any, *, interactive: bool, pdf_page: bool, appendix: bool = False,
                  explorer: ExplorerView | None = None) -> str:
    env = environment("html")
    limits = shared_limits(len(report.sections))
    sections, views = [], []
    for i, (section, metric_charts) in enumerate(zip(report.sections, drawn)):
        note, page = page_context(section, section_provenance(report, i), metric_charts, interactive=interactive,
                                  pdf_page=pdf_page, anchor=metric_anchor(report, i), metric=section.metric,
                                  limits=limits, appendix=appendix)
        views.append((note, page))
        sections.append(Markup(env.get_template("partials/metric.html").render(fields_of(note, page))))
    prov = report.provenance
    first_note, first_page = views[0]  # the first metric's views serve the page's head, foot and provenance
    page = dataclasses.replace(first_page, anchor="", metric="", explorer=explorer,
                               csp=page_csp(interactive, explorer),
                               subject=" ".join(v.headline for v in report.verdicts),
                               chart_specs={name: spec for _, p in views for name, spec in p.chart_specs.items()})
    # One provenance for the page: the metrics share inputs, command and packages; the policy names them all.
    # Its inputs' exclusions are every metric's, each said once (Report.excluded).
    note = dataclasses.replace(first_note, title=prov.title, excluded=excluded_inputs(report),
                               provenance=dataclasses.replace(prov, policy={**prov.policy,
                                                                            "metric": list(report.metrics)}))
    return env.get_template("metrics.html").render(fields_of(note, page, _page_figures(report), sections=sections,
                                                             several_metrics=list(report.metrics),
                                                             verdicts=list(report.verdicts)))


@dataclass(frozen=True)
class MetricLink:
    name: str
    anchor: str


@dataclass(frozen=True)
class Card:
    """A candidate's box on page one: its combined verdict, the headline's reason and the blocking metrics."""

    name: str
    verdict: CandidateVerdict
    because: str
    blocking: list[MetricLink]


@dataclass(frozen=True)
class GridCellView:
    decision: Decision
    diff: str
    interval: str
    rules: list[str]


@dataclass(frozen=True)
class GridRowView:
    name: str
    verdict: CandidateVerdict
    cells: list[GridCellView]


@dataclass(frozen=True)
class GridPage:
    """Page one of a several-metric note: the boxes and the grid, each cut (worst first) to what a page lays out."""

    cards: list[Card]
    cards_cut: int
    grid_rows: list[GridRowView]
    grid_cut: int
    metric_links: list[MetricLink]


def _figure(cell: GridCell) -> tuple[str, str]:
    """The difference and its interval as the Markdown's grid writes them (templates/grid.md)."""
    if cell.binary:
        return f"{fmt.points(cell.diff)} points", fmt.interval_points(cell.ci_low, cell.ci_high)
    return fmt.signed(cell.diff), fmt.interval_signed(cell.ci_low, cell.ci_high)


def _page_figures(report: Report) -> GridPage:
    rows = grid(report)
    links = [MetricLink(m, metric_anchor(report, i)) for i, m in enumerate(report.metrics)]
    worst = sorted(rows, key=worst_first)
    shown_cards = {row.name for row in worst[:MAX_DETAILED_CANDIDATES]}
    shown_rows = {row.name for row in worst[:MAX_SUMMARY_ROWS]}
    cards = [Card(row.name, row.verdict, row.verdict.because,
                  [link for link in links if link.name in row.verdict.blocking])
             for row in rows if row.name in shown_cards]
    grid_rows = [GridRowView(row.name, row.verdict, [GridCellView(c.decision, *_figure(c), list(c.rules_fired))
                                                     for c in row.cells])
                 for row in rows if row.name in shown_rows]
    return GridPage(cards, len(rows) - len(cards), grid_rows, len(rows) - len(grid_rows), links)
