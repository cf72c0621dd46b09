"""The pull-request comment (``report --comment FILE``, issue 29 item 3): each candidate's verdict, its reasons
in plain words, at most :data:`MAX_CASES` broken cases (critical categories first) and a line pointing to the
full note. Small on purpose (the demo's is under 6,000 characters); the Markdown note (-o .md) stays the whole
note. The first line is the marker the action finds its own comment by and updates it."""

from __future__ import annotations

import re
from dataclasses import dataclass

from releasegate.model import CandidateVerdict, CaseChange, Report
from releasegate.render.filters import environment
from releasegate.render.markdown import MARKER
from releasegate.wording import plain as plain_words

MAX_CASES = 5  # broken cases listed per candidate
DEFAULT_LINK = "The full release note (HTML, PDF and JSON: every figure and every case) is attached to this run"


@dataclass(frozen=True)
class CommentCase:
    case: CaseChange
    metric: str  # the metric it got worse on ("" with one metric)
    binary: bool


@dataclass(frozen=True)
class CommentCandidate:
    verdict: CandidateVerdict
    plain: str  # its reasons in plain words (wording/plain.py)
    cases: list[CommentCase]
    broken_total: int


def _broken(report: Report, name: str) -> tuple[list[CommentCase], int]:
    """The candidate's broken (worsened) cases over every metric, critical categories first, each case once."""
    found: dict[str, CommentCase] = {}
    for section in report.sections:
        analysis = section.analysis
        cand = next(c for c in analysis.candidates if c.name == name)
        for change in cand.broken_cases:
            found.setdefault(change.case_id, CommentCase(change, section.metric if report.several else "",
                                                         analysis.mcnemar_path))
    ordered = sorted(found.values(), key=lambda c: not c.case.critical)  # stable: each listing's order kept
    return ordered[:MAX_CASES], len(ordered)


_URL = re.compile(r"https?://[^\s<>()\[\]`*_|\\]+")


def comment_context(report: Report, link: str | None = None) -> dict:
    by_name = plain_words.inputs(report)
    baseline = report.sections[0].analysis.baseline
    candidates = []
    for verdict in report.verdicts:
        parts = by_name[verdict.candidate]
        cases, total = _broken(report, verdict.candidate)
        candidates.append(CommentCandidate(verdict, plain_words.paragraph(parts, baseline), cases, total))
    analysis = report.sections[0].analysis
    return dict(marker=MARKER, title=report.provenance.title, baseline=baseline, n_cases=analysis.n_cases,
                version=report.provenance.tool_version, ship_all=report.ship_all, candidates=candidates,
                link=link, link_is_url=bool(link and _URL.fullmatch(link)), default_link=DEFAULT_LINK,
                max_cases=MAX_CASES)


def render_comment(report: Report, link: str | None = None) -> str:
    """The comment's Markdown; ``link`` is where the full note is (the run's artifact page, say)."""
    return environment("md").get_template("comment.md").render(comment_context(report, link))
