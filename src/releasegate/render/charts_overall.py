"""The overall chart of the release note: every release's pass rate (or mean score) with its interval, and each
candidate's overall difference with its 95% interval and the non-inferiority interval against the margin.
Laid out with the look of :mod:`releasegate.render.chart_look`; every value comes from the Analysis.
"""


from __future__ import annotations

from typing import Any

from releasegate import fmt
from releasegate.model import Analysis
from releasegate.model.judge import CORRECTED_METHOD
from releasegate.render.chart_look import (
    BASELINE_COLOUR,
    BASELINE_SHAPE,
    EMPTY,
    PALETTE,
    SHAPES,
    WIDTH,
    Chart,
    diff_label,
    field_of,
    interval_label,
    is_regressed,
    layer_spec,
    round_axis,
    signed_label_expr,
    tick_format,
    title_of,
    top_spec,
    unit_words,
    when_regressed,
)
from releasegate.wording import sections as section_words


def overall_chart(analysis: Analysis) -> Chart:
    """Top: each release's overall pass rate (or mean score) with its 95% interval, the baseline's as a
    dashed line. Bottom: each candidate's difference with its 95% interval (line) and the (1 - 2 alpha)
    interval the non-inferiority rule reads (band), against zero (solid) and the margin (dotted)."""
    units = unit_words(analysis)
    rate_rows, rates = _rates_view(analysis, units)
    diff_rows, diffs = _differences_view(analysis, units)
    body = {"vconcat": [rates, diffs], "spacing": 22}
    return Chart("chart-overall", f"Overall {units['rate']} and difference",
                 "A candidate is non-inferior when its pale band stays right of the dotted margin line; a filled "
                 "marker is a regression the overall test finds (one-sided, adjusted in the error budget).",
                 top_spec(body, {EMPTY: [{}], "rates": rate_rows, "differences": diff_rows}))


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
LABEL_AXIS: dict[str, Any] = {"labelLimit": 320, "minExtent": 260, "maxExtent": 320, "labelFontSize": 13}
OVERALL_WIDTH = WIDTH - 270


def _rates_view(analysis: Analysis, units: dict[str, Any]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The overall chart's top panel: its rows and its layers (baseline line, intervals, markers)."""
    import altair as alt

    binary, scale = analysis.mcnemar_path, units["scale"]
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
    domain, ticks = round_axis(low, high, most=7)
    if binary:
        domain = [max(domain[0], 0.0), min(domain[1], 100.0)]
        ticks = [t for t in ticks if domain[0] <= t <= domain[1]]
    all_names, colours, shapes = _release_marks(analysis)
    y = alt.Y(**field_of("release:N"), sort=[row["release"] for row in rate_rows], title=None,
              axis=alt.Axis(**LABEL_AXIS))
    x = alt.X(**field_of("low:Q"), title=units["rate"] + (f", {units['rate_unit']}" if units["rate_unit"] else ""),
              scale=alt.Scale(domain=domain, nice=False), axis=alt.Axis(values=ticks, format=tick_format(units["rate_format"], ticks)))
    colour = alt.Color(**field_of("key:N"), scale=alt.Scale(domain=all_names, range=colours), legend=None)
    shape = alt.Shape(field="key", type="nominal", scale=alt.Scale(domain=all_names, range=shapes), legend=None)
    layers = [
        layer_spec(alt.Chart().mark_rule(strokeDash=[5, 3], color=BASELINE_COLOUR).encode(
            x=alt.X(datum=baseline_value, scale=alt.Scale(domain=domain, nice=False))), EMPTY),
        layer_spec(alt.Chart().mark_rule(strokeWidth=2.2).encode(y=y, x=x, x2=alt.X2(field="high"), color=colour),
              "rates"),
        layer_spec(alt.Chart().mark_point(size=90, strokeWidth=2, filled=True, opacity=1).encode(
            y=y, x=alt.X(**field_of("value:Q")), color=colour, shape=shape,
            tooltip=[alt.Tooltip(**field_of("release:N"))]), "rates"),
    ]
    return rate_rows, {"layer": layers, "height": 30 * len(rate_rows),
                       "title": title_of(f"Overall {units['rate']} with 95% interval",
                                       f"dashed line: baseline {analysis.baseline}"),
                       "width": OVERALL_WIDTH}


def _differences_view(analysis: Analysis, units: dict[str, Any]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The overall chart's bottom panel: its rows and its layers (bands, zero, intervals, markers, margin)."""
    import altair as alt

    binary, scale = analysis.mcnemar_path, units["scale"]
    diff_rows = []
    for cand in analysis.candidates:
        o = cand.overall
        # With gold labels the rules read the corrected difference (analyze/judge_gated.py): the row says so,
        # beside a summary table whose differences are the judge's own.
        name = f"{cand.name} (corrected)" if o.method == CORRECTED_METHOD else cand.name
        diff_rows.append({"release": f"{name}: {diff_label(o.diff, binary)} {interval_label(o, binary)}",
                          "key": cand.name, "diff": o.diff * scale, "low": o.ci_low * scale,
                          "high": o.ci_high * scale, "ni_low": o.ni_low * scale, "ni_high": o.ni_high * scale,
                          "regressed": is_regressed(o, analysis.parameters.alpha)})
    margin = analysis.parameters.margin * scale
    ni_level = section_words.ni_level(analysis.parameters)
    low, high = _extent(diff_rows, ("low", "high", "ni_low", "ni_high"))
    low, high = min(low, 0.0, -margin), max(high, 0.0)
    domain, ticks = round_axis(low - 0.04 * (high - low), high + 0.04 * (high - low), most=8)
    all_names, colours, shapes = _release_marks(analysis)
    y = alt.Y(**field_of("release:N"), sort=[row["release"] for row in diff_rows], title=None,
              axis=alt.Axis(**LABEL_AXIS))
    colour_scale = alt.Scale(domain=all_names, range=colours)
    colour = alt.Color(**field_of("key:N"), scale=colour_scale, legend=None)
    shape = alt.Shape(field="key", type="nominal", scale=alt.Scale(domain=all_names, range=shapes), legend=None)

    def x(field: str) -> alt.X:
        return alt.X(**field_of(field), title=f"difference vs {analysis.baseline}, {units['diff_unit']}",
                     scale=alt.Scale(domain=domain, nice=False),
                     axis=alt.Axis(values=ticks, labelExpr=signed_label_expr(units["diff_format"], ticks)))

    layers = [
        layer_spec(alt.Chart().mark_bar(height=11, opacity=0.3).encode(
            y=y, x=x("ni_low:Q"), x2=alt.X2(field="ni_high"), color=colour), "differences"),
        layer_spec(alt.Chart().mark_rule(color="#000000", strokeWidth=1.3).encode(
            x=alt.X(datum=0, scale=alt.Scale(domain=domain, nice=False))), EMPTY),
        layer_spec(alt.Chart().mark_rule(strokeWidth=2.2).encode(y=y, x=x("low:Q"), x2=alt.X2(field="high"),
                                                             color=colour), "differences"),
        layer_spec(alt.Chart().mark_point(size=90, strokeWidth=2, opacity=1).encode(
            y=y, x=alt.X(**field_of("diff:Q")), color=colour, shape=shape,
            fill=when_regressed(alt.Fill(**field_of("key:N"), scale=colour_scale, legend=None),
                               alt.FillValue("white")),
            tooltip=[alt.Tooltip(**field_of("release:N"))]), "differences"),
    ]
    subtitle = f"line: 95% interval; pale band: {ni_level}% interval (non-inferiority); solid line: no change"
    if margin > 0:
        layers.append(layer_spec(alt.Chart().mark_rule(strokeDash=[2, 2], color="#000000", strokeWidth=1.3)
                            .encode(x=alt.XDatum(-margin)), EMPTY))
        subtitle += f"; dotted: margin {diff_label(-analysis.parameters.margin, binary)}"
    return diff_rows, {"layer": layers, "height": 30 * len(diff_rows),
                       "title": title_of("Overall difference", subtitle), "width": OVERALL_WIDTH}


def _extent(rows: list[dict[str, Any]], keys: tuple[str, ...]) -> tuple[float, float]:
    values = [row[k] for row in rows for k in keys if fmt.is_number(row[k])] or [0.0]
    return min(values), max(values)


