"""`releasegate history -o history.html -o history.md -o history.json`: the history as a page, a wiki page and
data. The context builder formats every figure once; the templates (templates/history.html, history.md) only lay
it out. The HTML is one self-contained file as the note is: inline CSS (the note's stylesheet), charts as inline
SVG (audit/history_charts.py), no script and no network (the same Content-Security-Policy)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from releasegate import __version__, fmt
from releasegate.audit.history import History, Series, apart, build_history
from releasegate.audit.history_charts import note_label, verdict_label
from releasegate.errors import InputError

SUFFIXES = (".html", ".md", ".json")
JSON_KIND = "releasegate_history"


def _rate(s: Series, value: float | None) -> str:
    return fmt.pct(value) if s.binary else fmt.number(value)


def _diff(s: Series, value: float | None) -> str:
    return fmt.points(value) if s.binary else fmt.signed(value)


def _interval(s: Series, low: float | None, high: float | None, diff: bool = False) -> str:
    if low is None or high is None:
        return ""
    if diff:
        return fmt.interval_points(low, high) if s.binary else fmt.interval_signed(low, high)
    return fmt.interval_pct(low, high) if s.binary else fmt.interval_signed(low, high)


def _series_context(s: Series, charts: list[Any]) -> dict[str, Any]:
    rows = [{"note": note_label(p.note, p.when), "when": p.when, "release": p.release, "role": p.role,
             "verdict": verdict_label(p.verdict), "verdict_class": p.verdict or "baseline",
             "rate": _rate(s, p.rate), "rate_ci": _interval(s, p.ci_low, p.ci_high),
             "diff": "" if p.diff is None else _diff(s, p.diff),
             "diff_ci": _interval(s, p.diff_low, p.diff_high, diff=True),
             "cost": "" if p.cost_per_1k is None else fmt.money(p.cost_per_1k),
             "p95": "" if p.p95_ms is None else f"{fmt.number(p.p95_ms, 0)} ms"} for p in s.points]
    columns = list(dict.fromkeys((c.note, c.release) for c in s.changes))
    critical = {c.category for c in s.changes if c.critical}
    categories = sorted({c.category for c in s.changes}, key=lambda k: (k not in critical, k))
    cells = {(c.note, c.release, c.category): c for c in s.changes}
    table = []
    for category in categories:
        row = []
        for note, release in columns:
            c = cells.get((note, release, category))
            worse = c is not None and c.ci_high is not None and c.ci_high < 0
            row.append({"diff": "" if c is None or c.diff is None else _diff(s, c.diff),
                        "counts": "" if c is None else f"{c.fixed}/{c.broke}", "worse": worse})
        table.append({"category": category, "critical": category in critical, "cells": row})
    return {
        "label": s.label, "title": s.title, "metric": s.metric, "baseline": s.baseline, "suite": s.suite,
        "binary": s.binary, "rows": rows, "charts": [{"name": c.name, "title": c.title, "caption": c.caption,
                                                       "svg": c.svg} for c in charts],
        "columns": [{"note": note_label(n, s.notes[n].when), "release": r} for n, r in columns],
        "categories": table,
        "breaks": [{"note": note_label(b.note, b.when), "release": b.release, "category": b.category,
                    "broke": b.broke, "fixed": b.fixed, "p": fmt.pvalue(b.p_value) if b.p_value is not None else "",
                    "blocks": b.blocks} for b in s.breaks],
        "flips": [{"note": note_label(f.note, f.when), "release": f.release, "before": verdict_label(f.before),
                   "after": verdict_label(f.after), "policy": list(f.policy)} for f in s.flips],
        "notes": [{"label": note_label(i, n.when), "path": n.path, "when": n.when, "also": list(n.also),
                   "version": n.tool_version} for i, n in enumerate(s.notes)],
        "releases": list(dict.fromkeys(p.release for p in s.points)),
    }


def history_context(history: History, drawn: list[list[Any]] | None = None) -> dict[str, Any]:
    """What templates/history.html and history.md read: every figure formatted, the charts as SVG."""
    from releasegate.render.html import CSP_STATIC

    drawn = drawn or [[] for _ in history.series]
    series = [_series_context(s, charts) for s, charts in zip(history.series, drawn)]
    first, last = (min(n.when for s in history.series for n in s.notes),
                   max(n.when for s in history.series for n in s.notes))
    return {"series": series, "apart": apart(history), "titles": list(dict.fromkeys(s.title for s in history.series)), "not_read": [{"path": p, "why": w} for p, w in history.not_read],
            "n_notes": history.n_notes, "first": first, "last": last, "version": __version__, "csp": CSP_STATIC,
            "generated_at": last}


def render_history_html(history: History) -> bytes:
    from markupsafe import Markup

    from releasegate.audit.history_charts import draw_history_charts
    from releasegate.render.filters import environment

    context = history_context(history, draw_history_charts(history))
    for s in context["series"]:  # vl-convert writes well-formed SVG with every data string escaped
        for chart in s["charts"]:
            chart["svg"] = Markup(chart["svg"])
    return environment("html").get_template("history.html").render(context).encode("utf-8")


def render_history_markdown(history: History) -> bytes:
    from releasegate.render.filters import environment

    return environment("md").get_template("history.md").render(history_context(history)).encode("utf-8")


def history_json(history: History) -> dict[str, Any]:
    """The history as data: every series with its notes, release points, category changes and critical breaks."""
    return {"kind": JSON_KIND, "tool": {"name": "releasegate", "version": __version__},
            "notes": history.n_notes, "apart": apart(history),
            "not_read": [{"path": p, "why": w} for p, w in history.not_read],
            "series": [{"label": s.label, **dataclasses.asdict(s)} for s in history.series]}


def render_history_json(history: History) -> bytes:
    from releasegate.render.json_out import _clean

    return (json.dumps(_clean(history_json(history)), indent=2, ensure_ascii=False) + "\n").encode("utf-8")


RENDERERS = {".html": render_history_html, ".md": render_history_markdown, ".json": render_history_json}


def check_history_outputs(outputs: list[Path], inputs: list[Path]) -> None:
    """Before reading any note: a known suffix, an existing folder, each output once, and never an input."""
    from releasegate.render.output_guard import check_output_places, check_outputs_are_not_inputs

    for path in outputs:
        if path.suffix.lower() not in RENDERERS:
            raise InputError(f"cannot tell the history's format of {path}: use one of {', '.join(SUFFIXES)}")
    check_output_places(outputs)
    check_outputs_are_not_inputs(outputs, [p for p in inputs if not p.is_dir()])


def history_command(paths: list[Path], outputs: list[Path]) -> list[str]:
    """Read the notes under ``paths``, write every output (all or none), and say what was written and read."""
    from releasegate.render.atomic import write_files_atomically

    check_history_outputs(outputs, paths)
    history = build_history(paths)
    read = {Path(p).resolve() for s in history.series for n in s.notes for p in (n.path, *n.also)}
    for output in outputs:
        if output.resolve() in read:
            raise InputError(f"output {output} is one of the notes read; write the history to another name")
    write_files_atomically([(path, RENDERERS[path.suffix.lower()](history)) for path in outputs])
    lines = [f"read {history.n_notes} note(s) in {len(history.series)} series"
             + (f"; {len(history.not_read)} file(s) were not notes" if history.not_read else "")]
    return lines + [f"wrote {path}" for path in outputs]
