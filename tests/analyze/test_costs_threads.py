"""The cost section's parts on two threads (large tables) give the figures, and the first error, of the same parts
worked out one after the other (small tables)."""

from __future__ import annotations

import threading

import numpy as np
import pandas as pd
import pytest

import releasegate.analyze.costs as costs
from releasegate.errors import InputError
from releasegate.policy import make_policy
from releasegate.validate import validate


def _frame(n: int, releases: tuple[str, ...], seed: int = 5) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    parts = []
    for i, release in enumerate(releases):
        latency = rng.lognormal(np.log(700 + 50 * i), 0.4, n).round(1)
        latency[rng.random(n) < 0.01] = np.nan  # a few left out: the pairs are not every case
        parts.append(pd.DataFrame({"release": release, "case_id": [f"c{k:05d}" for k in range(n)], "passed": 1,
                                   "latency_ms": latency, "input_tokens": rng.integers(100, 900, n),
                                   "output_tokens": rng.integers(10, 300, n)}))
    return pd.concat(parts, ignore_index=True)


def _threads_started(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    names: list[str] = []
    start = threading.Thread.start

    def recording(self: threading.Thread) -> None:
        names.append(self.name)
        start(self)

    monkeypatch.setattr(threading.Thread, "start", recording)
    return names


@pytest.mark.parametrize("releases", [("base", "cand"), ("base", "a", "b")])
def test_two_threads_give_the_figures_of_one(monkeypatch: pytest.MonkeyPatch, releases: tuple[str, ...]) -> None:
    policy = make_policy({"baseline": "base", "prices": {r: {"input_per_million": 1.0 + i, "output_per_million": 4.0}
                                                         for i, r in enumerate(releases)}})
    data = validate(_frame(3_000, releases), policy)
    monkeypatch.setattr(costs, "PARALLEL_FROM", 10**12)
    alone = _threads_started(monkeypatch)
    one = costs.cost_sections(data, policy)
    assert alone == []
    monkeypatch.setattr(costs, "PARALLEL_FROM", 1)
    started = _threads_started(monkeypatch)
    two = costs.cost_sections(data, policy)
    assert len(started) == 1 + (len(releases) - 1)  # the later releases, and each candidate's geometric mean
    assert one == two  # frozen dataclasses: every figure equal, NaN fields aside (none here)


def test_the_first_release_s_error_is_said_first(monkeypatch: pytest.MonkeyPatch) -> None:
    frame = _frame(200, ("base", "cand")).drop(columns=["input_tokens"])
    # Both releases priced per input token without an input_tokens column: each release's part refuses it.
    policy = make_policy({"baseline": "base", "prices": {r: {"input_per_million": 1.0, "output_per_million": 1.0}
                                                         for r in ("base", "cand")}})
    data = validate(frame, policy)
    for threshold in (10**12, 1):
        monkeypatch.setattr(costs, "PARALLEL_FROM", threshold)
        with pytest.raises(InputError, match="prices for 'base'"):
            costs.cost_sections(data, policy)
