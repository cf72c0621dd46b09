"""The pull-request comment (``report --comment FILE``, issue 29 item 3): each candidate's verdict, its reasons
in plain words, at most :data:`MAX_CASES` broken cases (critical categories first) and a line pointing to the
full note; the first of them open in ``<details>``: the case's input and both answers, trimmed, as many as keep
the comment under :data:`COMMENT_LIMIT` characters (the reviewer sees what broke without the artifact). The
Markdown note (-o .md) stays the whole note. The first line is the marker the action finds its own comment by and
updates it."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

from releasegate.kinds import OutcomeKind
from releasegate.model import CandidateVerdict, CaseChange, Report
from releasegate.render.answers import answer_pairs
from releasegate.render.console import excluded_inputs
from releasegate.render.filters import ELLIPSIS, environment
from releasegate.render.markdown import MARKER
from releasegate.wording import plain as plain_words
from releasegate.wording import sections as section_words
from releasegate.wording.judged import not_judged_lines

MAX_CASES = 5  # broken cases listed per candidate
COMMENT_LIMIT = 8_000  # characters: read in a pull request without scrolling past it
INPUT_COLUMNS = ("input", "prompt", "question", "query")  # the case's input, the first of these it has
INPUT_CUT = 300  # characters of an input in a case's details
ANSWER_CUT = 400  # characters of each answer
DEFAULT_LINK = "The full release note (HTML, PDF and JSON: every figure and every case) is attached to this run"


@dataclass(frozen=True)
class ShownAnswer:
    column: str  # the per-release column (output, the grader's reason, ...)
    baseline: str
    candidate: str


@dataclass(frozen=True)
class CommentCase:
    case: CaseChange
    metric: str  # the metric it got worse on ("" with one metric)
    binary: bool
    figure: str  # what its before and after are without binary: a pass rate over runs, or a score
    input: str = ""  # the case's input, trimmed ("" when the data has none)
    answers: tuple[ShownAnswer, ...] = ()  # both releases' answers, trimmed
    detailed: bool = False  # shown with its input and answers

    @property
    def has_texts(self) -> bool:
        return bool(self.input or self.answers)


@dataclass(frozen=True)
class CommentCandidate:
    verdict: CandidateVerdict
    plain: str  # its reasons in plain words (wording/plain.py)
    cases: list[CommentCase]
    broken_total: int


def trimmed(text: str, length: int) -> str:
    """At most ``length`` characters, ending on a whole word and "…" when the text goes on."""
    text = text.strip()
    if len(text) <= length:
        return text
    cut = text[:length]
    space = cut.rfind(" ")
    return (cut[:space] if space > length // 2 else cut).rstrip() + ELLIPSIS


def _texts(change: CaseChange) -> tuple[str, tuple[ShownAnswer, ...]]:
    """The case's input and its answers on both releases, trimmed."""
    metadata = dict(change.metadata)
    given = next((metadata[c] for c in INPUT_COLUMNS if metadata.get(c, "").strip()), "")
    answers = tuple(ShownAnswer(a.column, trimmed(a.baseline, ANSWER_CUT), trimmed(a.candidate, ANSWER_CUT))
                    for a in answer_pairs(change, diff=False) if a.baseline.strip() or a.candidate.strip())
    return trimmed(given, INPUT_CUT), answers


def _broken(report: Report, name: str) -> tuple[list[CommentCase], int]:
    """The candidate's broken (worsened) cases over every metric, critical categories first, each case once."""
    found: dict[str, CommentCase] = {}
    for section in report.sections:
        analysis = section.analysis
        cand = next(c for c in analysis.candidates if c.name == name)
        for change in cand.broken_cases:
            if change.case_id not in found:
                found[change.case_id] = CommentCase(
                    change, section.metric if report.several else "", analysis.mcnemar_path,
                    section_words.case_figure_name(analysis.outcome_kind == OutcomeKind.BINARY))
    ordered = sorted(found.values(), key=lambda c: not c.case.critical)  # stable: each listing's order kept
    return [replace(c, **dict(zip(("input", "answers"), _texts(c.case)))) for c in ordered[:MAX_CASES]], len(ordered)


_URL = re.compile(r"https?://[^\s<>()\[\]`*_|\\]+")


def comment_context(report: Report, link: str | None = None) -> dict[str, Any]:
    by_name = plain_words.inputs(report)
    baseline = report.sections[0].analysis.baseline
    candidates = []
    for verdict in report.verdicts:
        parts = by_name[verdict.candidate]
        cases, total = _broken(report, verdict.candidate)
        candidates.append(CommentCandidate(verdict, plain_words.paragraph(parts, baseline), cases, total))
    analysis = report.sections[0].analysis
    return dict(marker=MARKER, title=report.provenance.title, baseline=baseline, n_cases=analysis.n_cases,
                version=report.provenance.tool_version, ship_all=report.ship_all, decision=report.decision,
                not_proven_allowed=report.not_proven_allowed, candidates=candidates,
                link=link, link_is_url=bool(link and _URL.fullmatch(link)), default_link=DEFAULT_LINK,
                max_cases=MAX_CASES, excluded=excluded_inputs(report),
                not_judged=not_judged_lines(report.not_judged, [v.candidate for v in report.verdicts]))


def render_comment(report: Report, link: str | None = None, limit: int = COMMENT_LIMIT) -> str:
    """The comment's Markdown; ``link`` is where the full note is (the run's artifact page, say). The first
    ``k`` listed cases of every candidate open with their input and answers, ``k`` the most that keeps the comment
    under ``limit`` characters (none when even one does not)."""
    template = environment("md").get_template("comment.md")
    context = comment_context(report, link)
    text = ""
    for k in range(MAX_CASES, -1, -1):
        candidates = [replace(c, cases=[replace(case, detailed=i < k and case.has_texts)
                                        for i, case in enumerate(c.cases)]) for c in context["candidates"]]
        text = template.render({**context, "candidates": candidates})
        if len(text) < limit:
            break
    return text
