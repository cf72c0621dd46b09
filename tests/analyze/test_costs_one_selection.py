"""The cost section selects each release's latencies once: its summary (ReleaseCosts.latency) and, when every case
pairs, the candidate's p95 ratio read the same selection (analyze/costs.py release_quantiles), and give the figures
two selections gave."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import releasegate.analyze.costs as costs
from releasegate.analyze.costs import compare_costs, release_quantiles
from releasegate.model.costs import LARGE_WORK
from releasegate.policy import make_policy
from releasegate.stats.resamples import ResampleDraws

N = 30_000  # pairs x the default 10,000 resamples is past LARGE_WORK: the normal form


def _frames(latency_b: np.ndarray, latency_c: np.ndarray) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Two releases' per-case tables indexed as validation leaves them: one categorical of the case ids."""
    index = pd.CategoricalIndex([f"c{i:06d}" for i in range(latency_b.size)], name="case_id")
    return (pd.DataFrame({"latency": latency_b}, index=index), pd.DataFrame({"latency": latency_c}, index=index))


@pytest.fixture
def given_quantiles(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """The ``quantiles`` each call of the p95 ratio's normal form was given."""
    seen: list[object] = []
    normal = costs.quantile_ratio_normal

    def recording(*args: object) -> object:
        seen.append(args[4] if len(args) > 4 else None)
        return normal(*args)

    monkeypatch.setattr(costs, "quantile_ratio_normal", recording)
    return seen


@pytest.mark.parametrize("invalid", [False, True])
def test_the_p95_ratio_reads_the_releases_own_selection(given_quantiles, invalid) -> None:
    policy = make_policy({}, baseline="b")
    assert N * policy.n_resamples > LARGE_WORK
    rng = np.random.default_rng(11)
    base, cand = _frames(rng.lognormal(6.8, 0.5, N).round(1), rng.lognormal(6.7, 0.5, N).round(1))
    if invalid:  # a latency left out: the pairs are no longer every latency, and the ratio selects its own
        cand.iloc[5, 0] = np.nan
    own = release_quantiles(base, policy), release_quantiles(cand, policy)
    shared = compare_costs("c", "b", base, cand, policy, ResampleDraws(policy.n_resamples, policy.seed), own)
    alone = compare_costs("c", "b", base, cand, policy, ResampleDraws(policy.n_resamples, policy.seed))
    assert given_quantiles[0] == (None if invalid else (own[0].quantiles, own[1].quantiles))
    assert given_quantiles[1] is None
    assert shared == alone
    if not invalid:
        assert (shared.baseline_latency, shared.candidate_latency) == (own[0].summary, own[1].summary)
    assert shared.latency_p95_ratio is not None and shared.latency_p95_ratio.method == "normal approximation"
    assert math.isfinite(shared.latency_p95_ratio.low)


def test_a_small_suite_selects_no_more_than_its_summary() -> None:
    """Below the normal form's work size the p95 ratio bootstraps: the summary asks for no further level."""
    policy = make_policy({}, baseline="b")
    base, _ = _frames(np.arange(1.0, 101.0), np.arange(1.0, 101.0))
    assert release_quantiles(base, policy).levels == ()
    big, _ = _frames(np.arange(1.0, N + 1.0), np.arange(1.0, N + 1.0))
    assert release_quantiles(big, policy).levels[0] == 0.95 and len(release_quantiles(big, policy).levels) == 3
