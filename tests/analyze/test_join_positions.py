"""join_positions: the inner join of two case tables' categorical case_id indexes, in case order, computed on the
codes; None when a case is held twice or missing (the caller then joins with pandas)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given
from hypothesis import strategies as st

from releasegate.analyze.pairing import join_positions

_ids = [f"c{i:02d}" for i in range(12)]


def _index(codes: list[int], categories: pd.Index) -> pd.CategoricalIndex:
    return pd.CategoricalIndex(pd.Categorical.from_codes(codes, categories=categories))


@given(st.lists(st.sampled_from(range(12)), max_size=15), st.lists(st.sampled_from(range(12)), max_size=15),
       st.booleans())
def test_it_is_the_inner_join_in_case_order(left_codes, right_codes, sort):
    if sort:  # the common layout: each release's cases in case order
        left_codes, right_codes = sorted(set(left_codes)), sorted(set(right_codes))
    categories = pd.Index(_ids, dtype="str")
    left, right = _index(left_codes, categories), _index(right_codes, categories)
    got = join_positions(left, right)
    if len(set(left_codes)) < len(left_codes) or len(set(right_codes)) < len(right_codes):
        assert got is None  # a case held twice: not joined on codes
        return
    assert got is not None
    left_at, right_at = got
    shared = sorted(set(left_codes) & set(right_codes))
    assert [left_codes[i] for i in left_at] == shared and [right_codes[i] for i in right_at] == shared


def test_a_missing_case_id_is_not_joined_on_codes():
    categories = pd.Index(_ids, dtype="str")
    assert join_positions(_index([0, 1, -1], categories), _index([0, 1, 2], categories)) is None
    assert join_positions(_index([0, 1, 2], categories), _index([-1, 1, 2], categories)) is None
