"""Charts of the release note: Vega-Lite specs built with altair from the Analysis, drawn to SVG by vl-convert.

Three charts (SPEC section 6): overall pass rates and the overall difference with their intervals; the
per-category difference with its interval for every candidate; cases fixed and broken per category. All
values come from the Analysis dataclasses; this module only lays them out. Every chart has a title, axis
titles and a zero (or baseline) line, and tells its series apart by shape, fill and lightness as well as hue,
so that it survives black-and-white printing (colours: Okabe and Ito's colour-blind-safe palette).

altair builds each layer (mark and encoding); the layers are put together, with the data and the look, as
plain dicts (see :func:`layer_spec`): altair's own layering, concatenation and faceting copied the whole chart at
every step and took a third of a second.

The SVGs are drawn in this process by vl-convert's embedded JavaScript engine with no network access
(``allowed_base_urls=[]``); the engine starts once (about a second), then each chart takes tens of ms.
altair and vl_convert are imported inside the functions: only the HTML and PDF outputs pay for them.
"""

from __future__ import annotations

import math
import re
from dataclasses import replace
from typing import Any

from releasegate import fmt
from releasegate.model import Analysis
from releasegate.render.chart_look import (
    BROKE_COLOUR,
    EMPTY,
    FIXED_COLOUR,
    FIXED_STROKE,
    FONT,
    VL_VERSION,
    WIDTH,
    Chart,
    candidate_scales,
    category_name,
    category_order,
    diff_label,
    field_of,
    interval_label,
    is_regressed,
    layer_spec,
    round_axis,
    signed_label_expr,
    title_of,
    top_spec,
    unit_words,
    when_regressed,
    zero_rule,
)
from releasegate.render.charts_overall import overall_chart


def category_chart(analysis: Analysis) -> Chart | None:
    """Per-category difference (candidate - baseline) with its 95% interval, one mark per candidate.

    A mark is filled, its line thickened and its value printed when the whole interval lies below zero.
    """
    import altair as alt

    if not analysis.has_categories or not analysis.candidates:
        return None
    units = unit_words(analysis)
    binary = analysis.mcnemar_path
    names = [c.name for c in analysis.candidates]
    rows = []
    for cand in analysis.candidates:
        for comp in cand.categories:
            regressed = is_regressed(comp, analysis.parameters.alpha)
            rows.append({
                "category": category_name(comp), "candidate": cand.name,
                "diff": comp.diff * units["scale"], "low": comp.ci_low * units["scale"],
                "high": comp.ci_high * units["scale"], "regressed": regressed,
                "label": ("▼ " + diff_label(comp.diff, binary)) if regressed else "",
                "difference": diff_label(comp.diff, binary), "interval": interval_label(comp, binary),
                "fixed/broke": f"{comp.fixed}/{comp.broke}", "n": comp.n,
            })
    order = category_order(analysis.candidates)
    scales = candidate_scales(names)
    x_title = f"difference in {units['rate']}, {units['diff_unit']} (candidate − baseline {analysis.baseline})"
    y = alt.Y(**field_of("category:N"), sort=order, title=None,
              axis=alt.Axis(labelLimit=230, labelPadding=6, grid=True, bandPosition=0, gridColor="#d0d0d0",
                            labelFontWeight={"condition": {"test": "test(/\\(critical\\)$/, datum.label)",
                                                           "value": "bold"}, "value": "normal"}))
    y_offset = alt.YOffset(**field_of("candidate:N"), sort=names, scale=alt.Scale(domain=names, paddingOuter=0.6))
    # Room on the left for the value printed beside a regression's interval.
    low = min([0.0] + [r["low"] for r in rows if fmt.is_number(r["low"]) and math.isfinite(r["low"])])
    high = max([0.0] + [r["high"] for r in rows if fmt.is_number(r["high"]) and math.isfinite(r["high"])])
    domain, ticks = round_axis(low - 0.18 * (high - low or 1), high + 0.03 * (high - low or 1), most=7)
    for r in rows:  # an unbounded interval (a score category of one case) runs to the axis' end
        for key in ("low", "high"):
            if fmt.is_number(r[key]) and math.isinf(r[key]):
                r[key] = domain[0] if r[key] < 0 else domain[-1]
    x_axis: dict[str, Any] = {"title": x_title, "axis": alt.Axis(labelExpr=signed_label_expr(units["diff_format"], ticks), values=ticks),
              "scale": alt.Scale(domain=domain, nice=False)}
    colour = alt.Color(**field_of("candidate:N"), scale=scales["colour"], title="candidate")
    tooltip = [alt.Tooltip(**field_of(t))
               for t in ("candidate:N", "category:N", "difference:N", "interval:N", "fixed/broke:N", "n:Q")]
    interval = alt.Chart().mark_rule().encode(
        y=y, yOffset=y_offset, x=alt.X(**field_of("low:Q"), **x_axis), x2=alt.X2(field="high"), color=colour,
        strokeWidth=when_regressed(alt.StrokeWidthValue(3.5), alt.StrokeWidthValue(1.6)),
        tooltip=tooltip)
    points = alt.Chart().mark_point(size=70, strokeWidth=2, opacity=1).encode(
        y=y, yOffset=y_offset, x=alt.X(**field_of("diff:Q"), **x_axis), color=colour,
        shape=alt.Shape(field="candidate", type="nominal", scale=scales["shape"], title="candidate"),
        fill=when_regressed(alt.Fill(**field_of("candidate:N"), scale=scales["colour"], title="candidate"),
                           alt.FillValue("white")),
        tooltip=tooltip)
    labels = alt.Chart().mark_text(align="right", dx=-8, fontSize=12, fontWeight="bold").encode(
        y=y, yOffset=y_offset, x=alt.X(**field_of("low:Q")), text=alt.Text(**field_of("label:N")), color=colour)
    step = max(26, 13 * len(names) + 12)
    layers = [layer_spec(c, "categories") for c in (interval, points, labels)] + [layer_spec(zero_rule(), EMPTY)]
    body = {"layer": layers,
            "height": step * len(order),
            "title": title_of(f"Change per category against {analysis.baseline}",
                            ["Marker: the difference; line: its 95% interval; black vertical line: no change.",
                             ("Filled marker, thick line and ▼ value: a regression its own test finds "
                              "(one-sided, adjusted: the rule's reading).")]),
            "width": WIDTH - 190}
    return Chart("chart-categories", f"Change per category against {analysis.baseline}",
                 "One row per category (critical first), one marker per candidate. A filled marker is a "
                 "regression the gate's rule names: the category's own one-sided test, adjusted in the error "
                 "budget, below alpha. The line is the 95% interval, another method (or a stricter level), so it "
                 "may cross zero beside a filled marker; the rules table gives the test's own bound.", top_spec(body, {EMPTY: [{}], "categories": rows}))


def changes_chart(analysis: Analysis) -> Chart | None:
    """Cases broken (left, dark) and fixed (right, light) per category, one panel per candidate."""
    import altair as alt

    if not analysis.has_categories or not analysis.candidates:
        return None
    units = unit_words(analysis)
    rows, largest = [], 1
    for cand in analysis.candidates:
        for comp in cand.categories:
            largest = max(largest, comp.fixed, comp.broke)
            for kind, count, sign in ((units["broke"], comp.broke, -1), (units["fixed"], comp.fixed, 1)):
                rows.append({"category": category_name(comp), "candidate": cand.name, "kind": kind,
                             "count": count, "signed": sign * count, "label": str(count) if count else ""})
    order = category_order(analysis.candidates)
    limit = largest + max(1, round(largest * 0.25))
    kinds = [units["broke"], units["fixed"]]
    y = alt.Y(**field_of("category:N"), sort=order, title=None,
              axis=alt.Axis(labelLimit=230, labelPadding=6,
                            labelFontWeight={"condition": {"test": "test(/\\(critical\\)$/, datum.label)",
                                                           "value": "bold"}, "value": "normal"}))
    x = alt.X(**field_of("signed:Q"), title=f"cases: ← {units['broke']} | {units['fixed']} →",
              scale=alt.Scale(domain=[-limit, limit], nice=False),
              axis=alt.Axis(labelExpr="abs(datum.value)", tickMinStep=1, tickCount=5, format="d"))
    bars = alt.Chart().mark_bar(height={"band": 0.7}, strokeWidth=1).encode(
        y=y, x=x,
        fill=alt.Fill(**field_of("kind:N"), scale=alt.Scale(domain=kinds, range=[BROKE_COLOUR, FIXED_COLOUR]),
                      title=None, sort=kinds),
        stroke=alt.Stroke(**field_of("kind:N"), scale=alt.Scale(domain=kinds, range=[BROKE_COLOUR, FIXED_STROKE]),
                          legend=None),
        tooltip=[alt.Tooltip(**field_of(t)) for t in ("candidate:N", "category:N", "kind:N", "count:Q")])
    text = alt.Text(**field_of("label:N"))
    left = alt.Chart().mark_text(fontSize=12, align="right", dx=-4).encode(y=y, x=x, text=text)
    right = alt.Chart().mark_text(fontSize=12, align="left", dx=4).encode(y=y, x=x, text=text)
    left, right = left.transform_filter("datum.signed < 0"), right.transform_filter("datum.signed > 0")
    # At most three panels a row, so that many candidates wrap instead of shrinking on the page.
    columns = min(3, len(analysis.candidates))
    panel_width = max(120, (WIDTH - 190) // columns - 12)
    # The layers read the facet's rows (no data of their own).
    panel = {"layer": [layer_spec(c) for c in (bars, left, right, zero_rule())], "height": {"step": 20},
             "width": panel_width}
    body = {"data": {"name": "changes"},
            "facet": {"field": "candidate",
                      "header": {"labelFont": FONT, "labelFontSize": 13, "labelFontWeight": "bold", "title": None},
                      "sort": [c.name for c in analysis.candidates], "type": "nominal"},
            "spec": panel, "columns": columns, "resolve": {"axis": {"y": "shared"}},
            "title": title_of(f"Cases {units['fixed']} and {units['broken']} per category",
                            f"{units['broke'].capitalize()}: better on {analysis.baseline} than on the "
                            f"candidate (dark, left); {units['fixed']}: the reverse (light, right).")}
    return Chart("chart-changes", f"Cases {units['fixed']} and {units['broken']} per category",
                 "The counts behind each category's difference: a category can hold steady overall while "
                 "cases move in both directions.", top_spec(body, {"changes": rows}))


def build_charts(analysis: Analysis) -> list[Chart]:
    """The chart specs of one report, in reading order (overall, per category, fixed and broke)."""
    from altair.utils.schemapi import debug_mode

    # altair checks every schema object against the schema as it is made ("debug mode"); the finished specs are
    # checked once, by the tests, instead.
    with debug_mode(False):
        charts = [overall_chart(analysis), category_chart(analysis), changes_chart(analysis)]
    return [c for c in charts if c is not None]


_ID = re.compile(r'\bid="([^"]+)"')


def _scope_ids(svg: str, prefix: str) -> str:
    # Inline SVGs share one id space in an HTML page: give each chart's clip paths and gradients its own.
    ids = set(_ID.findall(svg))
    for ident in sorted(ids, key=len, reverse=True):
        # A function, not a template: the captured id may hold backslashes ("\\q"), which a template reads as
        # escapes.
        scoped = f"{prefix}-{ident}"
        svg = re.sub(rf'(\bid="|url\(#|href="#){re.escape(ident)}([")])',
                     lambda match, scoped=scoped: f"{match.group(1)}{scoped}{match.group(2)}", svg)
    return svg


# Longer labels are cut: a chart axis cannot show them, and they would only slow the layout.
MAX_LABEL = 200


def safe_spec(value: Any) -> Any:
    """A copy of a Vega-Lite spec whose strings are safe for vl-convert.

    vl-convert's engine aborts the whole process (a Rust panic, not an exception) on a NUL or ESC character in
    a label, so control and bidi characters are shown as codes (:func:`releasegate.text.visible`) and long
    strings are cut, wherever they sit in the spec (data, titles, legends).
    """
    from releasegate.text import visible

    if isinstance(value, str):
        text = visible(value)
        return text if len(text) <= MAX_LABEL else text[: MAX_LABEL - 1] + "…"
    if isinstance(value, dict):
        return {k: safe_spec(v) for k, v in value.items()}
    if isinstance(value, list):
        return [safe_spec(v) for v in value]
    return value


def draw(charts: list[Chart]) -> list[Chart]:
    """Draw every chart to SVG in this process with vl-convert (no network: ``allowed_base_urls=[]``)."""
    import vl_convert

    drawn = []
    for chart in charts:
        svg = vl_convert.vegalite_to_svg(safe_spec(chart.spec), vl_version=VL_VERSION, allowed_base_urls=[])
        svg = _scope_ids(svg, chart.name)
        # Scale with the page; the viewBox keeps the aspect ratio.
        svg = svg.replace('class="marks"', f'class="marks" role="img" aria-label="{_attr(chart.title)}"', 1)
        drawn.append(replace(chart, svg=svg))
    return drawn


def _attr(text: str) -> str:
    from releasegate.text import visible

    return visible(text).replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;").replace(">", "&gt;")


def vega_bundle() -> str:
    """vega-embed, Vega-Lite and Vega as one script (about 900 KB), for ``--interactive`` tooltips."""
    import vl_convert

    return vl_convert.javascript_bundle(vl_version=VL_VERSION)
