"""Token counts read as whole numbers are summed and averaged as whole numbers in the cost section (no float copy
of each column): the figures are the float columns' (the total to the last bit, the mean exactly the integers'
mean), and a sum past 64-bit integers falls back to the float mean."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from releasegate.analyze.costs import _token_mean, cost_sections, per_case
from releasegate.analyze.errors import split_errored
from releasegate.policy import make_policy
from releasegate.validate import validate


def _table(n: int, seed: int, whole: bool) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for release in ("base", "cand"):
        inputs = rng.integers(1, 50_000, n)
        outputs = rng.integers(0, 5_000, n)
        rows.append(pd.DataFrame({
            "case_id": [f"c{i:05d}" for i in range(n)], "release": release, "passed": rng.integers(0, 2, n),
            "latency_ms": rng.lognormal(6.5, 0.4, n).round(1),
            "input_tokens": inputs if whole else inputs.astype(float),
            "output_tokens": outputs if whole else outputs.astype(float)}))
    return pd.concat(rows, ignore_index=True)


def _sections(table: pd.DataFrame, prices: dict | None = None):
    policy = make_policy({}, baseline="base", prices=prices)
    data = split_errored(validate(table, policy), policy)
    return data, policy, cost_sections(data, policy)


@pytest.mark.parametrize("n", [50, 3_000])
@pytest.mark.parametrize("prices", [None, {"base": {"input_per_million": 3.0, "output_per_million": 15.0},
                                           "cand": {"input_per_million": 1.0, "output_per_million": 4.0}}])
def test_whole_token_columns_give_the_float_columns_figures(n, prices):
    whole_data, policy, (whole_table, whole_cmp) = _sections(_table(n, n, True), prices)
    assert whole_data.table["input_tokens"].dtype.kind == "i"  # the path under test: kept as whole numbers
    float_data, _, (float_table, float_cmp) = _sections(_table(n, n, False), prices)
    assert float_data.table["input_tokens"].dtype.kind == "f"
    assert whole_cmp == float_cmp  # the token and cost ratios and the paired means, to the last bit
    for w, f in zip(whole_table.releases, float_table.releases):
        assert w.cost_per_case == f.cost_per_case or (np.isnan(w.cost_per_case) and np.isnan(f.cost_per_case))
        for column in ("input_tokens_per_case", "output_tokens_per_case"):
            assert getattr(w, column) == pytest.approx(getattr(f, column), rel=1e-15, abs=0)
    for release in ("base", "cand"):
        frame, _ = per_case(whole_data, release, policy)
        floats, _ = per_case(float_data, release, policy)
        assert np.array_equal(frame["tokens"].to_numpy(), floats["tokens"].to_numpy())
        exact = Fraction(int(frame["input_tokens"].sum()), len(frame))
        assert _token_mean(frame, "input_tokens") == float(exact)  # the integers' mean, rounded once


def test_a_sum_past_64_bit_integers_takes_the_float_mean():
    frame = pd.DataFrame({"input_tokens": np.array([2**61, 2**61, 3], dtype=np.int64)})
    assert _token_mean(frame, "input_tokens") == float(frame["input_tokens"].astype(float).mean())
    small = pd.DataFrame({"input_tokens": np.array([1, 2, 2], dtype=np.int64)})
    assert _token_mean(small, "input_tokens") == 5 / 3
