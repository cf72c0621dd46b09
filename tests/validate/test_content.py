"""validate/content.py: rows compared as a reader reads them, whatever the layout of the rows (two blocks as
they lie, or rows anywhere), against a plain comparison of the values written here."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from releasegate.validate.content import content_of, same_content

TEXTS = ["What is 2+2?", " What is 2+2?\r\n", "Name a fruit.", "", None, "Café", "Cafe\u0301"]


def _expected(values, left, right):
    import unicodedata

    def norm(v):
        text = unicodedata.normalize("NFC", (v or "").replace("\r\n", "\n")).strip()
        return text or None

    return [norm(values[a]) == norm(values[b]) for a, b in zip(left, right)]


@settings(max_examples=80, derandomize=True, deadline=None, database=None)
@given(values=st.lists(st.sampled_from(TEXTS), min_size=4, max_size=40), data=st.data())
def test_same_content_agrees_with_a_plain_comparison_in_any_layout(values, data):
    n = len(values) // 2
    if data.draw(st.booleans()):  # two blocks in the same order: compared as they lie
        left, right = np.arange(n), np.arange(n, 2 * n)
    else:
        left = np.array(data.draw(st.permutations(range(len(values))))[:n])
        right = np.array(data.draw(st.permutations(range(len(values))))[:n])
    table = pd.DataFrame({"input": pd.array(values, dtype="string")})
    content = content_of(table)
    if content is None:
        return
    got = same_content(table, content, left, right).tolist()
    assert got == _expected(values, left, right)


def test_the_adapters_hash_wins_over_the_tidy_columns():
    table = pd.DataFrame({"input": ["a", "b"], "content_hash": ["h1", "h1"]})
    content = content_of(table)
    assert content is not None and content.columns == ("content_hash",)
    assert same_content(table, content, np.array([0]), np.array([1])).tolist() == [True]


def test_columns_a_case_table_joined_carry_no_content():
    table = pd.DataFrame({"input": ["a", "b"]})
    assert content_of(table, case_columns=("input",)) is None
