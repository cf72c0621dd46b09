"""Several metrics in one note: the candidate x metric grid first, then each metric's single-metric note.

Markdown: the grid, then every metric's note cut to its share of GitHub's comment limit (each says where its
full list is); JSON: the shape docs/reading-the-report.md documents ("Several metrics"): the combined verdicts,
the grid's figures, and each metric's full single-metric JSON under ``metrics``. HTML and PDF:
render/metrics_html.py (the same grid on page one, then each metric's section).
"""

from __future__ import annotations

from typing import Any

from releasegate import fmt
from releasegate.errors import InputError
from releasegate.model import MetricsReport
from releasegate.render.json_out import SCHEMA_VERSION, _clean, to_json_dict
from releasegate.render.markdown import GITHUB_COMMENT_LIMIT, render_markdown
from releasegate.text import one_line


def _cell(report, i: int) -> dict[str, Any]:
    verdict, cand = report.verdicts[i], report.analysis.candidates[i]
    o = cand.overall
    return {"verdict": "ship" if verdict.ship else "dont_ship", "diff": o.diff, "ci_low": o.ci_low,
            "ci_high": o.ci_high, "p_one_sided": o.p_one_sided, "p_adjusted": o.p_adjusted,
            "rules_fired": [r.rule for r in verdict.reasons],
            "binary": report.analysis.mcnemar_path}


def grid(report: MetricsReport) -> list[dict[str, Any]]:
    """Per candidate: the combined verdict and each metric's verdict, difference and interval."""
    return [{"name": v.candidate, "verdict": "ship" if v.ship else "dont_ship", "headline": v.headline,
             "blocking_metrics": list(v.blocking),
             "metrics": {m: _cell(r, i) for m, r in zip(report.metrics, report.reports)}}
            for i, v in enumerate(report.verdicts)]


def render_metrics_json(report: MetricsReport) -> bytes:
    first = report.reports[0]
    data = {"schema_version": SCHEMA_VERSION, "kind": "several_metrics", "baseline": first.analysis.baseline,
            "metrics_gated": list(report.metrics), "ship": report.ship_all, "candidates": _clean(grid(report)),
            "metrics": {m: to_json_dict(r) for m, r in zip(report.metrics, report.reports)}}
    from releasegate.render.json_text import dumps_indented

    return (dumps_indented(data, _clean) + "\n").encode("utf-8")


def _figure(cell: dict[str, Any]) -> str:
    if cell["binary"]:
        return f"{fmt.points(cell['diff'])} points {fmt.interval_points(cell['ci_low'], cell['ci_high'])}"
    return f"{fmt.signed(cell['diff'])} {fmt.interval_signed(cell['ci_low'], cell['ci_high'])}"


def _escape(text: str) -> str:
    return one_line(text).replace("|", "\\|").replace("[", "\\[").replace("]", "\\]")


def grid_markdown(report: MetricsReport) -> str:
    """The candidate x metric grid and the combined headlines (the note's top and the job summary)."""
    rows = grid(report)
    head = ["<!-- releasegate -->", f"## Release note: {len(report.metrics)} metrics", "",
            "| candidate | verdict | " + " | ".join(_escape(m) for m in report.metrics) + " |",
            "|---|---|" + "---|" * len(report.metrics)]
    for row in rows:
        cells = []
        for m in report.metrics:
            c = row["metrics"][m]
            mark = "✅" if c["verdict"] == "ship" else "❌"
            cells.append(f"{mark} {_escape(_figure(c))}")
        label = "✅ **SHIP**" if row["verdict"] == "ship" else "❌ **DON'T SHIP**"
        head.append(f"| {_escape(row['name'])} | {label} | " + " | ".join(cells) + " |")
    head.append("")
    head += [f"- {_escape(row['headline'])[:1200]}" for row in rows]
    head.append("")
    return "\n".join(head) + "\n"


def render_metrics_markdown(report: MetricsReport, limit: int = GITHUB_COMMENT_LIMIT) -> bytes:
    text = grid_markdown(report)
    # Each metric's note gets an equal share of what the grid leaves; render_markdown cuts it to fit.
    share = (limit - len(text) - 200 * len(report.metrics)) // len(report.metrics)
    if share < 2_000:
        raise InputError(f"{len(report.metrics)} metrics do not fit one Markdown comment; use -o note.json")
    for metric, single in zip(report.metrics, report.reports):
        body = render_markdown(single, share).replace("<!-- releasegate -->\n", "", 1)
        text += f"\n---\n\n# Metric: {_escape(metric)}\n\n" + body
    return text.encode("utf-8")


RENDERERS = {".md": render_metrics_markdown, ".json": render_metrics_json}


def render_metrics(report: MetricsReport, suffix: str) -> bytes:
    """The Markdown or JSON of several metrics (render.render sends HTML and PDF to their own renderers)."""
    return RENDERERS[suffix.lower()](report)
