"""The cost section's data (SPEC section 4 item 8): per-release figures and per-candidate paired ratios.

Frozen dataclasses filled by :mod:`releasegate.analyze.costs`; ``CostTable`` is ``Analysis.sections.costs`` and
``CostComparison`` is ``CandidateAnalysis.sections.costs``. Ratios are candidate / baseline. Numbers and flags
only: the notes and clauses that read them are in :mod:`releasegate.wording`, the JSON in render/json_out.py.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from releasegate.stats.costs import LatencySummary
from releasegate.stats.costs import RatioResult as RatioResult  # the JSON writer names it

# Above this many resampled cases (pairs x resamples; 2,000 pairs at the default 10,000 resamples) the cost
# intervals use the delta method instead of the bootstrap (releasegate.stats.costs_normal).
LARGE_WORK = 20_000_000
# guardrail -> the CostComparison ratio it limits, in the JSON's order
GUARDRAIL_RATIOS = {"max_latency_mean_ratio": "latency_mean_ratio", "max_latency_p95_ratio": "latency_p95_ratio",
                    "max_tokens_ratio": "tokens_ratio", "max_cost_ratio": "cost_ratio"}

@dataclass(frozen=True)
class ReleaseCosts:
    """One release's latency, tokens and cost (NaN where the data has no such column).

    ``latency`` summarises the per-case latencies (median over runs); ``latency_invalid`` counts the rows
    whose latency was missing, zero or negative, dropped before that. ``histogram`` holds case counts in the
    bins of :attr:`CostTable.histogram_edges`. ``cost_source`` is "cost column", "prices" or "".
    """

    name: str
    n_cases: int
    latency: LatencySummary | None
    latency_invalid: int
    input_tokens_per_case: float
    output_tokens_per_case: float
    cost_per_case: float
    cost_per_1k: float
    cost_missing: int
    cost_source: str
    input_per_million: float = float("nan")
    output_per_million: float = float("nan")
    histogram: tuple[int, ...] = ()


@dataclass(frozen=True)
class CostTable:
    """The release-level cost section: one :class:`ReleaseCosts` per release and how it was computed."""

    releases: tuple[ReleaseCosts, ...]
    has_latency: bool
    has_tokens: bool
    has_cost: bool
    interval_methods: tuple[str, ...]  # the RatioResult methods used by the candidates' ratios
    histogram_edges: tuple[float, ...] = ()
    # What the notes say: prices in use, prices ignored beside a cost column, releases without prices, prices
    # for releases not compared, and whether latencies are medians over runs.
    prices_used: bool = False
    prices_ignored: bool = False
    unpriced: tuple[str, ...] = ()
    unknown_prices: tuple[str, ...] = ()
    has_runs: bool = False


@dataclass(frozen=True)
class CostComparison:
    """One candidate against the baseline on the cases both have (pairs with a missing side are excluded).

    ``latency_mean_ratio`` is the geometric mean of the per-case ratios (t interval on log ratios);
    ``latency_p95_ratio``, ``tokens_ratio`` (input + output) and ``cost_ratio`` (ratio of totals) carry a
    bootstrap or normal-approximation interval, named in their ``method``. ``n_paired`` cases were paired.
    """

    candidate: str
    baseline: str
    baseline_latency: LatencySummary | None
    candidate_latency: LatencySummary | None
    latency_mean_ratio: RatioResult | None
    latency_p95_ratio: RatioResult | None
    baseline_tokens_per_case: float
    candidate_tokens_per_case: float
    tokens_ratio: RatioResult | None
    baseline_cost_per_case: float
    candidate_cost_per_case: float
    cost_ratio: RatioResult | None
    n_paired: int = 0

    def bounds(self) -> dict[str, tuple[float, float, float]]:
        """(estimate, low, high) of each guardrail's ratio, by guardrail; a ratio whose interval is undefined
        (fewer than two pairs) or whose estimate is not finite has no figure, so it is left out (the guardrail
        rule then cannot pass on it)."""
        out = {}
        for name, attribute in GUARDRAIL_RATIOS.items():
            r = getattr(self, attribute)
            if r is not None and math.isfinite(r.ratio) and not math.isnan(r.high):
                out[name] = (r.ratio, r.low, r.high)
        return out
