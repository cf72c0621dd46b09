"""The GitHub job summary, appended to ``$GITHUB_STEP_SUMMARY`` by ``check``: each candidate's paragraph in plain
words first (wording/plain.py, what the reader of a CI run needs), then the statistics collapsed: the verdicts'
reasons and the rules, or with several metrics the candidate x metric grid and the combined headlines."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from releasegate.model import CandidateVerdict, Report
from releasegate.render.console import errored, excluded_inputs, uncalibrated
from releasegate.render.context import build_context
from releasegate.render.filters import environment
from releasegate.render.views import fields_of
from releasegate.text import one_line
from releasegate.wording import plain as plain_words
from releasegate.wording.judged import not_judged_lines

# GitHub refuses a step's summary above 1 MiB; other steps may append to the same file, so stay well below.
SUMMARY_LIMIT = 512 * 1024


@dataclass(frozen=True)
class PlainVerdict:
    verdict: CandidateVerdict
    text: str  # the candidate's paragraph in plain words


def plain_verdicts(report: Report) -> list[PlainVerdict]:
    """Each candidate's verdict with its paragraph, in the report's order (the summary's and the action's
    annotations' opening)."""
    paragraphs = plain_words.paragraphs(report)
    return [PlainVerdict(v, paragraphs[v.candidate]) for v in report.verdicts]


def render_summary(report: Report, limit: int = SUMMARY_LIMIT) -> str:
    """Markdown for a job summary, cut hard at ``limit`` bytes."""
    if report.several:
        from releasegate.render.markdown import grid_markdown

        statistics = grid_markdown(report, marker=False, not_judged=False)
    else:
        context = fields_of(build_context(report.sections[0], report.provenance, 0, 0))
        statistics = environment("md").get_template("summary_rules.md").render(context)
    # What the reader must not miss stays above the fold: errored cases, releases not judged, inputs left out, an
    # uncalibrated judge.
    text = environment("md").get_template("summary.md").render(
        decision=report.decision, not_proven_allowed=report.provenance.policy.get("not_proven") == "warn",
        title=report.provenance.title, plain=plain_verdicts(report), statistics=statistics,
        errored=[(v.candidate, line) for v in report.verdicts for line in errored(report, v.candidate)],
        not_judged=not_judged_lines(report.not_judged, [v.candidate for v in report.verdicts]),
        excluded=excluded_inputs(report),
        uncalibrated=[line[0].upper() + line[1:] for line in uncalibrated(report)])
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    marker = "\n\n_(cut at the job summary's size limit; see the full report)_\n"
    return data[: limit - len(marker.encode())].decode("utf-8", errors="ignore") + marker


def render_plain_text(report: Report) -> str:
    """Each candidate's verdict and paragraph in plain words, one line each ("DON'T SHIP r2: Against r1 on 400
    cases: ..."), in the report's order: what the GitHub action's annotations open with, then the check line."""
    return "".join(f"{one_line(f'{p.verdict.label} {p.verdict.candidate}: {p.text}')}\n" for p in plain_verdicts(report))


def append_step_summary(report: Report, path: Path) -> None:
    """Append the summary to the file GitHub names in ``$GITHUB_STEP_SUMMARY`` (other steps may write there too)."""
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(render_summary(report) + "\n")
