"""The history's charts: Vega-Lite specs built with altair and drawn to SVG by vl-convert, as the note's are
(render/charts.py: the same look, palette, fonts and offline drawing).

Per series: the pass rate (mean score) of every release note by note with its 95% interval, its marker saying
the verdict; the cost per 1,000 cases and the p95 latency, note by note; and a heat map of each candidate's
change per category. Notes are columns in time order (``1. 2026-11-30``), a note's releases side by side within
its column, and every point names its release, so that the chart reads without its legend.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from releasegate import fmt
from releasegate.audit.history import History, ReleasePoint, Series
from releasegate.render.chart_look import (
    BASELINE_COLOUR,
    FONT,
    PALETTE,
    WIDTH,
    Chart,
    field_of,
    layer_spec,
    title_of,
    top_spec,
)

if TYPE_CHECKING:  # altair is imported inside the functions that draw
    import altair as alt

# The verdict's marker: its shape carries it in greyscale too. DON'T SHIP is a diagonal cross (an x, drawn as a
# path): Vega's "cross" is a plus sign, which reads as a gain.
DONT_SHIP_MARK = "M-0.8,-0.8L0.8,0.8M-0.8,0.8L0.8,-0.8"
VERDICT_LOOK = {"baseline": ("diamond", "BASELINE"), "ship": ("circle", "SHIP"),
                "dont_ship": (DONT_SHIP_MARK, "DON'T SHIP"), "not_proven": ("triangle-up", "NOT PROVEN")}


def verdict_label(verdict: str | None) -> str:
    if verdict is None:
        return "BASELINE"
    return VERDICT_LOOK.get(verdict, (None, verdict.replace("_", " ").upper()))[1]


def note_label(i: int, when: str) -> str:
    return f"{i + 1}. {when[:10]}"


def _releases(series: Series) -> list[str]:
    return list(dict.fromkeys(p.release for p in series.points))


def _scales(series: Series) -> dict[str, Any]:
    import altair as alt

    names = _releases(series)
    colours = [BASELINE_COLOUR if name == series.baseline else PALETTE[i % len(PALETTE)]
               for i, name in enumerate(names)]
    kinds = list(dict.fromkeys(verdict_label(p.verdict) for p in series.points))
    shapes = {label: shape for shape, label in VERDICT_LOOK.values()}
    return {"colour": alt.Scale(domain=names, range=colours),
            "shape": alt.Scale(domain=kinds, range=[shapes.get(k, "square") for k in kinds])}


def _axes(series: Series) -> tuple[alt.X, alt.XOffset]:
    import altair as alt

    notes = [note_label(i, n.when) for i, n in enumerate(series.notes)]
    x = alt.X(**field_of("note:N"), sort=notes, title="note (time of generation, oldest first)",
              axis=alt.Axis(labelAngle=0, labelFontSize=12))
    x_offset = alt.XOffset(**field_of("release:N"), sort=_releases(series))
    return x, x_offset


def _point_rows(series: Series,
                value: Callable[[ReleasePoint], dict[str, Any] | None]) -> list[dict[str, Any]]:
    rows = []
    for p in series.points:
        figure = value(p)
        if figure is None:
            continue
        rows.append({"note": note_label(p.note, p.when), "release": p.release, "verdict": verdict_label(p.verdict),
                     **figure})
    return rows


def rate_chart(series: Series, prefix: str) -> Chart | None:
    """Each release's pass rate (mean score) with its 95% interval, note by note; the marker is the verdict."""
    import altair as alt

    scale = 100.0 if series.binary else 1.0
    unit = "pass rate, %" if series.binary else "mean score"

    def value(p: ReleasePoint) -> dict[str, Any] | None:
        if p.rate is None:
            return None
        shown = fmt.pct(p.rate) if series.binary else fmt.number(p.rate)
        return {"rate": p.rate * scale, "low": (p.ci_low if p.ci_low is not None else p.rate) * scale,
                "high": (p.ci_high if p.ci_high is not None else p.rate) * scale, "shown": shown,
                "label": p.release}

    rows = _point_rows(series, value)
    if not rows:
        return None
    x, x_offset = _axes(series)
    scales = _scales(series)
    y = alt.Y(**field_of("low:Q"), title=unit, scale=alt.Scale(zero=False))
    colour = alt.Color(**field_of("release:N"), scale=scales["colour"], title="release")
    tooltip = [alt.Tooltip(**field_of(t)) for t in ("note:N", "release:N", "verdict:N", "shown:N")]
    interval = alt.Chart().mark_rule(strokeWidth=2).encode(x=x, xOffset=x_offset, y=y, y2=alt.Y2(field="high"),
                                                           color=colour, tooltip=tooltip)
    points = alt.Chart().mark_point(size=90, strokeWidth=2.2, filled=False, opacity=1).encode(
        x=x, xOffset=x_offset, y=alt.Y(**field_of("rate:Q")), color=colour,
        shape=alt.Shape(field="verdict", type="nominal", scale=scales["shape"], title="verdict"), tooltip=tooltip)
    names = alt.Chart().mark_text(dy=-10, fontSize=11, angle=0, baseline="bottom").encode(
        x=x, xOffset=x_offset, y=alt.Y(**field_of("high:Q")), text=alt.Text(**field_of("label:N")), color=colour)
    body = {"layer": [layer_spec(c, "points") for c in (interval, points, names)],
            "width": WIDTH - 140, "height": 300,
            "title": title_of(f"{unit.capitalize()} per release, note by note",
                              ["Marker: the estimate, its shape the verdict; line: its 95% interval.",
                               f"Baseline {series.baseline} in grey."])}
    return Chart(f"{prefix}rates", "Pass rate per release, note by note" if series.binary else
                 "Mean score per release, note by note",
                 "Each column is one note, its releases side by side: the baseline and every candidate it judged.",
                 top_spec(body, {"points": rows}))


def _figure_chart(series: Series, prefix: str, name: str, title: str, axis: str,
                  value: Callable[[ReleasePoint], float | None], shown: Callable[[float], str]) -> Chart | None:
    import altair as alt

    # The bars are told apart by the release legend's colours; each is labelled with its value only, which fits.
    rows = _point_rows(series, lambda p: None if value(p) is None else {"value": value(p), "shown": shown(value(p))})
    if not rows:
        return None
    x, x_offset = _axes(series)
    scales = _scales(series)
    colour = alt.Color(**field_of("release:N"), scale=scales["colour"], title="release")
    tooltip = [alt.Tooltip(**field_of(t)) for t in ("note:N", "release:N", "verdict:N", "shown:N")]
    bars = alt.Chart().mark_bar(opacity=0.85).encode(
        x=x, xOffset=x_offset, y=alt.Y(**field_of("value:Q"), title=axis), color=colour, tooltip=tooltip)
    labels = alt.Chart().mark_text(dy=-4, fontSize=11, baseline="bottom").encode(
        x=x, xOffset=x_offset, y=alt.Y(**field_of("value:Q")), text=alt.Text(**field_of("shown:N")))
    body = {"layer": [layer_spec(c, "points") for c in (bars, labels)], "width": WIDTH - 140, "height": 220,
            "title": title_of(title, "Each column is one note, its releases side by side.")}
    return Chart(f"{prefix}{name}", title, "", top_spec(body, {"points": rows}))


def category_chart(series: Series, prefix: str) -> Chart | None:
    """Each candidate's change per category, note by note, as a heat map (red: worse than the baseline)."""
    import altair as alt

    if not series.changes:
        return None
    scale = 100.0 if series.binary else 1.0
    columns = list(dict.fromkeys(f"{note_label(c.note, c.when)} {c.release}" for c in series.changes))
    critical = {c.category for c in series.changes if c.critical}
    categories = sorted({c.category for c in series.changes}, key=lambda k: (k not in critical, k))
    labels = [f"{k} (critical)" if k in critical else k for k in categories]
    rows, largest = [], largest_of(series)
    for c in series.changes:
        if c.diff is None:
            continue
        regressed = c.ci_high is not None and c.ci_high < 0
        shown = fmt.points(c.diff) if series.binary else fmt.signed(c.diff)
        rows.append({"column": f"{note_label(c.note, c.when)} {c.release}",
                     "category": f"{c.category} (critical)" if c.critical else c.category,
                     "diff": c.diff * scale, "text": ("▼ " if regressed else "") + shown,
                     "dark": abs(c.diff * scale) > 0.55 * (largest or 1.0),
                     "fixed/broke": f"{c.fixed}/{c.broke}"})
    if not rows:
        return None
    limit = largest or 1.0
    y = alt.Y(**field_of("category:N"), sort=labels, title=None,
              axis=alt.Axis(labelLimit=230, labelFontWeight={"condition": {"test": "test(/\\(critical\\)$/, datum.label)",
                                                                           "value": "bold"}, "value": "normal"}))
    x = alt.X(**field_of("column:N"), sort=columns, title="note and candidate",
              axis=alt.Axis(labelAngle=-30, labelLimit=200, orient="top"))
    unit = "points" if series.binary else "score units"
    cells = alt.Chart().mark_rect(stroke="#ffffff", strokeWidth=1).encode(
        x=x, y=y, color=alt.Color(**field_of("diff:Q"), title=f"change, {unit}",
                                  scale=alt.Scale(scheme="redblue", domain=[-limit, limit], domainMid=0)),
        tooltip=[alt.Tooltip(**field_of(t)) for t in ("column:N", "category:N", "text:N", "fixed/broke:N")])
    # White on the darkest cells, black elsewhere: legible on both ends of the diverging scale.
    text = alt.Chart().mark_text(fontSize=12, font=FONT).encode(
        x=x, y=y, text=alt.Text(**field_of("text:N")),
        color=alt.condition("datum.dark", alt.ColorValue("#ffffff").to_dict(validate=False), alt.ColorValue("#111111")))
    body = {"layer": [layer_spec(c, "cells") for c in (cells, text)],
            "width": max(160, min(WIDTH - 220, 90 * len(columns))), "height": {"step": 26},
            "title": title_of(f"Change per category against {series.baseline}",
                              f"Candidate − baseline, {unit}; ▼: the whole 95% interval is below zero.")}
    return Chart(f"{prefix}categories", f"Change per category against {series.baseline}",
                 "One column per candidate of each note, oldest first; critical categories first, in bold.",
                 top_spec(body, {"cells": rows}))


def largest_of(series: Series) -> float:
    """The largest change in any category, in the chart's unit (points or score units)."""
    scale = 100.0 if series.binary else 1.0
    return max((abs(c.diff) * scale for c in series.changes if c.diff is not None), default=0.0)


def series_charts(series: Series, prefix: str) -> list[Chart]:
    """The charts of one series, in reading order, specs built and not yet drawn."""
    from altair.utils.schemapi import debug_mode

    with debug_mode(False):
        charts = [
            rate_chart(series, prefix),
            _figure_chart(series, prefix, "cost", "Cost per 1,000 cases, note by note", "cost per 1,000 cases",
                          lambda p: p.cost_per_1k, lambda v: fmt.money(v)),
            _figure_chart(series, prefix, "latency", "p95 latency, note by note", "p95 latency, ms",
                          lambda p: p.p95_ms, lambda v: f"{fmt.number(v, 0)} ms"),
            category_chart(series, prefix),
        ]
    return [c for c in charts if c is not None]


def draw_history_charts(history: History) -> list[list[Chart]]:
    """Every series' charts drawn to SVG in this process (one vl-convert engine for all)."""
    from releasegate.render.charts import draw

    return [draw(series_charts(s, f"history-{i + 1}-")) for i, s in enumerate(history.series)]
