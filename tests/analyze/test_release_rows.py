"""A release's rows as a slice when they are one block (no copy of a column), else as a mask: the same rows either
way, and the per-case tables built from them the same whatever the layout, the validated table left as it was."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from releasegate.analyze import analyze
from releasegate.analyze.costs import per_case
from releasegate.analyze.pairing import case_table, release_rows
from releasegate.policy import make_policy
from releasegate.validate import validate


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from(["a", "b", "c"]), max_size=12), st.sampled_from(["a", "b", "z"]),
       st.booleans())
def test_release_rows_are_the_release_and_a_slice_only_for_one_block(releases, release, categorical):
    table = pd.DataFrame({"release": releases, "value": np.arange(len(releases))}, dtype=object)
    if categorical:
        table["release"] = table["release"].astype("category")
    mask = np.array([r == release for r in releases], dtype=bool)
    rows = release_rows(table, release)
    assert table.iloc[np.arange(len(table))[rows]]["value"].tolist() == table[mask]["value"].tolist()
    where = np.flatnonzero(mask)
    one_block = where.size > 0 and where[-1] - where[0] + 1 == where.size
    assert isinstance(rows, slice) == one_block


def _results(interleaved: bool) -> pd.DataFrame:
    rng = np.random.default_rng(5)
    n = 40
    rows = [{"release": release, "case_id": f"c{k:02d}", "category": f"k{k % 3}", "passed": int(rng.integers(0, 2)),
             "latency_ms": float(rng.lognormal(6.5, 0.4)), "input_tokens": int(rng.integers(10, 90)),
             "output_tokens": int(rng.integers(10, 90))}
            for release in ("base", "cand") for k in range(n)]
    frame = pd.DataFrame(rows)
    frame.loc[[3, 17, n + 5], "latency_ms"] = [-1.0, 0.0, np.nan]  # invalid: set missing in the per-case table
    if interleaved:
        frame = frame.iloc[np.argsort(np.tile(np.arange(n), 2), kind="stable")].reset_index(drop=True)
    return frame


def test_per_case_and_case_tables_are_the_same_for_either_layout_and_leave_the_table_alone():
    policy = make_policy({"baseline": "base"})
    block, interleaved = validate(_results(False), policy), validate(_results(True), policy)
    assert isinstance(release_rows(block.table, "base"), slice)
    assert not isinstance(release_rows(interleaved.table, "base"), slice)
    before = block.table.copy(deep=True)
    for release in ("base", "cand"):
        cases, invalid = per_case(block, release, policy)
        expected, expected_invalid = per_case(interleaved, release, policy)
        assert invalid == expected_invalid == (2 if release == "base" else 1)
        pd.testing.assert_frame_equal(cases, expected)
        assert cases["latency"].isna().sum() == invalid
        pd.testing.assert_frame_equal(case_table(block, release), case_table(interleaved, release))
    pd.testing.assert_frame_equal(block.table, before)  # the invalid latencies are not written into it
    # The whole analysis reads the slices (the cost section's columns are the table's own) and writes none of them.
    assert repr(analyze(block, policy)) == repr(analyze(interleaved, policy))  # repr: NaN figures compare equal
    pd.testing.assert_frame_equal(block.table, before)
