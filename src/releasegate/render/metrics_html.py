"""HTML (and so PDF) release note with several metrics: page one holds each candidate's combined verdict, its
headline naming the blocking metric(s), and the candidate x metric grid (the metric's verdict, the difference and
its interval, the rules that fired); then each metric has its own section, that metric's single-metric note
(verdicts, summary, rules, per-category table and charts, broken cases, method) rendered through the same
partials as a single-metric page with the ids of its section (``metric-N-``); provenance once at the end.

The lists are bounded as one report's are (render/html_limits.py), the limits shared among the metrics, so three
metrics lay out about as many rows as one. The grid's figures are the Markdown's and the JSON's
(:func:`releasegate.render.metrics.grid`).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from markupsafe import Markup

from releasegate import fmt
from releasegate.model import MetricsReport
from releasegate.render.chart_worker import Charts, metric_anchor
from releasegate.render.filters import environment
from releasegate.render.html import page_context
from releasegate.render.html_limits import MAX_DETAILED_CANDIDATES, MAX_SUMMARY_ROWS, shared_limits
from releasegate.render.metrics import grid


def render_metrics_html(report: MetricsReport, paper: str = "A4", pdf_variant: str | None = None,
                        interactive: bool = False, *, charts: Charts | None = None,
                        pdf_page: bool = False) -> str:
    """The several-metric HTML note; the options are :func:`releasegate.render.html.render_html`'s. ``charts``
    draws every metric's charts at once (:func:`releasegate.render.chart_worker.draw_charts`)."""
    owner = charts or Charts()
    drawn = owner.plan(report) if pdf_page else owner.get(report)
    env = environment("html")
    limits = shared_limits(len(report.metrics))
    sections, contexts = [], []
    for i, (metric, single, metric_charts) in enumerate(zip(report.metrics, report.reports, drawn)):
        context = page_context(single, metric_charts, interactive=interactive, pdf_page=pdf_page,
                               anchor=metric_anchor(i), limits=limits)
        context["metric"] = metric
        contexts.append(context)
        sections.append(Markup(env.get_template("partials/metric.html").render(context)))
    page = dict(contexts[0])  # the first metric's context serves the page's head, foot and provenance
    page.update(_page_figures(report))
    page.update({
        "sections": sections,
        "several_metrics": list(report.metrics),
        "verdicts": list(report.verdicts),
        "subject": " ".join(v.headline for v in report.verdicts),
        "title": _title(report),
        "provenance": _provenance(report),
        "chart_specs": {name: spec for c in contexts for name, spec in c["chart_specs"].items()},
        "anchor": "",
    })
    return env.get_template("metrics.html").render(page)


def _title(report: MetricsReport) -> str:
    # Each metric's run is titled "<title>: <metric>" (pipeline.run_metrics); the page carries the title alone.
    return report.reports[0].provenance.title.removesuffix(f": {report.metrics[0]}")


def _provenance(report: MetricsReport):
    # One provenance for the page: the metrics' runs share inputs, command and packages; the policy names them all.
    first = report.reports[0].provenance
    return dataclasses.replace(first, policy={**first.policy, "metric": list(report.metrics)})


def _figure(cell: dict[str, Any]) -> tuple[str, str]:
    """The difference and its interval as the Markdown's grid writes them (render/metrics.py)."""
    if cell["binary"]:
        return f"{fmt.points(cell['diff'])} points", fmt.interval_points(cell["ci_low"], cell["ci_high"])
    return fmt.signed(cell["diff"]), fmt.interval_signed(cell["ci_low"], cell["ci_high"])


def _worst_first(row: dict[str, Any]) -> tuple:
    # DON'T SHIP first, then the most blocking metrics, then the largest drop on any metric, then the name.
    drops = [c["diff"] for c in row["metrics"].values() if isinstance(c["diff"], float) and math.isfinite(c["diff"])]
    return (row["verdict"] == "ship", -len(row["blocking_metrics"]), min(drops, default=math.inf), row["name"])


def _page_figures(report: MetricsReport) -> dict[str, Any]:
    """The verdict boxes and the grid of page one, each cut (worst first) to what a page lays out."""
    rows = grid(report)
    verdicts = {v.candidate: v for v in report.verdicts}
    links = [{"name": m, "anchor": metric_anchor(i)} for i, m in enumerate(report.metrics)]
    per_metric = [{v.candidate: v for v in r.verdicts} for r in report.reports]
    worst = sorted(rows, key=_worst_first)
    shown_cards = {row["name"] for row in worst[:MAX_DETAILED_CANDIDATES]}
    shown_rows = {row["name"] for row in worst[:MAX_SUMMARY_ROWS]}
    cards, grid_rows = [], []
    for row in rows:
        verdict = verdicts[row["name"]]
        if row["name"] in shown_cards:
            cards.append({"name": row["name"], "verdict": verdict,
                          "because": verdict.headline.split(": ", 1)[-1],
                          "blocking": [link for link in links if link["name"] in verdict.blocking]})
        if row["name"] in shown_rows:
            cells = []
            for i, m in enumerate(report.metrics):
                cell = row["metrics"][m]
                diff, interval = _figure(cell)
                cells.append({"ship": per_metric[i][row["name"]].ship, "diff": diff, "interval": interval,
                              "rules": cell["rules_fired"]})
            grid_rows.append({"name": row["name"], "verdict": verdict, "cells": cells})
    return {"cards": cards, "cards_cut": len(rows) - len(cards), "grid_rows": grid_rows,
            "grid_cut": len(rows) - len(grid_rows), "metric_links": links}
