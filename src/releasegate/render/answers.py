"""The baseline's and the candidate's answers side by side, with a word-level diff: for the context builder.

Each per-release column of a broken or fixed case (the output, the grader's reason, an error:
load/per_release.py) becomes an :class:`AnswerPair`: both texts whole (the Markdown cuts them, the JSON keeps
them), and, for the HTML, both as escaped markup in which the words only the baseline has are wrapped in
``<del>`` and the words only the candidate has in ``<ins>``. The diff is computed here, once, so that the
templates only place it.

Method: :class:`difflib.SequenceMatcher` over words (a word with the spaces after it, so that the text is
rebuilt exactly), without its "junk" heuristic, which would hide frequent words such as "the" from the match.
Its cost grows with the product of the two lengths, so texts longer than :data:`DIFF_WORDS` words, and cases
past the first :data:`DIFF_CASES` of a list, are shown whole without marks, and say so. Marks help only when
the answers are mostly alike (a small edit): below a word-level similarity of :data:`ALIKE` (difflib's ratio,
2 x matched words / all words) the two answers are shown plain, side by side, since striking one whole answer
and underlining the other says no more than "they differ".
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from markupsafe import Markup, escape

from releasegate.model import CaseChange, CaseListing
from releasegate.text import visible

DIFF_WORDS = 2_000  # per text; two such texts take about 0.1 s to compare
ALIKE = 0.5  # difflib ratio over words: at least half of the two answers' words match
MIN_MATCH = 3  # words: a shorter match between two changes is shown as part of the change
DIFF_CASES = 500  # per list of broken or fixed cases
MARKDOWN_CUT = 160  # characters of an answer in a Markdown table cell, as the other metadata cells
SHORT = 300  # characters shown before "whole text" in the HTML table (as the other metadata cells)
# The HTML holds at most this much of one answer (the JSON holds all of it): WeasyPrint lays out a
# 100 kB text for minutes.
WHOLE = 20_000
_WORDS = re.compile(r"\S+\s*|\s+")


@dataclass(frozen=True)
class AnswerPair:
    """One per-release column of one case: the two texts, and the HTML of each with the difference marked.

    ``*_short`` is the first :data:`SHORT` characters' markup (the whole when shorter); ``*_long`` says
    whether that text is longer, so that the table shows its start and an expandable whole.
    """

    column: str
    baseline: str
    candidate: str
    baseline_html: Markup
    candidate_html: Markup
    baseline_short: Markup
    candidate_short: Markup
    baseline_long: bool
    candidate_long: bool
    marked: bool  # False when the texts were too long (or too many) to compare word by word


def answer_pairs(change: CaseChange, diff: bool = True) -> list[AnswerPair]:
    """The case's per-release columns, in order, as baseline/candidate pairs."""
    candidate = dict(change.metadata)
    pairs = []
    for column, base_text in change.baseline_texts:
        pairs.append(pair_of(column, base_text, candidate.get(column, ""), diff))
    return pairs


def answer_rows(changes: Sequence[CaseChange]) -> list[list[AnswerPair]]:
    """Per case of a listing, its answer pairs; only the first :data:`DIFF_CASES` cases are diffed."""
    return [answer_pairs(change, diff=i < DIFF_CASES) for i, change in enumerate(changes)]


def any_longer(rows: Sequence[Sequence[AnswerPair]], limit: int = MARKDOWN_CUT) -> bool:
    """Whether any answer of the listing is longer than ``limit`` characters (the Markdown says it cut it)."""
    return any(len(a.baseline) > limit or len(a.candidate) > limit for row in rows for a in row)


def text_columns(*listings: Sequence[CaseChange]) -> list[str]:
    """The per-release columns of a candidate's listings (every case carries the same ones) that hold a text on
    either side for some case: an error column is empty on every compared case (errored cases leave the
    comparison), and drawn it would only squeeze the answers. A CaseListing is read by its columns."""
    filled: dict[str, bool] = {}
    for changes in listings:
        if isinstance(changes, CaseListing):
            candidate_side = dict(changes.metadata)
            for column, texts in changes.baseline_texts:
                filled[column] = filled.get(column, False) or any(
                    t.strip() for t in (*texts, *candidate_side.get(column, ())))
            continue
        for change in changes:
            candidate = dict(change.metadata)
            for column, text in change.baseline_texts:
                filled[column] = filled.get(column, False) or bool(text.strip() or candidate.get(column, "").strip())
    return [column for column, any_text in filled.items() if any_text]


def diff_runs(baseline: str, candidate: str, diff: bool = True) -> tuple[list[tuple[str, str]],
                                                                         list[tuple[str, str]], bool]:
    """Both texts' first :data:`WHOLE` characters as runs of :func:`word_diff`, and whether they were compared
    word by word (False when ``diff`` is off or either text is longer than :data:`DIFF_WORDS` words: then
    each is one unmarked run). Answers that are mostly different come back unmarked too (:data:`ALIKE`)."""
    base_words = _WORDS.findall(baseline[:WHOLE])
    cand_words = _WORDS.findall(candidate[:WHOLE])
    marked = diff and len(base_words) <= DIFF_WORDS and len(cand_words) <= DIFF_WORDS
    base_parts, cand_parts = [("same", "".join(base_words))], [("same", "".join(cand_words))]
    if marked and base_words and cand_words and base_words != cand_words:
        matcher = difflib.SequenceMatcher(None, base_words, cand_words, autojunk=False)
        if matcher.ratio() >= ALIKE:  # the same matcher's blocks give the runs
            base_parts, cand_parts = _runs(matcher, base_words, cand_words)
    return base_parts, cand_parts, marked


def pair_of(column: str, baseline: str, candidate: str, diff: bool = True) -> AnswerPair:
    base_parts, cand_parts, marked = diff_runs(baseline, candidate, diff)
    base_cut, cand_cut = len(baseline) > WHOLE, len(candidate) > WHOLE
    return AnswerPair(
        column=column,
        baseline=baseline,
        candidate=candidate,
        baseline_html=_markup(base_parts, None, base_cut),
        candidate_html=_markup(cand_parts, None, cand_cut),
        baseline_short=_markup(base_parts, SHORT, len(baseline) > SHORT),
        candidate_short=_markup(cand_parts, SHORT, len(candidate) > SHORT),
        baseline_long=len(baseline) > SHORT,
        candidate_long=len(candidate) > SHORT,
        marked=marked,
    )


def word_diff(base_words: Sequence[str], cand_words: Sequence[str]) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """Both texts as runs of ("same" | "gone" | "new", text): "gone" words are the baseline's only, "new"
    words the candidate's only. Joining either side's runs gives its text back exactly."""
    return _runs(difflib.SequenceMatcher(None, list(base_words), list(cand_words), autojunk=False), base_words,
                 cand_words)


def _runs(matcher: difflib.SequenceMatcher[str], base_words: Sequence[str],
          cand_words: Sequence[str]) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    base_parts: list[tuple[str, str]] = []
    cand_parts: list[tuple[str, str]] = []
    for op, i1, i2, j1, j2 in _absorb_short_matches(matcher.get_opcodes()):
        if op == "equal":
            base_parts.append(("same", "".join(base_words[i1:i2])))
            cand_parts.append(("same", "".join(cand_words[j1:j2])))
            continue
        if i2 > i1:
            base_parts.append(("gone", "".join(base_words[i1:i2])))
        if j2 > j1:
            cand_parts.append(("new", "".join(cand_words[j1:j2])))
    return base_parts, cand_parts


def _absorb_short_matches(opcodes: list[tuple[str, int, int, int, int]]) -> list[tuple[str, int, int, int, int]]:
    """Two different answers share "the", "and", "your" here and there; marked as common, those words chop
    a rewritten sentence into confetti. A match of fewer than :data:`MIN_MATCH` words between two changes
    counts as changed; matches at either end (a shared greeting, a shared last sentence) stay."""
    merged: list[list[Any]] = []
    for k, (op, i1, i2, j1, j2) in enumerate(opcodes):
        inner = 0 < k < len(opcodes) - 1
        if op == "equal" and inner and i2 - i1 < MIN_MATCH:
            op = "replace"
        if op != "equal" and merged and merged[-1][0] != "equal":
            merged[-1][0], merged[-1][2], merged[-1][4] = "replace", i2, j2  # extend the change before
        else:
            merged.append([op, i1, i2, j1, j2])
    return [tuple(m) for m in merged]


_TAGS = {"same": None, "gone": "del", "new": "ins"}


def _markup(parts: list[tuple[str, str]], limit: int | None, cut: bool) -> Markup:
    """Escaped HTML of the runs, at most ``limit`` characters of text, ending on a whole word when cut; "…"
    when the text goes on."""
    out, used = [], 0
    for kind, text in parts:
        last = limit is not None and used + len(text) >= limit
        if last and used + len(text) > limit:
            text = text[: limit - used]
            space = text.rfind(" ")
            text = text[: space + 1] if space > 0 else text
            cut = True
        used += len(text)
        if text:
            shown = escape(visible(text))
            tag = _TAGS[kind]
            out.append(Markup(f"<{tag}>{shown}</{tag}>") if tag else shown)
        if last:
            break
    if cut:
        out.append(Markup("…"))
    return Markup("").join(out)
