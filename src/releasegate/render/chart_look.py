"""The look shared by the report's charts: palette, shapes, fonts, the Chart record, and the small builders of
Vega-Lite pieces (layers through altair, composition as plain dicts; see render/charts.py)."""


from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypedDict

from releasegate import fmt
from releasegate.kinds import OutcomeKind
from releasegate.model import Analysis, CandidateAnalysis, Comparison
from releasegate.wording.sections import rate_name

if TYPE_CHECKING:  # altair is imported inside the functions that draw
    import altair as alt

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


def unit_words(analysis: Analysis) -> dict[str, Any]:
    if analysis.mcnemar_path:
        return {"scale": 100.0, "rate": "pass rate", "rate_unit": "%", "diff_unit": "percentage points",
                "fixed": "fixed", "broke": "broke", "broken": "broken", "rate_format": ".0f", "diff_format": "+.0f"}
    # Pass/fail over runs: each case's share of passing runs, a release's pass rate their mean, read as a share.
    pass_fail = analysis.outcome_kind == OutcomeKind.BINARY
    return {"scale": 1.0, "rate": rate_name(pass_fail), "rate_unit": "", "diff_unit": "as a share" if pass_fail
            else "score units",
            "fixed": "improved", "broke": "worsened", "broken": "worsened", "rate_format": ".2f", "diff_format": "+.2f"}


def diff_label(value: float, binary: bool) -> str:
    return fmt.points(value) if binary else fmt.signed(value)


def interval_label(comp: Comparison, binary: bool) -> str:
    if binary:
        return fmt.interval_points(comp.ci_low, comp.ci_high)
    return fmt.interval_signed(comp.ci_low, comp.ci_high)


def category_name(comp: Comparison) -> str:
    return f"{comp.label} (critical)" if comp.critical else comp.label


def is_regressed(comp: Comparison, alpha: float) -> bool:
    # The marker follows the test that decides: the rule's one-sided p, adjusted in the error budget, below
    # alpha. The 95% interval drawn beside it is another method (Newcombe's) or a stricter level, so a filled
    # marker's line may cross zero; the rules table gives the test's own bound.
    return comp.diff < 0 and comp.p_adjusted < alpha


def chart_config() -> dict[str, Any]:
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


def layer_spec(chart: alt.Chart, data: str | None = None) -> dict[str, Any]:
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


class FieldKeywords(TypedDict):
    """The keywords ``field`` and ``type`` of an altair channel, typed so that a channel given ``**field_of(...)``
    is checked against altair's own signatures."""

    field: str
    type: Literal["nominal", "quantitative"]


_FIELD_TYPES: dict[str, Literal["nominal", "quantitative"]] = {"N": "nominal", "Q": "quantitative"}


def field_of(shorthand: str) -> FieldKeywords:
    """``"low:Q"`` as the keywords ``field`` and ``type``: altair's shorthand parser compiles a dozen regexes."""
    name, code = shorthand.rsplit(":", 1)
    return {"field": name, "type": _FIELD_TYPES[code]}


def when_regressed(then: alt.SchemaBase, otherwise: alt.SchemaBase) -> Any:
    """A channel that is ``then`` on rows whose whole interval lies below zero, else ``otherwise``."""
    import altair as alt

    # Given an object, condition() checks it against the schema; as a dict it does not (the tests check).
    return alt.condition("datum.regressed", then.to_dict(validate=False), otherwise)


def title_of(text: str, subtitle: str | list[str]) -> dict[str, Any]:
    return {"text": text, "subtitle": subtitle}


def top_spec(body: dict[str, Any], datasets: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    """The top-level spec: the look, the composed views, and every row once, by name."""
    import altair as alt

    return {"config": chart_config(), **body, "$schema": alt.SCHEMA_URL, "datasets": datasets}


def zero_rule() -> alt.Chart:
    """The black line at zero (a datum layer: it draws from the EMPTY dataset's one row, or a facet's rows)."""
    import altair as alt

    rule: alt.Chart = alt.Chart().mark_rule(color="#000000", strokeWidth=1.3).encode(x=alt.XDatum(0))
    return rule


def round_axis(low: float, high: float, most: int = 8) -> tuple[list[float], list[float]]:
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


def category_order(candidates: tuple[CandidateAnalysis, ...]) -> list[str]:
    # Critical categories first, then the worst change over all candidates, as the tables read.
    worst: dict[str, tuple[bool, float]] = {}
    for cand in candidates:
        for comp in cand.categories:
            label = category_name(comp)
            previous = worst.get(label, (not comp.critical, comp.diff))
            worst[label] = (not comp.critical, min(previous[1], comp.diff))
    return sorted(worst, key=lambda label: (*worst[label], label))


def candidate_scales(names: list[str]) -> dict[str, Any]:
    import altair as alt

    colours = [PALETTE[i % len(PALETTE)] for i in range(len(names))]
    shapes = [SHAPES[i % len(SHAPES)] for i in range(len(names))]
    return {"colour": alt.Scale(domain=names, range=colours), "shape": alt.Scale(domain=names, range=shapes)}


def tick_format(number_format: str, ticks: list[float]) -> str:
    """``number_format`` (".2f", "+.0f", "$.2f", ".0%") with as many decimals as the ticks' step needs: ticks
    0.0002 apart print four, so that no two ticks print alike and none but zero prints as 0 or -0."""
    step = min((abs(b - a) for a, b in zip(ticks, ticks[1:])), default=1.0) or 1.0
    kind = number_format[-1]  # "f", or "%" (a fraction printed in percent)
    needed = max(0, -math.floor(math.log10(step * (100 if kind == "%" else 1)) + 1e-9))
    sign, decimals = number_format.split(".")
    return f"{sign}.{max(int(decimals[:-1]), needed)}{kind}"


def span_format(number_format: str, values: list[float], zero: bool = False) -> str:
    """The format of an axis whose ticks the chart library places (about five to seven over the values' span,
    from zero with ``zero``): :func:`tick_format` at half the step :func:`round_axis` would take, so that a
    step the library takes finer still has its digits."""
    low, high = (min(values + [0.0] * zero), max(values)) if values else (0.0, 1.0)
    _, ticks = round_axis(low, high, most=5)
    return tick_format(number_format, [0.0, (ticks[1] - ticks[0]) / 2] if len(ticks) > 1 else ticks)


def signed_label_expr(number_format: str, ticks: list[float]) -> str:
    # "+5", "0", "-5": a sign on every tick but zero, at the decimals the ticks need.
    return f"datum.value === 0 ? '0' : format(datum.value, '{tick_format(number_format, ticks)}')"
