"""The cost section of the plan (SPEC section 4 item 8): latency, tokens and cost per release and per candidate.

Per release (``Analysis.extras["costs"]``, a :class:`CostTable`): latency mean, p50 and p95; input and output
tokens per case; cost per case and per 1,000 cases, from the ``cost`` column or, without one, from the
policy's prices per million input and output tokens. Per candidate (``CandidateAnalysis.extras["costs"]``, a
:class:`CostComparison`), paired with the baseline case by case: the geometric-mean latency ratio with a t
interval on the per-case log ratios, the p95 latency ratio, and the ratios of total tokens and total cost,
each with a paired case bootstrap interval (:mod:`releasegate.stats.costs`). Ratios are candidate / baseline.

A case's latency is its median over runs (robust to one slow retry); its tokens and cost are their means over
runs (what one run of the case uses on average). Missing, zero or negative latencies are excluded and
counted. Above :data:`LARGE_WORK` resampled cases (pairs x resamples; 2,000 pairs at the default 10,000
resamples) the bootstrap gives way to the delta-method intervals of :mod:`releasegate.stats.costs_normal`,
which agree with it at that size and cost O(n log n); the report says which was used.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pandas as pd

from releasegate.errors import InputError
from releasegate.model import Analysis, CandidateAnalysis
from releasegate.model_costs import QUANTILE_METHOD, CostComparison, CostTable, ReleaseCosts
from releasegate.policy import Policy
from releasegate.stats.costs import (
    RatioResult,
    geometric_mean_ratio,
    latency_summary,
    quantile_ratio_bootstrap,
    ratio_of_totals_bootstrap,
)
from releasegate.stats.costs_normal import quantile_ratio_normal, ratio_of_totals_normal

LARGE_WORK = 20_000_000
HISTOGRAM_BINS = 30
TOKEN_COLUMNS = ("input_tokens", "output_tokens")
PRICE_OF = {"input_tokens": "input_per_million", "output_tokens": "output_per_million"}


# --------------------------------------------------------------------------------------------------------
# per-case figures


def _row_costs(rows: pd.DataFrame, release: str, columns: tuple[str, ...], policy: Policy) -> pd.Series | None:
    """Cost of each row: the cost column, else tokens x the release's prices per million; None if neither."""
    if "cost" in columns:
        return rows["cost"].astype(float)
    price = policy.prices.get(release)
    if price is None:
        return None
    total = pd.Series(0.0, index=rows.index)
    for column, key in PRICE_OF.items():
        if price[key] == 0:
            continue
        if column not in columns:
            raise InputError(f"prices for {release!r} set {key} but the results have no {column} column")
        total = total + rows[column].astype(float) * (price[key] / 1e6)
    return total


def per_case(data, release: str, policy: Policy) -> tuple[pd.DataFrame, int]:
    """One row per case of one release (latency, input/output/total tokens, cost) and the invalid latencies.

    Latency is the median of a case's valid runs; tokens and cost the mean over runs. The returned count is
    the number of rows whose latency was missing, zero or negative (dropped before the median).
    """
    columns = data.cost_columns
    rows = data.table.loc[data.table["release"] == release]
    frame = pd.DataFrame({"case_id": rows["case_id"].array}, index=rows.index)
    invalid = 0
    if "latency_ms" in columns:
        latency = rows["latency_ms"].astype(float)
        bad = ~(np.isfinite(latency) & (latency > 0))
        invalid = int(bad.sum())
        frame["latency"] = latency.mask(bad)
    tokens = [c for c in TOKEN_COLUMNS if c in columns]
    for column in tokens:
        frame[column] = rows[column].astype(float)
    if tokens:
        # NaN on either side leaves the case's total unknown (it is then excluded, not counted as zero).
        frame["tokens"] = frame[tokens].sum(axis=1, min_count=len(tokens))
    cost = _row_costs(rows, release, columns, policy)
    if cost is not None:
        frame["cost"] = cost
    if not data.has_runs:
        # One row per case (validation checked the keys): the group-by would only sort by case.
        return frame.set_index("case_id").sort_index(kind="stable"), invalid
    grouped = frame.groupby("case_id", sort=True)
    out = grouped.mean(numeric_only=True)
    if "latency" in frame.columns:
        out["latency"] = grouped["latency"].median()
    return out, invalid


def _mean(frame: pd.DataFrame, column: str) -> float:
    return float(frame[column].mean()) if column in frame.columns else math.nan


# --------------------------------------------------------------------------------------------------------
# release level


def histogram_edges(values: np.ndarray, bins: int = HISTOGRAM_BINS) -> np.ndarray:
    """Shared bin edges for every release's latency histogram: a 1-2-5 width, edges on its multiples."""
    values = values[np.isfinite(values)]
    if values.size == 0:
        return np.array([])
    low, high = float(values.min()), float(values.max())
    raw = (high - low) / bins if high > low else max(abs(low), 1.0) / bins
    power = 10.0 ** math.floor(math.log10(raw))
    width = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    start = math.floor(low / width) * width
    count = max(1, math.ceil((high - start) / width))
    if start + count * width <= high:  # the maximum belongs inside the last (closed) bin
        count += 1
    # Rounded to the width's precision so that edges read 600.0, not 600.0000000000001.
    return np.round(start + width * np.arange(count + 1), max(0, 1 - math.floor(math.log10(width))))


def release_costs(name: str, frame: pd.DataFrame, invalid: int, edges: np.ndarray, policy: Policy,
                  cost_source: str) -> ReleaseCosts:
    """Summarise one release's per-case figures."""
    latency = None
    histogram: tuple[int, ...] = ()
    if "latency" in frame.columns:
        values = frame["latency"].to_numpy(float)
        latency = latency_summary(values)
        if edges.size:
            histogram = tuple(int(x) for x in np.histogram(values[np.isfinite(values)], bins=edges)[0])
    has_cost = "cost" in frame.columns
    cost = _mean(frame, "cost")
    price = policy.prices.get(name, {}) if cost_source == "prices" else {}
    return ReleaseCosts(
        name=name,
        n_cases=int(frame.shape[0]),
        latency=latency,
        latency_invalid=invalid,
        input_tokens_per_case=_mean(frame, "input_tokens"),
        output_tokens_per_case=_mean(frame, "output_tokens"),
        cost_per_case=cost,
        cost_per_1k=cost * 1000.0,
        cost_missing=int(frame["cost"].isna().sum()) if has_cost else 0,
        cost_source=cost_source if has_cost else "",
        input_per_million=float(price.get("input_per_million", math.nan)),
        output_per_million=float(price.get("output_per_million", math.nan)),
        histogram=histogram,
    )


# --------------------------------------------------------------------------------------------------------
# per candidate


def _large(n: int, policy: Policy) -> bool:
    return n * policy.n_resamples > LARGE_WORK


def _p95_ratio(base: np.ndarray, cand: np.ndarray, policy: Policy) -> RatioResult:
    if _large(base.size, policy):
        return quantile_ratio_normal(base, cand, 0.95, policy.confidence)
    return quantile_ratio_bootstrap(base, cand, 0.95, policy.n_resamples, policy.seed, policy.confidence)


def _totals_ratio(base: np.ndarray, cand: np.ndarray, policy: Policy) -> RatioResult:
    if _large(base.size, policy):
        return ratio_of_totals_normal(base, cand, policy.confidence)
    return ratio_of_totals_bootstrap(base, cand, policy.n_resamples, policy.seed, policy.confidence)


def _valid_latency_pairs(base: np.ndarray, cand: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    ok = np.isfinite(base) & np.isfinite(cand) & (base > 0) & (cand > 0)
    return base[ok], cand[ok]


def _paired_mean(base: np.ndarray, cand: np.ndarray) -> tuple[float, float]:
    ok = np.isfinite(base) & np.isfinite(cand) & (base >= 0) & (cand >= 0)
    if not ok.any():
        return math.nan, math.nan
    return float(base[ok].mean()), float(cand[ok].mean())


def summary_clause(cost: RatioResult | None, tokens: RatioResult | None, p95: RatioResult | None) -> str:
    """The verdict's cost clause, e.g. "54% cheaper per case, p95 latency 0.57x" (point estimates)."""
    parts = []
    if cost is not None and math.isfinite(cost.ratio):
        parts.append(_change(cost.ratio, "cheaper", "more expensive", "same cost") + " per case")
    elif tokens is not None and math.isfinite(tokens.ratio):
        parts.append(_change(tokens.ratio, "fewer tokens", "more tokens", "same tokens") + " per case")
    if p95 is not None and math.isfinite(p95.ratio):
        parts.append(f"p95 latency {p95.ratio:.2f}x")
    return ", ".join(parts)


def _change(ratio: float, lower: str, higher: str, same: str) -> str:
    percent = round(abs(1.0 - ratio) * 100)
    if percent == 0:
        return same
    return f"{percent}% {lower if ratio < 1 else higher}"


def compare(candidate: str, baseline: str, base: pd.DataFrame, cand: pd.DataFrame, policy: Policy) -> CostComparison:
    """The paired ratios of one candidate against the baseline, with intervals and guardrail bounds."""
    joined = base.add_suffix("_b").join(cand.add_suffix("_c"), how="inner").sort_index(kind="stable")
    n = int(joined.shape[0])

    def arrays(column: str) -> tuple[np.ndarray, np.ndarray] | None:
        if f"{column}_b" not in joined.columns or f"{column}_c" not in joined.columns:
            return None
        return joined[f"{column}_b"].to_numpy(float), joined[f"{column}_c"].to_numpy(float)

    warnings: list[str] = []
    bounds: dict[str, tuple[float, float, float]] = {}
    base_lat = cand_lat = gm = p95 = None
    latency = arrays("latency")
    if latency is not None:
        gm = geometric_mean_ratio(*latency, policy.confidence)
        p95 = _p95_ratio(*latency, policy)
        valid = _valid_latency_pairs(*latency)
        base_lat, cand_lat = latency_summary(valid[0]), latency_summary(valid[1])
        _bound(bounds, "max_latency_mean_ratio", gm)
        _bound(bounds, "max_latency_p95_ratio", p95)
        if gm.excluded:
            warnings.append(f"latency: {gm.excluded} of {n} paired cases excluded (missing, zero or negative "
                            f"latency in {baseline} or {candidate})")
    tokens_ratio = cost_ratio = None
    tokens_means = cost_means = (math.nan, math.nan)
    tokens = arrays("tokens")
    if tokens is not None:
        tokens_ratio = _totals_ratio(*tokens, policy)
        tokens_means = _paired_mean(*tokens)
        _bound(bounds, "max_tokens_ratio", tokens_ratio)
        if tokens_ratio.excluded:
            warnings.append(f"tokens: {tokens_ratio.excluded} of {n} paired cases excluded (missing or negative)")
    cost = arrays("cost")
    if cost is not None:
        cost_ratio = _totals_ratio(*cost, policy)
        cost_means = _paired_mean(*cost)
        _bound(bounds, "max_cost_ratio", cost_ratio)
        if cost_ratio.excluded:
            warnings.append(f"cost: {cost_ratio.excluded} of {n} paired cases excluded (missing or negative)")
    return CostComparison(
        candidate=candidate,
        baseline=baseline,
        baseline_latency=base_lat,
        candidate_latency=cand_lat,
        latency_mean_ratio=gm,
        latency_p95_ratio=p95,
        baseline_tokens_per_case=tokens_means[0],
        candidate_tokens_per_case=tokens_means[1],
        tokens_ratio=tokens_ratio,
        baseline_cost_per_case=cost_means[0],
        candidate_cost_per_case=cost_means[1],
        cost_ratio=cost_ratio,
        guardrail_bounds=bounds,
        summary=summary_clause(cost_ratio, tokens_ratio, p95),
        warnings=tuple(warnings),
    )


def _bound(bounds: dict, name: str, r: RatioResult) -> None:
    # An undefined interval (fewer than two pairs) is no figure: decide then warns instead of passing.
    if math.isfinite(r.ratio) and not math.isnan(r.ci_high):
        bounds[name] = (r.ratio, r.ci_low, r.ci_high)


# --------------------------------------------------------------------------------------------------------
# the stage


def _notes(table_rows: list[ReleaseCosts], data, policy: Policy) -> list[str]:
    notes = []
    sources = {r.cost_source for r in table_rows if r.cost_source}
    if "prices" in sources:
        notes.append("Cost per case = input tokens x input price + output tokens x output price, with the "
                     "policy's prices per million tokens.")
    if "cost" in data.cost_columns and policy.prices:
        notes.append("The results have a cost column; the policy's prices are not used.")
    if "cost" not in data.cost_columns and policy.prices:
        unpriced = [r.name for r in table_rows if not r.cost_source]
        if unpriced:
            notes.append(f"No prices for {', '.join(unpriced)} in the policy: no cost shown for them.")
        unknown = sorted(set(policy.prices) - set(data.releases))
        if unknown:
            notes.append(f"Prices given for {', '.join(unknown)}, which are not compared here.")
    invalid = [f"{r.name} {r.latency_invalid}" for r in table_rows if r.latency_invalid]
    if invalid:
        notes.append(f"Latencies missing, zero or negative were excluded ({', '.join(invalid)} rows).")
    if data.has_runs:
        notes.append("With several runs a case's latency is its median over runs; tokens and cost their mean.")
    return notes


def _interval_method(comparisons: list[CostComparison], policy: Policy) -> str:
    methods = {r.method for c in comparisons for r in (c.latency_p95_ratio, c.tokens_ratio, c.cost_ratio)
               if r is not None}
    boot = f"paired case bootstrap ({policy.n_resamples:,} resamples, seed {policy.seed}, percentile interval)"
    normal = (f"normal approximation (delta method: Bahadur representation with Hall-Sheather sparsity for "
              f"the p95, linearised ratio estimator for totals), used above {LARGE_WORK:,} resampled cases "
              "(pairs x resamples) where the bootstrap would be slow")
    text = "; ".join(m for m, key in ((boot, "paired bootstrap"), (normal, "normal approximation"))
                     if key in methods)
    return text or boot


def add_costs(analysis: Analysis, data, policy: Policy) -> Analysis:
    """Analysis with the release-level CostTable and each candidate's CostComparison in their ``extras``."""
    frames, invalid = {}, {}
    for release in data.releases:
        frames[release], invalid[release] = per_case(data, release, policy)
    all_latency = [f["latency"].to_numpy(float) for f in frames.values() if "latency" in f.columns]
    edges = histogram_edges(np.concatenate(all_latency)) if all_latency else np.array([])
    source = "cost column" if "cost" in data.cost_columns else "prices"
    rows = [release_costs(r, frames[r], invalid[r], edges, policy, source) for r in data.releases]
    comparisons = [compare(c, data.baseline, frames[data.baseline], frames[c], policy) for c in data.candidates]
    table = CostTable(
        releases=tuple(rows),
        has_latency=any(r.latency is not None for r in rows),
        has_tokens=any(not math.isnan(r.input_tokens_per_case) or not math.isnan(r.output_tokens_per_case)
                       for r in rows),
        has_cost=any(r.cost_source for r in rows),
        quantile_method=QUANTILE_METHOD,
        interval_method=_interval_method(comparisons, policy),
        histogram_edges=tuple(float(x) for x in edges),
        notes=tuple(_notes(rows, data, policy)),
    )
    by_name = {c.candidate: c for c in comparisons}
    candidates: tuple[CandidateAnalysis, ...] = tuple(
        replace(c, extras={**c.extras, "costs": by_name[c.name]}) if c.name in by_name else c
        for c in analysis.candidates)
    return replace(analysis, candidates=candidates, extras={**analysis.extras, "costs": table})
