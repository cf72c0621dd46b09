"""Markdown release note: GitHub-flavoured, verdict first, never over GitHub's 65,536-character comment limit.

One metric: its note. Several: the candidate x metric grid (templates/grid.md), then each metric's note cut to
its share of the limit (each says where its full list is). Every value goes through the same escaping
(render/filters.py: the environment's finalize).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from releasegate.errors import InputError
from releasegate.model import MetricSection, Provenance, Report
from releasegate.render.console import excluded_inputs
from releasegate.render.context import build_context
from releasegate.render.filters import environment
from releasegate.render.grid import grid, section_provenance
from releasegate.render.views import fields_of
from releasegate.wording.judged import not_judged_lines

GITHUB_COMMENT_LIMIT = 65_536
MARKER = "<!-- releasegate -->\n"  # the first line: the example workflow finds and updates its comment by it

# Progressively shorter listings; the last step also cuts the per-category tables.
_STEPS = ((None, None), (200, None), (50, None), (20, 200), (5, 50), (0, 20), (0, 0))


def render_markdown(report: Report, limit: int = GITHUB_COMMENT_LIMIT) -> str:
    """Render the Markdown note within ``limit`` characters: each metric's case and category lists are cut
    (saying how many were cut and where the full lists are) until it fits."""
    if not report.several:
        return section_markdown(report.sections[0], report.provenance, limit)
    text = grid_markdown(report)
    # Each metric's note gets an equal share of what the grid leaves; section_markdown cuts it to fit.
    share = (limit - len(text) - 200 * len(report.sections)) // len(report.sections)
    if share < 2_000:
        raise InputError(f"{len(report.sections)} metrics do not fit one Markdown comment; use -o note.json")
    heading = environment("md").from_string("\n---\n\n# Metric: {{ metric }}\n\n")
    for i, section in enumerate(report.sections):
        body = section_markdown(section, section_provenance(report, i), share).replace(MARKER, "", 1)
        text += heading.render(metric=section.metric) + body
    return text


def grid_markdown(report: Report, marker: bool = True, not_judged: bool = True) -> str:
    """The candidate x metric grid and the headlines: the top of a several-metric note (with the comment's
    ``marker`` line and the releases not judged) and its job summary's statistics (without: the summary says
    them above its fold)."""
    template = environment("md").get_template("grid.md")
    listed = not_judged_lines(report.not_judged, [v.candidate for v in report.verdicts]) if not_judged else []
    return template.render(metrics=report.metrics, rows=grid(report), marker=marker, not_judged=listed,
                           excluded=excluded_inputs(report) if not_judged else [])


def section_markdown(section: MetricSection, provenance: Provenance, limit: int = GITHUB_COMMENT_LIMIT) -> str:
    """One metric's note within ``limit`` characters."""
    template = environment("md").get_template("report.md")
    text = ""
    for step, (case_limit, category_limit) in enumerate(_STEPS):
        # Skip a step that lists more rows than could fit, without rendering it: with 400,000 broken cases
        # the first steps would each render (and throw away) hundreds of megabytes.
        last = step == len(_STEPS) - 1
        if not last and _rows_listed(section, case_limit, category_limit) * _SHORTEST_ROW > limit:
            continue
        text = template.render(fields_of(build_context(section, provenance, case_limit, category_limit)))
        if len(text) <= limit:
            return text
    return hard_cut(text, limit)


_SHORTEST_ROW = 8  # "| a | b |" and its newline: no listed row is shorter


def _rows_listed(section: MetricSection, case_limit: int | None, category_limit: int | None) -> int:
    def shown(items: Sequence[Any], cap: int) -> tuple[Sequence[Any], int]:
        return len(items) if cap is None else min(len(items), cap)

    return sum(shown(c.broken_cases, case_limit) + shown(c.fixed_cases, case_limit)
               + shown(c.categories, category_limit) for c in section.analysis.candidates)


_MARKER = "\n\n_(cut at GitHub's size limit; see the JSON or HTML report)_\n"
_CLOSE = "\n</details>\n"


def hard_cut(text: str, limit: int) -> str:
    """Pathological input (enormous names everywhere): keep the top, verdict first, within ``limit``.

    The cut falls at the end of a line, so no table row or escape sequence is left half-written, and every
    ``<details>`` left open is closed, so the marker saying where the rest is stays visible.
    """
    budget = limit - len(_MARKER)
    while True:
        end = text.rfind("\n", 0, budget)
        kept = text[: end + 1] if end >= 0 else ""
        open_details = kept.count("<details>") - kept.count("</details>")
        closing = _CLOSE * open_details
        if len(kept) + len(closing) <= budget or not kept:
            return kept + closing + _MARKER
        budget = len(kept) - len(closing)
