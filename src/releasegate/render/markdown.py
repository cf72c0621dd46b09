"""Markdown release note: GitHub-flavoured, verdict first, never over GitHub's 65,536-character comment limit."""

from __future__ import annotations

from releasegate.model import Report
from releasegate.render.context import build_context
from releasegate.render.filters import environment

GITHUB_COMMENT_LIMIT = 65_536

# Progressively shorter listings; the last step also cuts the per-category tables.
_STEPS = ((None, None), (200, None), (50, None), (20, 200), (5, 50), (0, 20), (0, 0))


def render_markdown(report: Report, limit: int = GITHUB_COMMENT_LIMIT) -> str:
    """Render the Markdown note; when it would exceed ``limit`` characters, cut the case and category lists
    (saying how many were cut and where the full lists are) until it fits."""
    template = environment("md").get_template("report.md")
    text = ""
    for step, (case_limit, category_limit) in enumerate(_STEPS):
        # Skip a step that lists more rows than could fit, without rendering it: with 400,000 broken cases
        # the first steps would each render (and throw away) hundreds of megabytes.
        last = step == len(_STEPS) - 1
        if not last and _rows_listed(report, case_limit, category_limit) * _SHORTEST_ROW > limit:
            continue
        text = template.render(build_context(report, case_limit, category_limit))
        if len(text) <= limit:
            return text
    return hard_cut(text, limit)


_SHORTEST_ROW = 8  # "| a | b |" and its newline: no listed row is shorter


def _rows_listed(report: Report, case_limit: int | None, category_limit: int | None) -> int:
    def shown(items, cap):
        return len(items) if cap is None else min(len(items), cap)

    return sum(shown(c.broken_cases, case_limit) + shown(c.fixed_cases, case_limit)
               + shown(c.categories, category_limit) for c in report.analysis.candidates)


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
