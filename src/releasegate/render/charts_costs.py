"""The cost section's charts as Vega-Lite specifications (plain dicts; nothing is rendered here).

Contract with the HTML renderer (render/html.py), which owns the vl-convert call:

* ``cost_charts(report)`` returns a list of ``(title, spec)``: ``title`` a short caption, ``spec`` a complete
  Vega-Lite 6 specification with its data inline (no URL, so ``allowed_base_urls=[]`` is safe). The list is
  empty when the report has no cost section. Order: quality against cost (when costs exist), then one latency
  histogram per release (when latencies exist), in the releases' order.
* The renderer draws each spec, e.g. ``vl_convert.vegalite_to_svg(spec, vl_version="6.4",
  allowed_base_urls=[])``, and passes them to the templates as the context variable ``cost_charts``: a list of
  ``{"title": str, "svg": markupsafe.Markup}``. ``templates/extras/costs.html`` shows them as figures when
  that variable is defined, and shows nothing in its place otherwise.

Every number comes from the analysis' dataclasses (``Analysis.sections.costs``, the releases' rates): the
charts compute nothing but positions. The specs are deterministic (same report, same dict), so the SVG is
too.
"""

from __future__ import annotations

import math
from typing import Any

from releasegate.kinds import OutcomeKind
from releasegate.model import MetricSection
from releasegate.wording.sections import rate_name
from releasegate.render.chart_look import BASELINE_COLOUR, BASELINE_SHAPE, FONT, PALETTE, SHAPES, span_format

SCHEMA = "https://vega.github.io/schema/vega-lite/v6.4.1.json"
WIDTH = 520
# The look of render/charts.py's charts, so that the cost charts read as part of the same report.
CONFIG = {
    "font": FONT, "background": "white", "view": {"stroke": "#bbbbbb"},
    "title": {"fontSize": 16, "anchor": "start", "offset": 10, "subtitleFontSize": 13, "subtitleColor": "#333333"},
    "axis": {"labelFontSize": 13, "titleFontSize": 13, "titleFontWeight": "normal", "labelColor": "#222222",
             "titleColor": "#222222", "gridColor": "#e3e3e3", "domainColor": "#888888", "tickColor": "#888888"},
}


def _finite(x: float) -> float | None:
    return float(x) if isinstance(x, (int, float)) and math.isfinite(x) else None


def _base(title: str, height: int) -> dict[str, Any]:
    return {"$schema": SCHEMA, "title": {"text": title}, "width": WIDTH, "height": height, "config": CONFIG}


def _release_styles(report: MetricSection) -> dict[str, tuple[str, str]]:
    """Each release's colour and marker shape, as in the report's other charts (baseline grey diamond)."""
    names = [c.name for c in report.analysis.candidates]
    styles = {name: (PALETTE[i % len(PALETTE)], SHAPES[i % len(SHAPES)]) for i, name in enumerate(names)}
    styles[report.analysis.baseline] = (BASELINE_COLOUR, BASELINE_SHAPE)
    return styles


def quality_cost_chart(report: MetricSection) -> dict[str, Any] | None:
    """Pass rate (or mean score) with its 95% interval against cost per 1,000 cases, one point per release."""
    table = report.analysis.sections.costs
    if table is None or not table.has_cost:
        return None
    binary = report.analysis.mcnemar_path
    costs = {r.name: r.cost_per_1k for r in table.releases}
    values = []
    spent: list[float] = []  # the costs and the rates shown, whose spans set the axes' digits
    rates: list[float] = []
    for release in report.analysis.releases:
        x = _finite(costs.get(release.name, math.nan))
        if x is None:
            continue
        spent.append(x)
        rates += [v for v in (release.rate.value, release.rate.ci_low, release.rate.ci_high) if math.isfinite(v)]
        values.append({"release": release.name, "cost_per_1k": x, "rate": _finite(release.rate.value),
                       "ci_low": _finite(release.rate.ci_low), "ci_high": _finite(release.rate.ci_high),
                       "role": "baseline" if release.is_baseline else "candidate"})
    if not values:
        return None
    quality = rate_name(report.analysis.outcome_kind == OutcomeKind.BINARY)
    styles = _release_styles(report)
    names = [v["release"] for v in values]
    colour = {"field": "release", "type": "nominal", "legend": None,
              "scale": {"domain": names, "range": [styles.get(n, (BASELINE_COLOUR, ""))[0] for n in names]}}
    shape = {"field": "release", "type": "nominal", "legend": None,
             "scale": {"domain": names, "range": [styles.get(n, ("", "circle"))[1] for n in names]}}
    # Formats with the digits the values' span needs: a tiny-range score or a fraction of a cent printed
    # 0.004 0.004 0.005 or $0.00 on every tick.
    y_format = span_format(".0%" if binary else ".3f", rates)
    x_format = span_format("$.2f", spent, zero=True)
    x = {"field": "cost_per_1k", "type": "quantitative", "title": "cost per 1,000 cases ($)",
         "scale": {"zero": True}, "axis": {"format": x_format, "tickCount": 5}}
    y_title = f"{quality} (95% interval)"
    spec = _base(f"{quality.capitalize()} against cost per 1,000 cases", 280)
    spec["data"] = {"values": values}
    spec["layer"] = [
        {"mark": {"type": "rule", "strokeWidth": 2},
         "encoding": {"x": x, "y": {"field": "ci_low", "type": "quantitative", "title": y_title,
                                    "scale": {"zero": False}, "axis": {"format": y_format}},
                      "y2": {"field": "ci_high"}, "color": colour}},
        {"mark": {"type": "point", "filled": True, "size": 90, "opacity": 1},
         "encoding": {"x": x, "y": {"field": "rate", "type": "quantitative"}, "color": colour, "shape": shape,
                      "tooltip": [{"field": "release"}, {"field": "cost_per_1k", "format": x_format},
                                  {"field": "rate", "format": y_format}]}},
        {"mark": {"type": "text", "align": "left", "dx": 9, "dy": -9, "fontSize": 13},
         "encoding": {"x": x, "y": {"field": "rate", "type": "quantitative"}, "text": {"field": "release"},
                      "color": colour}},
    ]
    return spec


def latency_charts(report: MetricSection) -> list[tuple[str, dict[str, Any]]]:
    """One histogram of per-case latency per release, on shared bins and a shared axis, p50 and p95 marked."""
    table = report.analysis.sections.costs
    if table is None or not table.has_latency or len(table.histogram_edges) < 2:
        return []
    edges = table.histogram_edges
    domain = [edges[0], edges[-1]]
    peak = max((max(r.histogram) for r in table.releases if r.histogram), default=1)
    styles = _release_styles(report)
    charts = []
    for r in table.releases:
        if r.latency is None or r.latency.n == 0 or not r.histogram:
            continue
        bins = [{"start": edges[k], "end": edges[k + 1], "cases": count} for k, count in enumerate(r.histogram)]
        marks = [m for m in ({"quantile": "p50", "ms": _finite(r.latency.p50)},
                             {"quantile": "p95", "ms": _finite(r.latency.p95)}) if m["ms"] is not None]
        # About eight ticks: with Vega's default (one per 40 px) half the labels overlap and are drawn hidden,
        # which still costs the SVG and the PDF a text element each.
        x = {"field": "start", "type": "quantitative", "title": "latency per case (ms)",
             "scale": {"domain": domain, "nice": False}, "axis": {"tickCount": 8}}
        # The quantiles go in the title, not beside the rules, where they would overlap the bars.
        title = f"Latency distribution: {r.name} (dashed: p50 {r.latency.p50:,.0f} ms, p95 {r.latency.p95:,.0f} ms)"
        spec = _base(f"Latency distribution: {r.name}", 110)
        # A short title and the quantiles as subtitle keep every histogram as wide as its plot: drawn one
        # above the other at the same scale, their axes line up.
        spec["title"]["subtitle"] = f"dashed lines: p50 {r.latency.p50:,.0f} ms, p95 {r.latency.p95:,.0f} ms"
        spec["layer"] = [
            {"data": {"values": bins},
             "mark": {"type": "bar", "color": styles.get(r.name, (BASELINE_COLOUR, ""))[0], "binSpacing": 0,
                      "stroke": "white", "strokeWidth": 0.5},
             "encoding": {"x": x, "x2": {"field": "end"},
                          "y": {"field": "cases", "type": "quantitative", "title": "cases",
                                "scale": {"domain": [0, peak]}},
                          "y2": {"datum": 0},
                          "tooltip": [{"field": "start", "title": "from (ms)"}, {"field": "end", "title": "to (ms)"},
                                      {"field": "cases"}]}},
            {"data": {"values": marks}, "mark": {"type": "rule", "color": "#000000", "strokeDash": [5, 3], "strokeWidth": 1.5},
             "encoding": {"x": {"field": "ms", "type": "quantitative", "scale": {"domain": domain}},
                          "tooltip": [{"field": "quantile"}, {"field": "ms", "format": ",.0f"}]}},
        ]
        charts.append((title, spec))
    return charts


def cost_charts(report: MetricSection) -> list[tuple[str, dict[str, Any]]]:
    """Every chart of the cost section, as (title, Vega-Lite spec) pairs; see the module docstring."""
    charts = []
    quality = quality_cost_chart(report)
    if quality is not None:
        charts.append((quality["title"]["text"], quality))
    charts.extend(latency_charts(report))
    return charts
