"""The notebook view of a Report (``ReleaseComparison._repr_html_`` in Jupyter): the verdicts, the summary, the
rules, the per-category tables, the broken cases and the charts, styled under one class so that nothing leaks
into the notebook's own page. With several metrics the combined verdicts come first, then each metric's view.
The same HTML environment escapes every value as the HTML report's does (render/filters.py)."""

from __future__ import annotations

from markupsafe import Markup

from releasegate.model import Report
from releasegate.render.context import build_context
from releasegate.render.filters import environment
from releasegate.render.grid import section_provenance
from releasegate.render.views import ChartView, fields_of

NOTEBOOK_TEMPLATE = "notebook.html"
NOTEBOOK_CASE_LIMIT = 200  # broken cases listed in the notebook view; the reports list them all


def render_notebook(report: Report, case_limit: int = NOTEBOOK_CASE_LIMIT) -> str:
    env = environment("html")
    charts = _notebook_charts(report)
    sections = []
    for i, section in enumerate(report.sections):
        context = build_context(section, section_provenance(report, i), case_limit=case_limit)
        shown = fields_of(context, notebook_charts=charts[i] if i < len(charts) else [])
        sections.append(Markup(env.get_template("partials/notebook_metric.html").render(shown)))
    return env.get_template(NOTEBOOK_TEMPLATE).render(
        several=report.several, metrics=report.metrics, verdicts=report.verdicts, sections=sections,
        title=report.provenance.title)


def _notebook_charts(report: Report) -> list[list[ChartView]]:
    """Each metric's charts as inline SVG; none (the tables alone) when the chart packages are not installed."""
    try:
        from releasegate.render.html import chart_contexts
    except ImportError:
        return []
    return chart_contexts(report)
