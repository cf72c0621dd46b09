"""A NOT PROVEN reason in the Markdown's verdict table: whole sentences, one to a line, within the cell's budget;
the HTML's verdict box breaks the line before each sentence that follows the reason."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from releasegate.render.filters import ELLIPSIS, md_escape, whole_sentences
from releasegate.wording.verdict import FOLLOWING, headline_lines

_text = st.text(alphabet="abc ,;", min_size=0, max_size=300)


@given(_text, st.lists(st.tuples(st.sampled_from(FOLLOWING), _text), max_size=5), st.integers(20, 900))
def test_the_cell_holds_whole_sentences_within_its_budget(reason, following, length):
    because = " ".join(["overall" + reason, *(f"{opener}{text}" for opener, text in following)])
    cell = whole_sentences(because, length).split("\n")
    lines = headline_lines(because)
    if cell[-1] == ELLIPSIS and len(cell) > 1:
        cell = cell[:-1]
        assert len(cell) < len(lines)  # something was left out, and the marker says so
    else:
        assert len(cell) == len(lines)
    if len(lines[0]) <= length:
        assert cell == lines[:len(cell)]  # whole sentences, in order
        assert len("\n".join(cell)) <= length
    else:
        assert cell[0] == lines[0][:length - 1] + ELLIPSIS


def test_the_markdown_shows_each_sentence_on_a_line_of_the_cell():
    because = ("the data cannot show it is no worse. What would settle it: 400 more cases. "
               "Whether more runs would help is unknown: one run.")
    assert md_escape(whole_sentences(because)) == ("the data cannot show it is no worse.<br>What would settle it: "
                                                   "400 more cases.<br>Whether more runs would help is unknown: "
                                                   "one run.")
