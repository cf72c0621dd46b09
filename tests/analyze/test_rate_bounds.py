"""No pass-rate interval outside [0, 1], and no interval of a difference of pass rates outside [-1, 1] (issue 31,
item 4). With several runs a release's pass rate is the mean of its per-case means, whose t interval reached
past 1 ("0.800 [0.498, 1.102]" on a promptfoo --repeat 3 file, 1.052 on Inspect epochs). Property: on random
pass/fail tables with runs (and categories, and clusters), every rate interval of every comparison, release
and run axis lies within the range its quantity can take, and still holds its estimate."""

from __future__ import annotations

import math

import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from releasegate.load import LoadedResults
from releasegate.pipeline import run_loaded
from releasegate.policy import make_policy

SETTINGS = settings(max_examples=30, derandomize=True, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow])


@st.composite
def tables(draw):
    n = draw(st.integers(2, 12))
    runs = draw(st.integers(2, 4))
    categories = draw(st.booleans())
    clusters = draw(st.booleans())
    rows = []
    for release in ("base", "cand"):
        # mostly passing, as a real suite is: the t interval of a rate near 1 is the one that crossed it
        rate = draw(st.sampled_from((0.5, 0.8, 0.95, 1.0)))
        for i in range(n):
            for r in range(1, runs + 1):
                row = {"release": release, "case_id": f"c{i}", "run": str(r),
                       "passed": int(draw(st.floats(0, 1)) < rate)}
                if categories:
                    row["category"] = "AB"[i % 2]
                if clusters:
                    row["cluster"] = f"g{i // 2}"
                rows.append(row)
    return pd.DataFrame(rows)


def _within(low: float, high: float, value: float, lower: float, upper: float) -> bool:
    if math.isnan(low) or math.isnan(high):
        return True  # undefined (n < 2): no interval shown
    if math.isinf(low) and math.isinf(high):
        return True  # a comparison of one case: unbounded on purpose, it can show nothing
    return lower <= low <= high <= upper and (math.isnan(value) or low - 1e-12 <= value <= high + 1e-12)


@SETTINGS
@given(tables())
def test_no_rate_interval_outside_its_range(table):
    loaded = LoadedResults(table, (), ())
    report = run_loaded(loaded, make_policy({"n_resamples": 500}, baseline="base"))
    analysis = report.analysis
    for release in analysis.releases:
        rate = release.rate
        assert _within(rate.ci_low, rate.ci_high, rate.value, 0.0, 1.0), release
    for candidate in analysis.candidates:
        for comparison in (candidate.overall, *candidate.categories):
            for rate in (comparison.baseline, comparison.candidate):
                assert _within(rate.ci_low, rate.ci_high, rate.value, 0.0, 1.0), comparison
            assert _within(comparison.ci_low, comparison.ci_high, comparison.diff, -1.0, 1.0), comparison
            assert _within(comparison.ni_low, comparison.ni_high, comparison.diff, -1.0, 1.0), comparison
        axis = candidate.sections.run_axis
        if axis is not None and axis.run_defined:
            assert _within(axis.run_ci_low, axis.run_ci_high, axis.run_diff, -1.0, 1.0), axis


def test_the_issue_case_stays_within_one():
    """Five cases over three runs, four always passing: the t interval of 0.8 reached 1.355."""
    rows = [{"release": r, "case_id": f"c{i}", "run": str(k), "passed": int(i < 4 or (r == "cand" and k < 3))}
            for r in ("base", "cand") for i in range(5) for k in (1, 2, 3)]
    report = run_loaded(LoadedResults(pd.DataFrame(rows), (), ()), make_policy({}, baseline="base"))
    base = report.analysis.releases[0].rate
    assert base.value == 0.8 and base.ci_high == 1.0 and 0.2 < base.ci_low < 0.3
