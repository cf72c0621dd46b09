"""Each category's pass/fail comparison is read from its 2x2 table, counted for every category at once; the
figures are those of compare_binary on the category's own cases (the way the plan split them before)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from releasegate.analyze.candidate import _category_tables, plan_arrays
from releasegate.analyze.comparisons import compare_binary
from releasegate.policy import make_policy


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 6), st.lists(st.tuples(st.integers(-1, 5), st.sampled_from([0.0, 1.0, 2.0, np.nan]),
                                            st.sampled_from([0.0, 1.0, -1.0, np.nan])), max_size=60))
def test_the_tables_are_the_counts_of_each_category(k, rows):
    codes = np.array([min(c, k - 1) for c, _, _ in rows], dtype=np.int16)
    base = np.array([b for _, b, _ in rows], dtype=float)
    cand = np.array([c for _, _, c in rows], dtype=float)
    tables = _category_tables(codes, k, base, cand)
    assert tables.shape == (k, 4)
    for g in range(k):
        b, c = base[codes == g].astype(bool), cand[codes == g].astype(bool)  # compare_binary's reading
        assert tables[g].tolist() == [int(np.sum(~b & ~c)), int(np.sum(~b & c)), int(np.sum(b & ~c)),
                                      int(np.sum(b & c))]


def test_the_plan_s_categories_are_compare_binary_of_each_category_s_cases():
    rng = np.random.default_rng(20261207)
    n, k = 5_000, 7
    codes = rng.integers(0, k, n).astype(np.int16)
    base = (rng.random(n) < 0.8).astype(float)
    cand = np.where(rng.random(n) < 0.1, 1 - base, base)
    policy = make_policy({}, baseline="b")
    labels = [f"cat{g}" for g in range(k)]
    result = plan_arrays(base, cand, policy, mcnemar=True, category_codes=codes, category_labels=labels)
    for g, got in enumerate(result.categories):
        alone = compare_binary(labels[g], base[codes == g], cand[codes == g], policy)
        assert (got.n, got.fixed, got.broke, got.both_pass, got.both_fail) == \
            (alone.n, alone.fixed, alone.broke, alone.both_pass, alone.both_fail)
        assert (got.diff, got.ci_low, got.ci_high, got.p_value) == (alone.diff, alone.ci_low, alone.ci_high,
                                                                    alone.p_value)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["b", "a", "c", "d"]), min_size=1, max_size=40), st.lists(st.sampled_from(["e", "f"])))
def test_category_codes_are_pandas_sorted_factorize(values, unused):
    import pandas as pd

    from releasegate.analyze.candidate import _category_codes

    column = pd.Series(pd.Categorical(values, categories=sorted({*values, *unused})))
    codes, labels = _category_codes(column)
    expected_codes, expected_labels = pd.factorize(pd.Series(values, dtype=str), sort=True)
    np.testing.assert_array_equal(codes, expected_codes)
    assert list(labels) == list(expected_labels)
