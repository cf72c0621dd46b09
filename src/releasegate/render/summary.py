"""The GitHub job summary: the verdict table and the rules, appended to ``$GITHUB_STEP_SUMMARY`` by ``check``."""

from __future__ import annotations

from pathlib import Path

from releasegate.model import Report
from releasegate.render.context import build_context
from releasegate.render.filters import environment
from releasegate.render.views import fields_of

# GitHub refuses a step's summary above 1 MiB; other steps may append to the same file, so stay well below.
SUMMARY_LIMIT = 512 * 1024


def render_summary(report: Report, limit: int = SUMMARY_LIMIT) -> str:
    """Markdown for a job summary: verdict per candidate, then which rules fired, cut hard at ``limit`` bytes;
    with several metrics, the candidate x metric grid and the combined headlines."""
    if report.several:
        from releasegate.render.markdown import grid_markdown

        text = grid_markdown(report, marker=False)
    else:
        context = build_context(report.sections[0], report.provenance, 0, 0)
        text = environment("md").get_template("summary.md").render(fields_of(context))
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    marker = "\n\n_(cut at the job summary's size limit; see the full report)_\n"
    return data[: limit - len(marker.encode())].decode("utf-8", errors="ignore") + marker


def append_step_summary(report: Report, path: Path) -> None:
    """Append the summary to the file GitHub names in ``$GITHUB_STEP_SUMMARY`` (other steps may write there too)."""
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(render_summary(report) + "\n")
