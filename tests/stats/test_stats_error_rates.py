"""The paired error-rate increase: Newcombe's method 10 on the error indicators, against R's values
(tests/data/stat-vectors.json, paired_diff_ci: contingencytables::Newcombe_square_and_add_CI_paired_2x2) and
against properties."""

from __future__ import annotations

import math

import numpy as np
import pytest

from conftest import stat_vectors
from releasegate.stats.error_rates import error_rate_increase


def _indicators(both: int, base_only: int, cand_only: int, neither: int) -> tuple[np.ndarray, np.ndarray]:
    base = np.array([1] * both + [1] * base_only + [0] * cand_only + [0] * neither, float)
    cand = np.array([1] * both + [0] * base_only + [1] * cand_only + [0] * neither, float)
    return base, cand


@pytest.mark.parametrize("row", stat_vectors()["paired_diff_ci"], ids=lambda r: str(r["table"]))
def test_matches_r_newcombe_on_error_indicators(row):
    t = row["table"]
    # An errored case plays the role of a "pass" in the reference table: the increase is p_cand - p_base.
    base, cand = _indicators(t["both_pass"], t["base_only_pass"], t["cand_only_pass"], t["both_fail"])
    r = error_rate_increase(base, cand, 0.95)
    assert r.increase == pytest.approx(row["delta_cand_minus_base"], abs=1e-12)
    assert (r.low, r.high) == pytest.approx(tuple(row["newcombe10_ci95"]), abs=1e-9)
    assert (r.baseline_rate, r.candidate_rate) == pytest.approx((row["p_base"], row["p_cand"]))
    assert (r.both, r.baseline_only, r.candidate_only, r.neither, r.n) == (
        t["both_pass"], t["base_only_pass"], t["cand_only_pass"], t["both_fail"], t["n"])


def test_twelve_baseline_errors_of_300_is_a_decrease():
    base, cand = _indicators(0, 12, 0, 288)
    r = error_rate_increase(base, cand)
    assert r.increase == pytest.approx(-0.04)
    assert r.high < 0 < -r.low  # the candidate errs less: the whole interval is below zero


def test_swapping_sides_mirrors_the_interval():
    rng = np.random.default_rng(3)
    base, cand = (rng.random(200) < 0.1).astype(float), (rng.random(200) < 0.2).astype(float)
    a, b = error_rate_increase(base, cand), error_rate_increase(cand, base)
    assert a.increase == pytest.approx(-b.increase)
    assert (a.low, a.high) == pytest.approx((-b.high, -b.low))
    assert a.low <= a.increase <= a.high


def test_no_error_anywhere_contains_zero_and_narrows_with_n():
    small = error_rate_increase(np.zeros(50), np.zeros(50))
    large = error_rate_increase(np.zeros(5000), np.zeros(5000))
    assert small.increase == 0.0 and small.low < 0 < small.high
    assert large.high < small.high


def test_no_case_is_nothing_measured():
    r = error_rate_increase(np.array([]), np.array([]))
    assert r.n == 0 and math.isnan(r.increase) and (r.low, r.high) == (-1.0, 1.0)


@pytest.mark.parametrize(("base", "cand"), [([0, 1], [0]), ([0, 2], [0, 1]), ([0, np.nan], [0, 1])])
def test_bad_indicators_are_refused(base, cand):
    with pytest.raises(ValueError):
        error_rate_increase(np.array(base, float), np.array(cand, float))
