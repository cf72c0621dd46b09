"""The CI gate's lines: a headline cut before each sentence that follows its reason, never elsewhere."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from releasegate.wording.verdict import FOLLOWING, headline_lines

# Text that may hold the openers' words, but never a space followed by a whole opener.
_words = st.lists(st.sampled_from(list("abc .:;,W") + ["What would", "settle", "Comparing"]), max_size=12).map("".join)


@given(st.lists(st.tuples(st.sampled_from(FOLLOWING), _words), max_size=6), _words)
def test_the_lines_are_the_headline_cut_before_each_following_sentence(sentences, reason):
    reason = "NOT PROVEN r2: " + reason
    headline = " ".join([reason, *(f"{opener}{text}" for opener, text in sentences)])
    lines = headline_lines(headline)
    assert " ".join(lines) == headline
    if not any(f" {opener}" in reason for opener in FOLLOWING):
        assert lines[0] == reason
        assert len(lines) >= 1 + len(sentences)  # a sentence's own text may hold an opener: cut there too
    assert all(line.startswith(FOLLOWING) for line in lines[1:])


def test_a_headline_without_those_sentences_is_one_line():
    line = "DON'T SHIP r3: it broke 6 of 40 passing Fraud cases (fixed none), a critical category."
    assert headline_lines(line) == [line]
