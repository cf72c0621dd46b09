"""Column widths of the case tables on the printed page, from the length of what their cells hold.

The print stylesheet lays every table out with ``table-layout: fixed``: WeasyPrint then takes the column widths
from the first row instead of measuring every cell of the table twice (its min- and max-content widths), which
was half of the PDF's layout time. The other tables hold figures of known shape and get their widths from the
stylesheet; the case tables hold data of any length (case ids, categories, groups, metadata such as the input
text), so their shares of the table are worked out here, from counted characters instead of measured text.
Screens keep the automatic layout: the widths travel as the custom property ``--w`` of each ``<col>``, which
only the print rules read.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from releasegate.model import CaseChange
from releasegate.render.filters import MAX_HTML_VALUE

LINE = 110  # the printed table's width in average characters of its 8.3 pt text, on A4 and on Letter
WORD, ID = 10, 16  # longer words (ids, groups) may wrap inside their cell rather than widen the column
ID_CUT, VALUE_CUT = 80, 300  # the template prints at most this much of an id or group, and of a metadata value
# Prose averages 0.53 em a character in DejaVu Sans; a single word (digits, capitals, a bold header) runs to
# 0.7 em; ids and groups are set in the monospaced face, 0.57 em at their size.
WIDE_WORD, MONO = 1.2, 1.1
CRITICAL_TAG = 8  # the "critical" tag after a category name
NUMBER = 9  # a score such as "1,234.568"
PADDING = 1.5  # a cell's padding, and the border of a critical row


def case_columns(rows: Iterable[CaseChange], metadata_columns: Sequence[str], clusters: bool,
                 outcomes: Sequence[str], text_columns: Sequence[str] = ()) -> list[str]:
    """The widths, as percentages of the table, of a case table's columns in the template's order: case,
    category, group (``clusters``), one outcome column per release name in ``outcomes`` (the baseline's and
    the candidate's scores; none for pass/fail), then each metadata column, then two columns (the
    baseline's text and the candidate's) for each per-release column in ``text_columns``.

    Method: each column wants its longest value and needs its longest word (the header's included), counted
    in characters as the template prints them. When the longest values fit on a line, the columns share it
    in that proportion. Otherwise the shares still follow the longest values, so that the long cells of a
    row wrap onto about as many lines each (a row is as tall as its tallest cell), except that no column gets
    less than its longest word. The percentages add up to at most 100: the table never grows past the page.
    """
    rows = list(rows)
    extents = [
        _extent([(r.case_id[:ID_CUT], 0) for r in rows], "case", mono=True),
        _extent([((r.category or "")[:MAX_HTML_VALUE], CRITICAL_TAG if r.critical else 0) for r in rows],
                "category"),
    ]
    if clusters:
        extents.append(_extent([((r.cluster or "")[:ID_CUT], 0) for r in rows], "group", mono=True))
    # A score needs its figures; its header, a release name, may wrap.
    extents += [(NUMBER + PADDING, max(NUMBER, min(len(name), 2 * WORD)) + PADDING) for name in outcomes]
    values_of = [dict(r.metadata) for r in rows]
    for name in metadata_columns:
        extents.append(_extent([(str(v.get(name, ""))[:VALUE_CUT], 0) for v in values_of], name))
    baselines_of = [dict(r.baseline_texts) for r in rows]
    for name in text_columns:
        extents.append(_extent([(str(v.get(name, ""))[:VALUE_CUT], 0) for v in baselines_of], name))
        extents.append(_extent([(str(v.get(name, ""))[:VALUE_CUT], 0) for v in values_of], name))
    wanted = [most for _, most in extents]
    if sum(wanted) > LINE:
        wanted = _shares(extents)
    total = sum(wanted)
    # Rounded down to a tenth of a percent: the few tenths left over are shared out equally by the layout.
    return [f"{int(w / total * 1000) / 10}%" for w in wanted]


def _shares(extents: list[tuple[float, float]]) -> list[float]:
    """A line shared in proportion to the longest values; a column whose share falls short of its longest word
    gets that word's width, and the others share what is left, again in proportion."""
    floored: set[int] = set()
    while True:
        free = max(LINE - sum(extents[i][0] for i in floored), 0)
        wanting = sum(most for i, (_, most) in enumerate(extents) if i not in floored)
        scale = free / wanting if wanting else 0
        short = {i for i, (least, most) in enumerate(extents) if i not in floored and most * scale < least}
        if not short:
            return [least if i in floored else most * scale for i, (least, most) in enumerate(extents)]
        floored |= short


def _extent(cells: list[tuple[str, int]], header: str, mono: bool = False) -> tuple[float, float]:
    """(least, most) width of a column in average characters, padding included: its longest word (the
    header's too; capped) and its longest value. ``cells`` are (text, characters of a tag drawn after it)."""
    word = max((len(w) for text, _ in cells for w in text.split()), default=0)
    longest = max((len(text) + tag for text, tag in cells), default=0)
    least = max(min(max(word, len(header)), ID if mono else WORD), 3) * (MONO if mono else WIDE_WORD)
    most = max(longest * (MONO if mono else 1), least)
    return least + PADDING, most + PADDING
