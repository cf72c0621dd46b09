"""Jinja filters: number formatting and Markdown escaping. Formatting only; nothing here computes a statistic."""

from __future__ import annotations

import numbers
import re
from collections.abc import Callable
from functools import cache
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from markupsafe import Markup, escape

from releasegate import fmt
from releasegate.render.template_cache import template_cache
from releasegate.text import visible
from releasegate.wording.verdict import headline_lines

ELLIPSIS = "…"
# Any one value longer than this is cut even where the template did not ask (a 100 kB release name would
# otherwise repeat in every heading); the longest explicit cut in templates/report.md is 600. A candidate's
# paragraph in plain words (up to about 1,100 characters: a NOT PROVEN with runs and what would settle it) passes
# whole, as in the HTML, whose cap is the same.
MAX_MD_VALUE = 2000


class MdRaw(str):
    """Text that is already Markdown and must not be escaped (built only from template-owned pieces)."""


_MD_SPECIAL = re.compile(r"([\\`*_\[\]#~|<>&!])")
_MD_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
# "@name", "#123" and "GH-123" from data would ping people and cross-link issues when the note is posted on
# GitHub, and bare URLs and "www." become links; a zero-width space after the sign (or inside "://") keeps
# the text and stops the autolink (as dependency bots do). Every "@" before a name is defused, whatever
# precedes it: GitHub also mentions in "@@octocat" and "é@octocat".
_MD_AUTOLINK = re.compile(r"@(?=[A-Za-z0-9])|\\#(?=\d)|(?i:\bGH-)(?=\d)|(?i:\bwww)(?=\.)"
                          r"|(?i:[a-z][a-z0-9+.-]*:)(?=//)")
_ZERO_WIDTH_SPACE = "&#8203;"


def md_escape(value: Any) -> str:
    """Escape any value for a GitHub Markdown table cell or paragraph.

    Backslash first, then ``|`` (GFM splits cells before it parses code spans), the inline markup characters,
    and ``& < >`` as entities so no HTML (``<details>``, ``<script>``) can be opened from data; newlines
    become ``<br>`` so a value cannot end a table row or start a block. Control and bidi-override
    characters are shown as codes (:func:`releasegate.text.visible`), and ``@mentions`` / ``#123``
    references are defused so that posting the note notifies nobody.
    """
    if value is None:
        return ""
    if isinstance(value, MdRaw):
        return str(value)
    text = visible(str(value))

    def repl(match: re.Match[str]) -> str:
        ch = match.group(1)
        return _MD_ENTITIES.get(ch, "\\" + ch)

    text = _MD_SPECIAL.sub(repl, text)
    text = _MD_AUTOLINK.sub(lambda m: m.group(0) + _ZERO_WIDTH_SPACE, text)
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\n", "<br>")
    return text


def inline_html(value: Any) -> MdRaw:
    """Escape a value for raw HTML inside Markdown (a ``<summary>`` line, where GitHub reads no Markdown and
    a backslash escape would show): HTML entities, control characters shown as codes, mentions and references
    defused as :func:`md_escape` does."""
    text = str(escape(visible("" if value is None else str(value))))
    return MdRaw(_MD_AUTOLINK.sub(lambda m: m.group(0) + _ZERO_WIDTH_SPACE, text).replace("\n", " "))


def sentences(value: Any) -> list[str]:
    """A verdict's reason as lines: the reason, then each sentence that follows it (what would settle a NOT
    PROVEN, the runs, the later look), as :func:`releasegate.wording.verdict.headline_lines` cuts them."""
    return headline_lines("" if value is None else str(value))


def whole_sentences(value: Any, length: int = 600) -> str:
    """The lines of :func:`sentences` that fit in ``length`` characters, whole, one to a line (a Markdown cell
    shows them with line breaks); a first line longer than that is cut with the marker, and the marker on a last
    line of its own says that sentences were left out (the HTML and the JSON carry them all)."""
    first, *following = sentences(value)
    kept = [cut(first, length)]
    for line in following:
        if sum(map(len, kept)) + len(kept) + len(line) > length:
            return "\n".join([*kept, ELLIPSIS])
        kept.append(line)
    return "\n".join(kept)


# The characters of a printed figure (-0.0005, +1.5, <0.001, 1,634): a cut never ends inside one.
_FIGURE_END = re.compile(r"[-+<>\d.,]*[\d.]$")
MAX_FIGURE = 24


def cut(value: Any, length: int = 160) -> str:
    """Cut a long text with a visible marker; a figure the cut would split is left out whole ("-0.0005, …", not
    "-0.00…", which reads as a negative zero)."""
    text = "" if value is None else str(value)
    if len(text) <= length:
        return text
    head = text[: length - 1]
    split = _FIGURE_END.search(head) if text[length - 1] in "0123456789." else None
    if split is not None and len(split.group()) <= MAX_FIGURE:  # a figure, not a long run of digits in data
        head = head[: split.start()]
    return head + ELLIPSIS


# The three verdicts as the templates show them (issue 34): a CSS class (green, red, amber), an icon, and the
# Markdown's mark. NOT PROVEN is never drawn as SHIP. Each takes a verdict (anything with a ``decision``) or a
# Decision.
_TONES = {"ship": "ship", "dont_ship": "dont", "not_proven": "unproven"}
_ICONS = {"ship": "✓", "dont_ship": "✗", "not_proven": "?"}
_MARKS = {"ship": "✅", "dont_ship": "❌", "not_proven": "⚠️"}


def _decision_value(v: Any) -> str:
    decision = getattr(v, "decision", v)
    return decision.value


def tone(v: Any) -> str:
    """The CSS class of a verdict: "ship", "dont" or "unproven"."""
    return _TONES[_decision_value(v)]


def icon(v: Any) -> str:
    return _ICONS[_decision_value(v)]


def verdict_mark(v: Any, bold: bool = True) -> str:
    """"✅ **SHIP**", "❌ **DON'T SHIP**" or "⚠️ **NOT PROVEN**" (Markdown, template-owned)."""
    decision = getattr(v, "decision", v)
    label = f"**{decision.label}**" if bold else decision.label
    return MdRaw(f"{_MARKS[decision.value]} {label}")


def cell_mark(v: Any) -> str:
    """The grid cell's mark alone."""
    return MdRaw(_MARKS[_decision_value(v)])


def _ci_pct(rate: Any) -> str:
    return fmt.interval_pct(rate.ci_low, rate.ci_high)


def _numeric(function: Callable[..., str]) -> Callable[..., MdRaw]:
    # Formatted numbers hold only digits, signs, brackets and units: safe as Markdown, and left unescaped so
    # the raw text of a comment stays readable.
    return lambda *args, **kwargs: MdRaw(function(*args, **kwargs))


def count(value: Any) -> Any:
    """A whole number (a count of cases, rows, categories) with its thousands grouped, as the sentences beside it
    print it; anything else (a missing count) as it is."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return MdRaw(fmt.count(int(value)))
    return value


FILTERS = {
    "count": count,
    "pct": _numeric(fmt.pct),
    "points": _numeric(fmt.points),
    "size_points": _numeric(fmt.size_points),
    "pvalue": _numeric(fmt.pvalue),
    "p_is": _numeric(fmt.p_is),
    "plural": _numeric(fmt.plural),
    "number": _numeric(fmt.number),
    "signed": _numeric(fmt.signed),
    "ratio": _numeric(fmt.ratio),
    "money": _numeric(fmt.money),
    "ci_points": _numeric(lambda c: fmt.interval_points(c.ci_low, c.ci_high)),
    "ci_pct": _numeric(_ci_pct),
    "cut": cut,
    "sentences": sentences,
    "whole_sentences": whole_sentences,
    "tone": tone,
    "icon": icon,
    "verdict_mark": verdict_mark,
    "cell_mark": cell_mark,
    "inline_html": inline_html,
}


def _finalize_markdown(value: Any) -> Any:
    if not isinstance(value, MdRaw) and value is not None and len(str(value)) > MAX_MD_VALUE:
        value = cut(value, MAX_MD_VALUE)
    return md_escape(value)


# The HTML (and so the PDF) caps any one value too: the full text stays in the JSON, and a 100 kB unbreakable
# string would take WeasyPrint minutes to lay out.
MAX_HTML_VALUE = 2000


def _finalize_html(value: Any) -> Any:
    # Markup (the inline SVG charts, |tojson) is the renderer's own output and passes whole. Data text shows
    # its control and bidi characters as codes, as in the Markdown: a right-to-left override would make
    # "refund-\u202egnp.exe" read "refund-exe.png" in the HTML and the PDF.
    if isinstance(value, str) and not isinstance(value, Markup):
        value = visible(value)
        if len(value) > MAX_HTML_VALUE:
            return cut(value, MAX_HTML_VALUE)
    return value


@cache
def environment(kind: str) -> Environment:
    """The Jinja environment of one output kind: "html" autoescapes, "md" escapes every expression for GFM.
    One per kind and process, so that each template is compiled once: a new environment compiled the templates
    again on every render (0.1-0.2 CPU s of each Markdown, HTML or PDF note). Callers only read it."""
    if kind == "md":
        env = Environment(loader=PackageLoader("releasegate", "templates"), autoescape=False,
                          finalize=_finalize_markdown, undefined=StrictUndefined, trim_blocks=True,
                          lstrip_blocks=True, keep_trailing_newline=True)
    else:
        env = Environment(loader=PackageLoader("releasegate", "templates"),
                          autoescape=select_autoescape(["html", "htm", "xml", "svg"], default=True),
                          finalize=_finalize_html, undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    env.filters.update(FILTERS)
    env.filters["raw"] = MdRaw
    # Compiled templates kept between commands (render/template_cache.py): set last, as it hashes the above.
    env.bytecode_cache = template_cache(env, kind)
    return env
