"""Charts of the release note: Vega-Lite specs built with altair from the Analysis, drawn to SVG by vl-convert.

Three charts (SPEC section 6): overall pass rates and the overall difference with their intervals; the
per-category difference with its interval for every candidate; cases fixed and broken per category. All
values come from the Analysis dataclasses; this module only lays them out. Every chart has a title, axis
titles and a zero (or baseline) line, and tells its series apart by shape, fill and lightness as well as hue,
so that it survives black-and-white printing (colours: Okabe and Ito's colour-blind-safe palette).

altair builds each layer (mark and encoding); the layers are put together, with the data and the look, as
plain dicts (see :func:`_leaf`): altair's own layering, concatenation and faceting copied the whole chart at
every step and took a third of a second.

The SVGs are drawn in this process by vl-convert's embedded JavaScript engine with no network access
(``allowed_base_urls=[]``); the engine starts once (about a second), then each chart takes tens of ms.
altair and vl_convert are imported inside the functions: only the HTML and PDF outputs pay for them.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from typing import Any

from releasegate import fmt
from releasegate.model import Analysis, CandidateAnalysis, Comparison

VL_VERSION = "6.4"
FONT = "DejaVu Sans, Verdana, Arial, sans-serif"
# Okabe-Ito hues ordered so that neighbours also differ in lightness; shapes carry the same distinction.
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#56B4E9", "#E69F00", "#000000")
SHAPES = ("circle", "square", "triangle-up", "triangle-down", "cross", "triangle-right", "triangle-left")
BASELINE_SHAPE = "diamond"
BASELINE_COLOUR = "#595959"
BROKE_COLOUR = "#B2182B"  # dark: reads as near-black in greyscale
FIXED_COLOUR = "#9ECAE1"  # light: reads as pale grey, outlined so it shows on white paper
FIXED_STROKE = "#2166AC"
WIDTH = 700
# The one-row dataset that the datum-only layers (zero and margin lines) draw from, named as altair names it.
EMPTY = "empty"


@dataclass(frozen=True)
class Chart:
    """One chart: an anchor name, its title, a caption saying how to read it, the spec and its SVG."""

    name: str
    title: str
    caption: str
    spec: dict[str, Any]
    svg: str = ""


def _units(analysis: Analysis) -> dict[str, Any]:
    binary = analysis.outcome_kind == "binary" and not analysis.has_runs
    if binary:
        return {"scale": 100.0, "rate": "pass rate", "rate_unit": "%", "diff_unit": "percentage points",
                "fixed": "fixed", "broke": "broke", "broken": "broken", "rate_format": ".0f", "diff_format": "+.0f"}
    return {"scale": 1.0, "rate": "mean score", "rate_unit": "", "diff_unit": "score units",
            "fixed": "improved", "broke": "worsened", "broken": "worsened", "rate_format": ".2f", "diff_format": "+.2f"}


def _diff_text(value: float, binary: bool) -> str:
    return fmt.points(value) if binary else fmt.signed(value)


def _interval_text(comp: Comparison, binary: bool) -> str:
    if binary:
        return fmt.interval_points(comp.ci_low, comp.ci_high)
    return fmt.interval_signed(comp.ci_low, comp.ci_high)


def _category_label(comp: Comparison) -> str:
    return f"{comp.label} (critical)" if comp.critical else comp.label


def _regressed(comp: Comparison) -> bool:
    # "Visibly a regression": the whole 95% interval lies below zero (not the gate's rule, which is adjusted).
    return fmt.is_number(comp.ci_high) and comp.ci_high < 0


def _config() -> dict[str, Any]:
    # One dict for the whole look, as the chained configure_* calls wrote it (each of them copied the chart):
    # altair's default theme (the continuous view size) first, then the report's choices.
    return {
        "view": {"continuousWidth": 300, "continuousHeight": 300, "stroke": "#bbbbbb"},
        "axis": {"domainColor": "#888888", "gridColor": "#e3e3e3", "labelColor": "#222222", "labelFontSize": 13,
                 "tickColor": "#888888", "titleColor": "#222222", "titleFontSize": 13, "titleFontWeight": "normal"},
        "background": "white", "font": FONT,
        "legend": {"labelFontSize": 13, "orient": "top", "titleFontSize": 13, "titleFontWeight": "normal"},
        "title": {"anchor": "start", "fontSize": 16, "offset": 10, "subtitleColor": "#333333",
                  "subtitleFontSize": 13},
    }


def _leaf(chart, data: str | None = None) -> dict[str, Any]:
    """One layer (mark, encoding, transforms) built by altair as a plain Vega-Lite dict, reading the named data.

    Only the leaves go through altair: its layer, concat and facet deep-copy every sub-chart and re-check its
    parameters, and ``encode`` looks a channel up in the schema for every shorthand string or dict it is given
    (hence channel objects here). The composition around the leaves is plain dicts, checked against the schema
    by the tests. The data reference is added here too: given to altair, a data object is first offered to
    narwhals, whose first call scans every installed package's entry points. ``"data": None`` in the context
    keeps altair from giving a leaf without data an empty dataset of its own (a facet's layers read its rows).
    """
    spec = chart.to_dict(validate=False, context={"top_level": False, "data": None})
    return {"data": {"name": data}, **spec} if data else spec


def _field(shorthand: str) -> dict[str, str]:
    """``"low:Q"`` as the keywords ``field`` and ``type``: altair's shorthand parser compiles a dozen regexes."""
    name, code = shorthand.rsplit(":", 1)
    return {"field": name, "type": {"N": "nominal", "Q": "quantitative"}[code]}


def _if_regressed(then, otherwise):
    """A channel that is ``then`` on rows whose whole interval lies below zero, else ``otherwise``."""
    import altair as alt

    # Given an object, condition() checks it against the schema; as a dict it does not (the tests check).
    return alt.condition("datum.regressed", then.to_dict(validate=False), otherwise)


def _title(text: str, subtitle: str | list[str]) -> dict[str, Any]:
    return {"text": text, "subtitle": subtitle}


def _spec(body: dict[str, Any], datasets: dict[str, list[dict]]) -> dict[str, Any]:
    """The top-level spec: the look, the composed views, and every row once, by name."""
    import altair as alt

    return {"config": _config(), **body, "$schema": alt.SCHEMA_URL, "datasets": datasets}


def _zero_rule():
    """The black line at zero (a datum layer: it draws from the EMPTY dataset's one row, or a facet's rows)."""
    import altair as alt

    return alt.Chart().mark_rule(color="#000000", strokeWidth=1.3).encode(x=alt.XDatum(0))


def _axis(low: float, high: float, most: int = 8) -> tuple[list[float], list[float]]:
    """A domain on round numbers and its tick values, zero always among them (1, 2, 5 x 10^k steps)."""
    span = max(high - low, 1e-9)
    step = 10.0 ** math.floor(math.log10(span / most))
    for factor in (1, 2, 5, 10):
        if span / (step * factor) <= most:
            step *= factor
            break
    first, last = math.floor(low / step), math.ceil(high / step)
    ticks = [round(i * step, 10) for i in range(first, last + 1)]
    return [ticks[0], ticks[-1]], ticks


def _category_order(candidates: tuple[CandidateAnalysis, ...]) -> list[str]:
    # Critical categories first, then the worst change over all candidates, as the tables read.
    worst: dict[str, tuple[bool, float]] = {}
    for cand in candidates:
        for comp in cand.categories:
            label = _category_label(comp)
            previous = worst.get(label, (not comp.critical, comp.diff))
            worst[label] = (not comp.critical, min(previous[1], comp.diff))
    return sorted(worst, key=lambda label: (*worst[label], label))


def _candidate_scales(names: list[str]) -> dict[str, Any]:
    import altair as alt

    colours = [PALETTE[i % len(PALETTE)] for i in range(len(names))]
    shapes = [SHAPES[i % len(SHAPES)] for i in range(len(names))]
    return {"colour": alt.Scale(domain=names, range=colours), "shape": alt.Scale(domain=names, range=shapes)}


def category_chart(analysis: Analysis) -> Chart | None:
    """Per-category difference (candidate - baseline) with its 95% interval, one mark per candidate.

    A mark is filled, its line thickened and its value printed when the whole interval lies below zero.
    """
    import altair as alt

    if not analysis.has_categories or not analysis.candidates:
        return None
    units = _units(analysis)
    binary = units["scale"] == 100.0
    names = [c.name for c in analysis.candidates]
    rows = []
    for cand in analysis.candidates:
        for comp in cand.categories:
            regressed = _regressed(comp)
            rows.append({
                "category": _category_label(comp), "candidate": cand.name,
                "diff": comp.diff * units["scale"], "low": comp.ci_low * units["scale"],
                "high": comp.ci_high * units["scale"], "regressed": regressed,
                "label": ("▼ " + _diff_text(comp.diff, binary)) if regressed else "",
                "difference": _diff_text(comp.diff, binary), "interval": _interval_text(comp, binary),
                "fixed/broke": f"{comp.fixed}/{comp.broke}", "n": comp.n,
            })
    order = _category_order(analysis.candidates)
    scales = _candidate_scales(names)
    x_title = f"difference in {units['rate']}, {units['diff_unit']} (candidate − baseline {analysis.baseline})"
    y = alt.Y(**_field("category:N"), sort=order, title=None,
              axis=alt.Axis(labelLimit=230, labelPadding=6, grid=True, bandPosition=0, gridColor="#d0d0d0",
                            labelFontWeight={"condition": {"test": "test(/\\(critical\\)$/, datum.label)",
                                                           "value": "bold"}, "value": "normal"}))
    y_offset = alt.YOffset(**_field("candidate:N"), sort=names, scale=alt.Scale(domain=names, paddingOuter=0.6))
    # Room on the left for the value printed beside a regression's interval.
    low = min([0.0] + [r["low"] for r in rows if fmt.is_number(r["low"])])
    high = max([0.0] + [r["high"] for r in rows if fmt.is_number(r["high"])])
    domain, ticks = _axis(low - 0.18 * (high - low or 1), high + 0.03 * (high - low or 1), most=7)
    x_axis = {"title": x_title, "axis": alt.Axis(labelExpr=_signed_label(units["diff_format"]), values=ticks),
              "scale": alt.Scale(domain=domain, nice=False)}
    colour = alt.Color(**_field("candidate:N"), scale=scales["colour"], title="candidate")
    tooltip = [alt.Tooltip(**_field(t))
               for t in ("candidate:N", "category:N", "difference:N", "interval:N", "fixed/broke:N", "n:Q")]
    interval = alt.Chart().mark_rule().encode(
        y=y, yOffset=y_offset, x=alt.X(**_field("low:Q"), **x_axis), x2=alt.X2(field="high"), color=colour,
        strokeWidth=_if_regressed(alt.StrokeWidthValue(3.5), alt.StrokeWidthValue(1.6)),
        tooltip=tooltip)
    points = alt.Chart().mark_point(size=70, strokeWidth=2, opacity=1).encode(
        y=y, yOffset=y_offset, x=alt.X(**_field("diff:Q"), **x_axis), color=colour,
        shape=alt.Shape(**_field("candidate:N"), scale=scales["shape"], title="candidate"),
        fill=_if_regressed(alt.Fill(**_field("candidate:N"), scale=scales["colour"], title="candidate"),
                           alt.FillValue("white")),
        tooltip=tooltip)
    labels = alt.Chart().mark_text(align="right", dx=-8, fontSize=12, fontWeight="bold").encode(
        y=y, yOffset=y_offset, x=alt.X(**_field("low:Q")), text=alt.Text(**_field("label:N")), color=colour)
    step = max(26, 13 * len(names) + 12)
    layers = [_leaf(c, "categories") for c in (interval, points, labels)] + [_leaf(_zero_rule(), EMPTY)]
    body = {"layer": layers,
            "height": step * len(order),
            "title": _title(f"Change per category against {analysis.baseline}",
                            ["Marker: the difference; line: its 95% interval; black vertical line: no change.",
                             ("Filled marker, thick line and ▼ value: the whole interval is below zero "
                              "(a regression).")]),
            "width": WIDTH - 190}
    return Chart("chart-categories", f"Change per category against {analysis.baseline}",
                 "One row per category (critical first), one marker per candidate. Categories with a filled "
                 "marker lost cases beyond what chance explains at the 95% level, before any correction for "
                 "the number of categories; the per-category tables below give the adjusted p-values the "
                 "gate uses.", _spec(body, {EMPTY: [{}], "categories": rows}))


def changes_chart(analysis: Analysis) -> Chart | None:
    """Cases broken (left, dark) and fixed (right, light) per category, one panel per candidate."""
    import altair as alt

    if not analysis.has_categories or not analysis.candidates:
        return None
    units = _units(analysis)
    rows, largest = [], 1
    for cand in analysis.candidates:
        for comp in cand.categories:
            largest = max(largest, comp.fixed, comp.broke)
            for kind, count, sign in ((units["broke"], comp.broke, -1), (units["fixed"], comp.fixed, 1)):
                rows.append({"category": _category_label(comp), "candidate": cand.name, "kind": kind,
                             "count": count, "signed": sign * count, "label": str(count) if count else ""})
    order = _category_order(analysis.candidates)
    limit = largest + max(1, round(largest * 0.25))
    kinds = [units["broke"], units["fixed"]]
    y = alt.Y(**_field("category:N"), sort=order, title=None,
              axis=alt.Axis(labelLimit=230, labelPadding=6,
                            labelFontWeight={"condition": {"test": "test(/\\(critical\\)$/, datum.label)",
                                                           "value": "bold"}, "value": "normal"}))
    x = alt.X(**_field("signed:Q"), title=f"cases: ← {units['broke']} | {units['fixed']} →",
              scale=alt.Scale(domain=[-limit, limit], nice=False),
              axis=alt.Axis(labelExpr="abs(datum.value)", tickMinStep=1, tickCount=5, format="d"))
    bars = alt.Chart().mark_bar(height={"band": 0.7}, strokeWidth=1).encode(
        y=y, x=x,
        fill=alt.Fill(**_field("kind:N"), scale=alt.Scale(domain=kinds, range=[BROKE_COLOUR, FIXED_COLOUR]),
                      title=None, sort=kinds),
        stroke=alt.Stroke(**_field("kind:N"), scale=alt.Scale(domain=kinds, range=[BROKE_COLOUR, FIXED_STROKE]),
                          legend=None),
        tooltip=[alt.Tooltip(**_field(t)) for t in ("candidate:N", "category:N", "kind:N", "count:Q")])
    text = alt.Text(**_field("label:N"))
    left = alt.Chart().mark_text(fontSize=12, align="right", dx=-4).encode(y=y, x=x, text=text)
    right = alt.Chart().mark_text(fontSize=12, align="left", dx=4).encode(y=y, x=x, text=text)
    left, right = left.transform_filter("datum.signed < 0"), right.transform_filter("datum.signed > 0")
    # At most three panels a row, so that many candidates wrap instead of shrinking on the page.
    columns = min(3, len(analysis.candidates))
    panel_width = max(120, (WIDTH - 190) // columns - 12)
    # The layers read the facet's rows (no data of their own).
    panel = {"layer": [_leaf(c) for c in (bars, left, right, _zero_rule())], "height": {"step": 20},
             "width": panel_width}
    body = {"data": {"name": "changes"},
            "facet": {"field": "candidate",
                      "header": {"labelFont": FONT, "labelFontSize": 13, "labelFontWeight": "bold", "title": None},
                      "sort": [c.name for c in analysis.candidates], "type": "nominal"},
            "spec": panel, "columns": columns, "resolve": {"axis": {"y": "shared"}},
            "title": _title(f"Cases {units['fixed']} and {units['broken']} per category",
                            f"{units['broke'].capitalize()}: better on {analysis.baseline} than on the "
                            f"candidate (dark, left); {units['fixed']}: the reverse (light, right).")}
    return Chart("chart-changes", f"Cases {units['fixed']} and {units['broken']} per category",
                 "The counts behind each category's difference: a category can hold steady overall while "
                 "cases move in both directions.", _spec(body, {"changes": rows}))


def overall_chart(analysis: Analysis) -> Chart:
    """Top: each release's overall pass rate (or mean score) with its 95% interval, the baseline's as a
    dashed line. Bottom: each candidate's difference with its 95% interval (line) and the (1 - 2 alpha)
    interval the non-inferiority rule reads (band), against zero (solid) and the margin (dotted)."""
    units = _units(analysis)
    rate_rows, rates = _rates_view(analysis, units)
    diff_rows, diffs = _differences_view(analysis, units)
    body = {"vconcat": [rates, diffs], "spacing": 22}
    return Chart("chart-overall", f"Overall {units['rate']} and difference",
                 "A candidate is non-inferior when its pale band stays right of the dotted margin line; a filled "
                 "marker means the whole 95% interval is below zero.",
                 _spec(body, {EMPTY: [{}], "rates": rate_rows, "differences": diff_rows}))


def _release_marks(analysis: Analysis) -> tuple[list[str], list[str], list[str]]:
    """Every release's name, colour and marker shape (the baseline grey diamond), in the releases' order."""
    names = [c.name for c in analysis.candidates]
    all_names = [r.name for r in analysis.releases]
    colours = [BASELINE_COLOUR if r.is_baseline else PALETTE[names.index(r.name) % len(PALETTE)]
               for r in analysis.releases]
    shapes = [BASELINE_SHAPE if r.is_baseline else SHAPES[names.index(r.name) % len(SHAPES)]
              for r in analysis.releases]
    return all_names, colours, shapes


# The release labels (name, value and interval) sit left of both panels of the overall chart, equally wide.
LABEL_AXIS = {"labelLimit": 320, "minExtent": 260, "maxExtent": 320, "labelFontSize": 13}
OVERALL_WIDTH = WIDTH - 270


def _rates_view(analysis: Analysis, units: dict[str, Any]) -> tuple[list[dict], dict[str, Any]]:
    """The overall chart's top panel: its rows and its layers (baseline line, intervals, markers)."""
    import altair as alt

    binary, scale = units["scale"] == 100.0, units["scale"]
    rate_rows, baseline_value = [], 0.0
    for release in analysis.releases:
        r = release.rate
        if release.is_baseline:
            baseline_value = r.value * scale
        shown = (f"{fmt.pct(r.value)} {fmt.interval_pct(r.ci_low, r.ci_high)}" if binary
                 else f"{fmt.number(r.value)} [{fmt.number(r.ci_low)}, {fmt.number(r.ci_high)}]")
        name = release.name + (" (baseline)" if release.is_baseline else "")
        rate_rows.append({"release": f"{name}: {shown}", "key": release.name, "value": r.value * scale,
                          "low": r.ci_low * scale, "high": r.ci_high * scale})
    low, high = _extent(rate_rows, ("low", "high"))
    pad = 0.06 * (high - low or 1)
    low, high = low - pad, high + pad
    if binary:
        low, high = max(low, 0.0), min(high, 100.0)
    domain, ticks = _axis(low, high, most=7)
    if binary:
        domain = [max(domain[0], 0.0), min(domain[1], 100.0)]
        ticks = [t for t in ticks if domain[0] <= t <= domain[1]]
    all_names, colours, shapes = _release_marks(analysis)
    y = alt.Y(**_field("release:N"), sort=[row["release"] for row in rate_rows], title=None,
              axis=alt.Axis(**LABEL_AXIS))
    x = alt.X(**_field("low:Q"), title=units["rate"] + (f", {units['rate_unit']}" if units["rate_unit"] else ""),
              scale=alt.Scale(domain=domain, nice=False), axis=alt.Axis(values=ticks, format=units["rate_format"]))
    colour = alt.Color(**_field("key:N"), scale=alt.Scale(domain=all_names, range=colours), legend=None)
    shape = alt.Shape(**_field("key:N"), scale=alt.Scale(domain=all_names, range=shapes), legend=None)
    layers = [
        _leaf(alt.Chart().mark_rule(strokeDash=[5, 3], color=BASELINE_COLOUR).encode(
            x=alt.X(datum=baseline_value, scale=alt.Scale(domain=domain, nice=False))), EMPTY),
        _leaf(alt.Chart().mark_rule(strokeWidth=2.2).encode(y=y, x=x, x2=alt.X2(field="high"), color=colour),
              "rates"),
        _leaf(alt.Chart().mark_point(size=90, strokeWidth=2, filled=True, opacity=1).encode(
            y=y, x=alt.X(**_field("value:Q")), color=colour, shape=shape,
            tooltip=[alt.Tooltip(**_field("release:N"))]), "rates"),
    ]
    return rate_rows, {"layer": layers, "height": 30 * len(rate_rows),
                       "title": _title(f"Overall {units['rate']} with 95% interval",
                                       f"dashed line: baseline {analysis.baseline}"),
                       "width": OVERALL_WIDTH}


def _differences_view(analysis: Analysis, units: dict[str, Any]) -> tuple[list[dict], dict[str, Any]]:
    """The overall chart's bottom panel: its rows and its layers (bands, zero, intervals, markers, margin)."""
    import altair as alt

    binary, scale = units["scale"] == 100.0, units["scale"]
    diff_rows = []
    for cand in analysis.candidates:
        o = cand.overall
        diff_rows.append({"release": f"{cand.name}: {_diff_text(o.diff, binary)} {_interval_text(o, binary)}",
                          "key": cand.name, "diff": o.diff * scale, "low": o.ci_low * scale,
                          "high": o.ci_high * scale, "ni_low": o.ni_low * scale, "ni_high": o.ni_high * scale,
                          "regressed": _regressed(o)})
    margin = analysis.parameters.margin * scale
    ni_level = round((1 - 2 * analysis.parameters.alpha) * 100)
    low, high = _extent(diff_rows, ("low", "high", "ni_low", "ni_high"))
    low, high = min(low, 0.0, -margin), max(high, 0.0)
    domain, ticks = _axis(low - 0.04 * (high - low), high + 0.04 * (high - low), most=8)
    all_names, colours, shapes = _release_marks(analysis)
    y = alt.Y(**_field("release:N"), sort=[row["release"] for row in diff_rows], title=None,
              axis=alt.Axis(**LABEL_AXIS))
    colour_scale = alt.Scale(domain=all_names, range=colours)
    colour = alt.Color(**_field("key:N"), scale=colour_scale, legend=None)
    shape = alt.Shape(**_field("key:N"), scale=alt.Scale(domain=all_names, range=shapes), legend=None)

    def x(field: str):
        return alt.X(**_field(field), title=f"difference vs {analysis.baseline}, {units['diff_unit']}",
                     scale=alt.Scale(domain=domain, nice=False),
                     axis=alt.Axis(values=ticks, labelExpr=_signed_label(units["diff_format"])))

    layers = [
        _leaf(alt.Chart().mark_bar(height=11, opacity=0.3).encode(
            y=y, x=x("ni_low:Q"), x2=alt.X2(field="ni_high"), color=colour), "differences"),
        _leaf(alt.Chart().mark_rule(color="#000000", strokeWidth=1.3).encode(
            x=alt.X(datum=0, scale=alt.Scale(domain=domain, nice=False))), EMPTY),
        _leaf(alt.Chart().mark_rule(strokeWidth=2.2).encode(y=y, x=x("low:Q"), x2=alt.X2(field="high"),
                                                             color=colour), "differences"),
        _leaf(alt.Chart().mark_point(size=90, strokeWidth=2, opacity=1).encode(
            y=y, x=alt.X(**_field("diff:Q")), color=colour, shape=shape,
            fill=_if_regressed(alt.Fill(**_field("key:N"), scale=colour_scale, legend=None),
                               alt.FillValue("white")),
            tooltip=[alt.Tooltip(**_field("release:N"))]), "differences"),
    ]
    subtitle = f"line: 95% interval; pale band: {ni_level}% interval (non-inferiority); solid line: no change"
    if margin > 0:
        layers.append(_leaf(alt.Chart().mark_rule(strokeDash=[2, 2], color="#000000", strokeWidth=1.3)
                            .encode(x=alt.XDatum(-margin)), EMPTY))
        subtitle += f"; dotted: margin {_diff_text(-analysis.parameters.margin, binary)}"
    return diff_rows, {"layer": layers, "height": 30 * len(diff_rows),
                       "title": _title("Overall difference", subtitle), "width": OVERALL_WIDTH}


def _extent(rows: list[dict], keys: tuple[str, ...]) -> tuple[float, float]:
    values = [row[k] for row in rows for k in keys if fmt.is_number(row[k])] or [0.0]
    return min(values), max(values)


def _signed_label(number_format: str) -> str:
    # "+5", "0", "-5": a sign on every tick but zero.
    return f"datum.value === 0 ? '0' : format(datum.value, '{number_format}')"


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
