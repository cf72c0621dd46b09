"""The cost section's data (SPEC section 4 item 8): per-release figures and per-candidate paired ratios.

Frozen dataclasses filled by :mod:`releasegate.analyze_costs`; ``CostTable`` sits in ``Analysis.extras["costs"]``
and ``CostComparison`` in ``CandidateAnalysis.extras["costs"]``. Ratios are candidate / baseline. Renderers
read them as they are; ``to_json`` gives the JSON report's ``costs`` objects.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field

from releasegate.stats.costs import LatencySummary, RatioResult

QUANTILE_METHOD = "numpy's default 'linear' quantile (R type 7)"

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
    quantile_method: str
    interval_method: str
    histogram_edges: tuple[float, ...] = ()
    notes: tuple[str, ...] = ()

    def to_json(self) -> dict:
        out = asdict(self)
        for row in out["releases"]:
            row["latency_ms"] = row.pop("latency")
        return out


@dataclass(frozen=True)
class CostComparison:
    """One candidate against the baseline on the cases both have (pairs with a missing side are excluded).

    ``latency_mean_ratio`` is the geometric mean of the per-case ratios (t interval on log ratios);
    ``latency_p95_ratio``, ``tokens_ratio`` (input + output) and ``cost_ratio`` (ratio of totals) carry a
    bootstrap or normal-approximation interval, named in their ``method``. ``guardrail_bounds`` maps each
    guardrail of the policy (SPEC 5 rule 4) to (estimate, low, high); ``summary`` is the verdict's clause.
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
    guardrail_bounds: Mapping[str, tuple[float, float, float]] = field(default_factory=dict)
    summary: str = ""
    warnings: tuple[str, ...] = ()

    def to_json(self) -> dict:
        """SPEC section 6's ``costs.latency_ms`` keys, plus tokens, cost and the guardrail bounds."""
        bl, cl = self.baseline_latency, self.candidate_latency
        gm, p95 = self.latency_mean_ratio, self.latency_p95_ratio
        latency = None
        if bl is not None and cl is not None and gm is not None and p95 is not None:
            latency = {
                "baseline_mean": bl.mean, "candidate_mean": cl.mean, "baseline_p50": bl.p50,
                "candidate_p50": cl.p50, "baseline_p95": bl.p95, "candidate_p95": cl.p95,
                "ratio": gm.ratio, "ratio_ci_low": gm.ci_low, "ratio_ci_high": gm.ci_high,
                "ratio_method": "geometric mean of per-case ratios, " + gm.method,
                "p95_ratio": p95.ratio, "p95_ratio_ci_low": p95.ci_low, "p95_ratio_ci_high": p95.ci_high,
                "p95_ratio_method": p95.method, "n": gm.n, "excluded": gm.excluded,
            }
        return {
            "latency_ms": latency,
            "tokens": _totals_json(self.tokens_ratio, self.baseline_tokens_per_case, self.candidate_tokens_per_case),
            "cost": _totals_json(self.cost_ratio, self.baseline_cost_per_case, self.candidate_cost_per_case),
            "quantile_method": QUANTILE_METHOD,
            "guardrail_bounds": {k: {"estimate": v[0], "ci_low": v[1], "ci_high": v[2]}
                                 for k, v in self.guardrail_bounds.items()},
            "summary": self.summary,
            "warnings": list(self.warnings),
        }


def _totals_json(r: RatioResult | None, base: float, cand: float) -> dict | None:
    if r is None:
        return None
    return {"baseline_per_case": base, "candidate_per_case": cand, "ratio": r.ratio, "ci_low": r.ci_low,
            "ci_high": r.ci_high, "method": r.method, "n": r.n, "excluded": r.excluded}
