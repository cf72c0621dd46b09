"""The cost section of the plan (SPEC section 4 item 8): latency, tokens and cost per release and per candidate.

Per release (``Analysis.sections.costs``, a :class:`CostTable`): latency mean, p50 and p95; input and output
tokens per case; cost per case and per 1,000 cases, from the ``cost`` column or, without one, from the
policy's prices per million input and output tokens. Per candidate (``CandidateAnalysis.sections.costs``, a
:class:`CostComparison`), paired with the baseline case by case: the geometric-mean latency ratio with a t
interval on the per-case log ratios, the p95 latency ratio, and the ratios of total tokens and total cost,
each with a paired case bootstrap interval (:mod:`releasegate.stats.costs`). Ratios are candidate / baseline.

A case's latency is its median over runs (robust to one slow retry); its tokens and cost are their means over
runs (what one run of the case uses on average). Missing, zero or negative latencies are excluded and
counted. Above :data:`LARGE_WORK` resampled cases (pairs x resamples; 2,000 pairs at the default 10,000
resamples) the bootstrap gives way to the delta-method intervals of :mod:`releasegate.stats.costs_normal`,
which agree with it at that size and cost O(n log n); the report says which was used. Numbers and flags only:
the notes and the verdict's cost clause are in :mod:`releasegate.wording`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import NamedTuple

import numpy as np
import pandas as pd

from releasegate.analyze.guardrail_level import rule_confidence
from releasegate.analyze.histogram import bin_counts, finite_extremes, histogram_edges
from releasegate.analyze.pairing import every_row, join_cases, join_positions, release_rows
from releasegate.errors import InputError
from releasegate.model import CostComparison, CostTable, ReleaseCosts
from releasegate.model.costs import LARGE_WORK
from releasegate.policy import Policy
from releasegate.stats.costs import (
    LatencyQuantiles,
    RatioResult,
    geometric_mean_ratio,
    latency_quantiles,
    latency_summary,
    quantile_ratio_bootstrap,
    ratio_of_totals_bootstrap,
)
from releasegate.stats.costs_normal import quantile_levels, quantile_ratio_normal, ratio_of_totals_normal
from releasegate.stats.resamples import ResampleDraws
from releasegate.threads import beside, two_at_once
from releasegate.validate import ValidatedResults

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


def per_case(data: ValidatedResults, release: str, policy: Policy) -> tuple[pd.DataFrame, int]:
    """One row per case of one release (latency, input/output/total tokens, cost) and the invalid latencies.

    Latency is the median of a case's valid runs; tokens and cost the mean over runs. The returned count is
    the number of rows whose latency was missing, zero or negative (dropped before the median).
    """
    columns = data.cost_columns
    table = data.table
    # Each column read is taken once for the release's rows, as numbers, and worked on in place: building a
    # frame of the rows first and then the figures from it held three copies of every column (0.7 GiB of the
    # 10^7-row analysis's peak).
    # A release written as one block of rows is a slice: its float columns are then the table's own (no copy), and
    # are never written to below.
    chosen = release_rows(table, release)
    # Token counts read as whole numbers stay whole with one run a case (no frame is grouped): they are summed into
    # the total and their means taken exactly (_token_mean), so no float copy of each is made (80 MB a release at
    # 10^7 cases).
    whole = {c for c in TOKEN_COLUMNS if c in columns and not data.has_runs and table[c].dtype.kind in "iu"}
    rows = {c: table[c].to_numpy()[chosen] if c in whole else np.asarray(table[c].to_numpy()[chosen], dtype=np.float64)
            for c in columns}
    values: dict[str, np.ndarray] = {}
    invalid = 0
    if "latency_ms" in columns:
        latency = rows["latency_ms"]
        bad = ~(np.isfinite(latency) & (latency > 0))
        invalid = int(bad.sum())
        values["latency"] = np.where(bad, np.nan, latency) if invalid else latency
    tokens = [c for c in TOKEN_COLUMNS if c in columns]
    for column in tokens:
        values[column] = rows[column]
    if tokens:
        # NaN on either side leaves the case's total unknown (it is then excluded, not counted as zero). Each side
        # as a float, then the sum: whole numbers give the same floats as when converted first.
        total = np.array(values[tokens[0]], dtype=np.float64)
        for column in tokens[1:]:
            np.add(total, values[column], out=total, dtype=np.float64)
        values["tokens"] = total
    cost = _row_costs(pd.DataFrame(rows, index=pd.RangeIndex(_count(chosen)), copy=False), release, columns,
                      policy)
    if cost is not None:
        values["cost"] = cost.to_numpy(np.float64)
    case_ids = table["case_id"].array[chosen]
    if not data.has_runs:
        # One row per case (validation checked the keys): the group-by would only sort by case.
        # The table's own codes (pandas copies them by default: 40 MB a release at 10^7); nothing writes to either.
        index = pd.Index(case_ids, name="case_id", copy=False)
        frame = pd.DataFrame(values, index=index, copy=False)
        return (frame if _increasing(index) else frame.sort_index(kind="stable")), invalid
    frame = pd.DataFrame({"case_id": case_ids, **values}, copy=False)
    grouped = frame.groupby("case_id", sort=True)
    out = grouped.mean(numeric_only=True)
    if "latency" in frame.columns:
        out["latency"] = grouped["latency"].median()
    return out, invalid


def _count(rows: slice | np.ndarray) -> int:
    return rows.stop - rows.start if isinstance(rows, slice) else int(np.count_nonzero(rows))


def _same_cases(base: pd.Index, cand: pd.Index) -> bool:
    """Both releases' per-case tables (sorted by case, each case once) hold the same cases: every row pairs with
    the row at its own position. False otherwise, or when the indexes are not the validated case ids."""
    return bool(isinstance(base, pd.CategoricalIndex) and isinstance(cand, pd.CategoricalIndex)
                and base.categories is cand.categories and np.array_equal(base.codes, cand.codes))


def _increasing(index: pd.Index) -> bool:
    """Whether the case ids already stand in sorted order, each once (the order a stable sort would give): on
    the codes of the validated categorical (sorted categories), else pandas' own check."""
    if isinstance(index, pd.CategoricalIndex):
        codes = np.asarray(index.codes)
        return bool(codes.size == 0 or (codes[0] >= 0 and np.all(codes[1:] > codes[:-1])))
    return bool(index.is_monotonic_increasing and index.is_unique)


def _token_mean(frame: pd.DataFrame, column: str) -> float:
    """A token column's mean: of whole numbers, their exact sum over their count (one rounding, where the float
    sum rounds at each step), when the sum stays within 64-bit integers; else :func:`_mean`."""
    if column not in frame.columns or frame[column].dtype.kind not in "iu" or not len(frame):
        return _mean(frame, column)
    values = frame[column].to_numpy()
    if max(-float(values.min()), float(values.max())) * len(values) >= 2.0 ** 62:
        return _mean(frame, column)
    return int(values.sum(dtype=np.int64)) / len(values)


def _mean(frame: pd.DataFrame, column: str) -> float:
    """The column's mean; NaN when absent or beyond the float range (a sum that overflows is no figure)."""
    if column not in frame.columns:
        return math.nan
    with np.errstate(over="ignore", invalid="ignore"):
        value = float(frame[column].mean())
    return value if math.isfinite(value) else math.nan


# --------------------------------------------------------------------------------------------------------
# release level


def release_costs(name: str, frame: pd.DataFrame, invalid: int, edges: np.ndarray, policy: Policy,
                  cost_source: str, tokens_per_case: Mapping[str, float],
                  quantiles: LatencyQuantiles | None = None) -> ReleaseCosts:
    """Summarise one release's per-case figures; ``tokens_per_case`` the mean of each token column (NaN:
    none), taken before the columns were dropped; ``quantiles`` its latencies' summary when the caller made it
    (:func:`release_quantiles`)."""
    latency = None
    histogram: tuple[int, ...] = ()
    if "latency" in frame.columns:
        values = frame["latency"].to_numpy(float)
        latency = latency_summary(values) if quantiles is None else quantiles.summary
        if edges.size:
            # NaN and infinite values fall outside the edges (NaN sorts last), so bin_counts leaves them out.
            histogram = tuple(bin_counts(values, edges).tolist())
    has_cost = "cost" in frame.columns
    cost = _mean(frame, "cost")
    price = policy.prices.get(name, {}) if cost_source == "prices" else {}
    return ReleaseCosts(
        name=name,
        n_cases=int(frame.shape[0]),
        latency=latency,
        latency_invalid=invalid,
        input_tokens_per_case=tokens_per_case["input_tokens"],
        output_tokens_per_case=tokens_per_case["output_tokens"],
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


def release_quantiles(frame: pd.DataFrame, policy: Policy) -> LatencyQuantiles:
    """One release's latency summary and, when its p95 ratio against another release of as many cases would take
    the normal form, its quantiles at the levels that form reads: one selection of the latencies for both (a
    comparison whose pairs are every case of both releases reads them, :func:`compare_costs`)."""
    n = len(frame)
    levels = quantile_levels(0.95, n, rule_confidence(policy)) if _large(n, policy) else ()
    return latency_quantiles(frame["latency"].to_numpy(float), levels)


def _p95_ratio(base: np.ndarray, cand: np.ndarray, policy: Policy, draws: ResampleDraws,
               quantiles: tuple[LatencyQuantiles, LatencyQuantiles] | None = None) -> RatioResult:
    """``quantiles``: each release's :func:`release_quantiles` when the pairs are every latency of both, in order."""
    if _large(base.size, policy):
        levels = quantile_levels(0.95, base.size, rule_confidence(policy))
        known = None
        if quantiles is not None and all(r.levels == levels for r in quantiles):
            known = quantiles[0].quantiles, quantiles[1].quantiles
        return quantile_ratio_normal(base, cand, 0.95, rule_confidence(policy), known)
    return quantile_ratio_bootstrap(base, cand, 0.95, policy.n_resamples, policy.seed, rule_confidence(policy),
                                    draws)


def _totals_ratio(base: np.ndarray, cand: np.ndarray, policy: Policy, draws: ResampleDraws) -> RatioResult:
    if _large(base.size, policy):
        return ratio_of_totals_normal(base, cand, rule_confidence(policy))
    return ratio_of_totals_bootstrap(base, cand, policy.n_resamples, policy.seed, rule_confidence(policy), draws)


def _valid_latency_pairs(base: np.ndarray, cand: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    ok = np.isfinite(base) & np.isfinite(cand) & (base > 0) & (cand > 0)
    return base[ok], cand[ok]


def _paired_mean(base: np.ndarray, cand: np.ndarray) -> tuple[float, float]:
    ok = np.isfinite(base) & np.isfinite(cand) & (base >= 0) & (cand >= 0)
    if not ok.any():
        return math.nan, math.nan
    every = bool(ok.all())  # then the columns themselves: a selection of every value is a copy of it
    with np.errstate(over="ignore", invalid="ignore"):
        means = (float(base.mean()), float(cand.mean())) if every else (float(base[ok].mean()), float(cand[ok].mean()))
    base_mean, cand_mean = (m if math.isfinite(m) else math.nan for m in means)
    return base_mean, cand_mean


def compare_costs(candidate: str, baseline: str, base: pd.DataFrame, cand: pd.DataFrame, policy: Policy,
                  draws: ResampleDraws,
                  summaries: tuple[LatencyQuantiles | None, LatencyQuantiles | None] = (None, None)) -> CostComparison:
    """The paired ratios of one candidate against the baseline, with intervals; ``draws`` is the analysis'
    shared bootstrap stream; ``summaries`` each release's own latency summary with its quantiles
    (:func:`release_quantiles`), which are the pairs' own when every case pairs and no latency is left out."""
    # The same cases in the same order on both sides (the common case): every row pairs with its own, and no array
    # of positions is made (8 bytes a case).
    same = _same_cases(base.index, cand.index)
    positions = None if same else join_positions(base.index, cand.index)
    # The releases' own summaries stand for the pairs' only when the pairs are the releases' rows in their order:
    # pandas' join below may order them otherwise, and a mean summed in another order differs in its last bit.
    own_order = same or positions is not None
    if not own_order:  # case ids not as validation leaves them: pandas' join
        joined = join_cases(base.add_suffix("_b"), cand.add_suffix("_c"))
        base = joined[[f"{c}_b" for c in base.columns]].set_axis(base.columns, axis=1)
        cand = joined[[f"{c}_c" for c in cand.columns]].set_axis(cand.columns, axis=1)
        positions = (np.arange(len(joined)), np.arange(len(joined)))
    # Every case on both sides in the same order: the columns themselves, no copy.
    pick = None if same or positions is None or (
        len(base) == len(cand) and every_row(positions[0], len(base)) and every_row(positions[1], len(cand))) \
        else positions
    n_paired = len(base) if same or positions is None else int(positions[0].size)

    def arrays(column: str) -> tuple[np.ndarray, np.ndarray] | None:
        """One figure's paired columns, taken only when it is compared (each pair 16 bytes a case)."""
        if column not in base.columns or column not in cand.columns:
            return None
        b, c = base[column].to_numpy(float), cand[column].to_numpy(float)
        return (b, c) if pick is None else (b[pick[0]], c[pick[1]])

    base_lat = cand_lat = gm = p95 = None
    latency = arrays("latency")
    if latency is not None:
        own_b, own_c = summaries
        whole = pick is None and own_order and all(s is not None and s.summary.excluded == 0
                                              and s.summary.n == len(base) for s in summaries)
        gm_beside = beside(geometric_mean_ratio, *latency, rule_confidence(policy))
        if whole and own_b is not None and own_c is not None:
            # Every pair valid: the paired summaries and the p95 ratio's quantiles are the releases' own (four
            # selections of the latencies saved).
            p95 = _p95_ratio(*latency, policy, draws, (own_b, own_c))
            base_lat, cand_lat = own_b.summary, own_c.summary
        else:
            p95 = _p95_ratio(*latency, policy, draws)
            valid = _valid_latency_pairs(*latency)
            base_lat, cand_lat = latency_summary(valid[0]), latency_summary(valid[1])
        gm = gm_beside.result()
    tokens_ratio = cost_ratio = None
    tokens_means = cost_means = (math.nan, math.nan)
    tokens = arrays("tokens")
    if tokens is not None:
        tokens_ratio = _totals_ratio(*tokens, policy, draws)
        tokens_means = _paired_mean(*tokens)
    cost = arrays("cost")
    if cost is not None:
        cost_ratio = _totals_ratio(*cost, policy, draws)
        cost_means = _paired_mean(*cost)
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
        n_paired=n_paired,
    )


# --------------------------------------------------------------------------------------------------------
# the stage


class _ReleaseFigures(NamedTuple):
    frame: pd.DataFrame  # per case: latency, total tokens, cost (the token columns apart are summarised and freed)
    invalid: int  # latencies missing, zero or negative
    tokens: dict[str, float]  # each token column's mean per case
    quantiles: LatencyQuantiles | None  # the latencies' summary (release_quantiles); None without latencies
    extremes: np.ndarray | None  # the smallest and largest finite latency, for the histogram's edges


def _release_figures(data: ValidatedResults, release: str, policy: Policy) -> _ReleaseFigures:
    """One release's figures, each read from its own columns: the releases are worked out two at a time."""
    frame, invalid = per_case(data, release, policy)
    # The token columns apart are summarised now and freed (16 bytes a case of each release): the rest of
    # the section reads latency, total tokens and cost.
    tokens = {c: _token_mean(frame, c) for c in TOKEN_COLUMNS}
    frame = frame.drop(columns=[c for c in TOKEN_COLUMNS if c in frame.columns])
    if "latency" not in frame.columns:
        return _ReleaseFigures(frame, invalid, tokens, None, None)
    return _ReleaseFigures(frame, invalid, tokens, release_quantiles(frame, policy),
                           finite_extremes(frame["latency"].to_numpy(float)))


def cost_sections(data: ValidatedResults, policy: Policy) -> tuple[CostTable, dict[str, CostComparison]]:
    """The release-level CostTable and each candidate's CostComparison, by candidate name."""
    figures = dict(zip(data.releases, two_at_once(lambda r: _release_figures(data, r, policy), data.releases)))
    frames = {r: f.frame for r, f in figures.items()}
    quantiles = {r: f.quantiles for r, f in figures.items() if f.quantiles is not None}
    # The edges read the smallest and largest latency only: each release's, not every latency put together.
    extremes = [f.extremes for f in figures.values() if f.extremes is not None]
    edges = histogram_edges(np.concatenate(extremes)) if extremes else np.array([])
    has_cost_column = "cost" in data.cost_columns
    source = "cost column" if has_cost_column else "prices"
    rows = two_at_once(lambda r: release_costs(r, frames[r], figures[r].invalid, edges, policy, source,
                                               figures[r].tokens, quantiles.get(r)), data.releases)
    draws = ResampleDraws(policy.n_resamples, policy.seed)
    comparisons = {c: compare_costs(c, data.baseline, frames[data.baseline], frames[c], policy, draws,
                                    (quantiles.get(data.baseline), quantiles.get(c)))
                   for c in data.candidates}
    methods = {r.method for k in comparisons.values() for r in (k.latency_p95_ratio, k.tokens_ratio, k.cost_ratio)
               if r is not None}
    priced = not has_cost_column and bool(policy.prices)
    table = CostTable(
        releases=tuple(rows),
        has_latency=any(r.latency is not None for r in rows),
        has_tokens=any(not math.isnan(r.input_tokens_per_case) or not math.isnan(r.output_tokens_per_case)
                       for r in rows),
        has_cost=any(r.cost_source for r in rows),
        interval_methods=tuple(sorted(methods)),
        histogram_edges=tuple(float(x) for x in edges),
        prices_used=any(r.cost_source == "prices" for r in rows),
        prices_ignored=has_cost_column and bool(policy.prices),
        unpriced=tuple(r.name for r in rows if not r.cost_source) if priced else (),
        unknown_prices=tuple(sorted(set(policy.prices) - set(data.releases))) if priced else (),
        has_runs=data.has_runs,
    )
    return table, comparisons
