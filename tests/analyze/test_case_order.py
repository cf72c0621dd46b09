"""The changed-case listings sort case ids and categories by their categorical codes when those sort as the text
(analyze/pairing.text_order_key), and by the text otherwise: the same order either way."""

from __future__ import annotations

from unittest import mock

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from releasegate.analyze import case_view
from releasegate.analyze.case_view import capped
from releasegate.analyze.pairing import case_changes, text_order_key
from releasegate.validate import keycodes

ids = st.text(alphabet=st.sampled_from(["a", "B", "b", "0", "9", "-", "é", "Z", " "]), min_size=1, max_size=4)


def _paired(case_ids: list[str], categories: list[str], base: list[float], cand: list[float], categorical: bool):
    order = sorted(range(len(case_ids)), key=lambda i: case_ids[i])  # pair() sorts by case id
    frame = pd.DataFrame({"case_id": [case_ids[i] for i in order], "category": [categories[i] for i in order],
                          "base": [base[i] for i in order], "cand": [cand[i] for i in order]})
    if categorical:
        frame["case_id"] = frame["case_id"].astype("str")
        frame["category"] = frame["category"].astype("str")
        keycodes.as_categories(frame, ("case_id", "category"))
    else:
        frame = frame.astype({"case_id": object, "category": object})
    return frame.set_index("case_id")


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.lists(ids, min_size=1, max_size=30, unique=True).flatmap(lambda names: st.tuples(
    st.just(names),
    st.lists(st.sampled_from(["Fees", "fraud", "Fraud", "Übersicht", "a"]), min_size=len(names), max_size=len(names)),
    st.lists(st.sampled_from([0.0, 1.0, 0.5]), min_size=len(names), max_size=len(names)),
    st.lists(st.sampled_from([0.0, 1.0, 0.25]), min_size=len(names), max_size=len(names)))),
    st.sampled_from([(), ("Fraud",), ("a", "Fees")]))
def test_the_listing_order_is_the_same_on_codes_and_on_text(data, critical):
    names, categories, base, cand = data
    on_codes = _paired(names, categories, base, cand, categorical=True)
    on_text = _paired(names, categories, base, cand, categorical=False)
    assert text_order_key(on_codes.index) is not None and text_order_key(on_text.index) is None
    mask = (on_codes["base"] != on_codes["cand"]).to_numpy()
    listed = [(c.case_id, c.category) for c in case_changes(on_codes, mask, (), critical)]
    assert listed == [(c.case_id, c.category) for c in case_changes(on_text, mask, (), critical)]
    everything = np.ones(len(names), dtype=bool)
    with mock.patch.object(case_view, "MAX_LISTED", 3):  # the cap cuts the same cases
        assert np.array_equal(capped(on_codes, everything, critical), capped(on_text, everything, critical))


def test_a_callers_categorical_in_its_own_order_is_sorted():
    frame = pd.DataFrame({"case_id": pd.Categorical(["b", "a", "c"], categories=["c", "b", "a"])})
    keycodes.as_categories(frame, ("case_id",))
    assert list(frame["case_id"].cat.categories) == ["a", "b", "c"] and list(frame["case_id"]) == ["b", "a", "c"]


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.lists(ids, min_size=1, max_size=25, unique=True), st.data())
def test_joining_on_the_codes_is_pandas_join_sorted_by_case(names, data):
    from releasegate.analyze.pairing import join_cases

    column = pd.Series(names, dtype="str")
    categories = pd.Categorical(column).categories
    left_ids = data.draw(st.lists(st.sampled_from(names), unique=True, max_size=len(names)))
    right_ids = data.draw(st.lists(st.sampled_from(names), unique=True, max_size=len(names)))

    def frame(chosen: list[str], name: str, categorical: bool) -> pd.DataFrame:
        index = (pd.CategoricalIndex(chosen, dtype=pd.CategoricalDtype(categories), name="case_id") if categorical
                 else pd.Index(chosen, dtype=object, name="case_id"))
        return pd.DataFrame({name: np.arange(len(chosen), dtype=float), f"{name}_text": [f"t{v}" for v in chosen]},
                            index=index)

    on_codes = join_cases(frame(left_ids, "base", True), frame(right_ids, "cand", True))
    expected = frame(left_ids, "base", True).join(frame(right_ids, "cand", True), how="inner").sort_index(
        kind="stable")
    pd.testing.assert_frame_equal(on_codes, expected)
    assert list(on_codes.index) == sorted(set(left_ids) & set(right_ids))
    on_text = join_cases(frame(left_ids, "base", False), frame(right_ids, "cand", False))  # through pandas
    assert list(on_text.index) == list(on_codes.index)
