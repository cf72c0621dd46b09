"""Stage 3: the fixed analysis plan (SPEC section 4), per candidate against the baseline.

Pass/fail outcomes with one run per case take the McNemar path: Wilson rates, Newcombe's paired interval,
exact McNemar overall and per category, the multiplicity family, powerless categories, broken and fixed
cases, and the minimum detectable difference. Scores and several runs per case take the paired-mean path
(:mod:`releasegate.analyze_scores`); clusters, the run axis and costs add their sections to ``extras``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace

import numpy as np
import pandas as pd

from releasegate.answers import baseline_renames, baseline_texts
from releasegate.case_view import case_view
from releasegate.model import (
    Analysis,
    CandidateAnalysis,
    CaseChange,
    Comparison,
    Exclusions,
    Parameters,
    Power,
    Rate,
    ReleaseSummary,
)
from releasegate.policy import Policy
from releasegate.stats.mcnemar import discordant_needed, mcnemar_test, smallest_regression_p
from releasegate.stats.multiplicity import adjust_pvalues, best_case_multiplier
from releasegate.stats.power import minimum_detectable_difference
from releasegate.stats.proportions import newcombe_paired_interval, wilson_interval
from releasegate.validate import ValidatedResults

# Shown beside broken cases; longer texts are cut by the renderers, not here.
MAX_METADATA_COLUMNS = 8


def parameters_of(policy: Policy) -> Parameters:
    return Parameters(
        alpha=policy.alpha,
        margin=policy.margin,
        correction=policy.correction,
        mcnemar=policy.mcnemar,
        confidence=policy.confidence,
        critical=tuple(policy.critical),
        power=policy.power,
        seed=policy.seed,
        n_resamples=policy.n_resamples,
    )


def case_table(data: ValidatedResults, release: str) -> pd.DataFrame:
    """One row per case of one release: the outcome (mean over runs), attributes and metadata, by case_id."""
    rows = data.table[data.table["release"] == release]
    attributes = [c for c in ("category", "cluster") if c in rows.columns]
    if data.has_runs:
        grouped = rows.groupby("case_id", sort=False)
        frame = grouped["outcome"].mean().to_frame()
        first = grouped[[*attributes, *data.metadata_columns]].first()
        frame = frame.join(first)
    else:
        frame = rows.set_index("case_id")[["outcome", *attributes, *data.metadata_columns]]
    return frame


def case_tables(data: ValidatedResults) -> dict[str, pd.DataFrame]:
    """Every release's case table: with runs each is a group-by over all rows, and the baseline's is needed by
    every candidate and by the release summary, so the analysis builds them once."""
    return {release: case_table(data, release) for release in data.releases}


def _cases(data: ValidatedResults, release: str, tables: Mapping[str, pd.DataFrame] | None) -> pd.DataFrame:
    return tables[release] if tables and release in tables else case_table(data, release)


def pair(data: ValidatedResults, candidate: str,
         tables: Mapping[str, pd.DataFrame] | None = None) -> tuple[pd.DataFrame, Exclusions]:
    """Inner join of the baseline and one candidate on case_id (SPEC 4.1); excluded cases are listed.
    ``tables`` are the releases' case tables when the caller has them (:func:`case_tables`)."""
    base = _cases(data, data.baseline, tables)
    cand = _cases(data, candidate, tables)
    texts = [c for c in data.per_release_columns if c in base.columns]  # the baseline's answers ride along
    joined = base[["outcome", *texts]].rename(columns={"outcome": "base", **baseline_renames(texts)}).join(
        cand.rename(columns={"outcome": "cand"}), how="inner")
    only_base = tuple(sorted(map(str, base.index.difference(cand.index))))
    only_cand = tuple(sorted(map(str, cand.index.difference(base.index))))
    # A stable order (by case_id) makes every later listing and every resample reproducible.
    joined = joined.sort_index(kind="stable")
    return joined, Exclusions(only_base, only_cand)


def compare_binary(label: str, base: np.ndarray, cand: np.ndarray, policy: Policy, critical: bool = False) -> Comparison:
    """The McNemar-path comparison of two paired 0/1 arrays (SPEC 4.2)."""
    base = base.astype(bool)
    cand = cand.astype(bool)
    n = int(base.size)
    both_pass = int(np.count_nonzero(base & cand))
    broke = int(np.count_nonzero(base & ~cand))
    fixed = int(np.count_nonzero(~base & cand))
    both_fail = n - both_pass - broke - fixed
    test = mcnemar_test(fixed, broke)
    ci = newcombe_paired_interval(both_pass, broke, fixed, both_fail, policy.confidence)
    ni = newcombe_paired_interval(both_pass, broke, fixed, both_fail, 1 - 2 * policy.alpha)
    rate_b = wilson_interval(both_pass + broke, n, policy.confidence)
    rate_c = wilson_interval(both_pass + fixed, n, policy.confidence)
    use_midp = policy.mcnemar == "midp"
    return Comparison(
        label=label,
        n=n,
        baseline=Rate(n, rate_b.estimate, rate_b.low, rate_b.high),
        candidate=Rate(n, rate_c.estimate, rate_c.low, rate_c.high),
        diff=ci.estimate,
        ci_low=ci.low,
        ci_high=ci.high,
        ni_low=ni.low,
        ni_high=ni.high,
        fixed=fixed,
        broke=broke,
        both_pass=both_pass,
        both_fail=both_fail,
        p_value=test.pvalue,
        p_midp=test.midp,
        p_one_sided=test.midp_regression if use_midp else test.p_regression,
        method="McNemar mid-p" if use_midp else "McNemar exact",
        degenerate=test.degenerate,
        critical=critical,
    )


def adjust_family(overall: Comparison, categories: list[Comparison], policy: Policy) -> tuple[Comparison, list[Comparison]]:
    """Adjust the candidate's family (overall + every category) and flag powerless categories (SPEC 4.5)."""
    family = [overall, *categories]
    one_sided = adjust_pvalues(np.array([c.p_one_sided for c in family]), policy.correction)
    two_sided = adjust_pvalues(np.array([c.p_value for c in family]), policy.correction)
    multiplier = best_case_multiplier(policy.correction, len(family))
    midp = policy.mcnemar == "midp"
    adjusted = []
    for comparison, p1, p2 in zip(family, one_sided, two_sided):
        n_disc = comparison.fixed + comparison.broke
        floor = smallest_regression_p(n_disc, midp) if comparison.method.startswith("McNemar") else 0.0
        powerless = comparison.method.startswith("McNemar") and min(1.0, floor * multiplier) >= policy.alpha
        needed = discordant_needed(policy.alpha, multiplier, midp) if powerless else None
        adjusted.append(replace(comparison, p_adjusted=float(p1), p_value_adjusted=float(p2),
                                powerless=powerless, discordant_needed=needed))
    return adjusted[0], adjusted[1:]


def _changes(paired: pd.DataFrame, mask: np.ndarray, data: ValidatedResults, policy: Policy) -> tuple[CaseChange, ...]:
    critical = set(policy.critical)
    rows = paired[mask]
    n = int(rows.shape[0])
    meta_columns = list(data.metadata_columns[:MAX_METADATA_COLUMNS])
    # Column by column rather than row by row: iterrows costs seconds per 100,000 changed cases.
    ids = [str(x) for x in rows.index]
    categories = _texts(rows["category"], None) if "category" in rows.columns else [None] * n
    clusters = _texts(rows["cluster"], None) if "cluster" in rows.columns else [None] * n
    metadata = [list(zip([c] * n, _texts(rows[c], ""))) for c in meta_columns]
    base = rows["base"].astype(float).tolist()
    cand = rows["cand"].astype(float).tolist()
    answers = baseline_texts(rows, [c for c in meta_columns if c in data.per_release_columns])
    changes = [
        CaseChange(ids[i], categories[i], clusters[i], base[i], cand[i], categories[i] in critical,
                   tuple(column[i] for column in metadata), answers[i])
        for i in range(n)
    ]
    # Critical categories first, then by category and case, so the reader meets what matters first.
    changes.sort(key=lambda c: (not c.critical, c.category or "", c.case_id))
    return tuple(changes)


def _texts(series: pd.Series, missing: str | None) -> list[str | None]:
    """Values as text for display; missing values (None, NaN, NA) become ``missing``."""
    absent = series.isna().tolist()
    return [missing if gone else str(value) for value, gone in zip(series.tolist(), absent)]


def _power(base: np.ndarray, cand: np.ndarray, policy: Policy, design_effect: float = 1.0) -> Power:
    d = cand.astype(float) - base.astype(float)
    sd = float(np.sqrt(np.mean(d * d) - np.mean(d) ** 2)) if d.size else math.nan
    result = minimum_detectable_difference(sd, int(d.size), policy.alpha, policy.power, True, design_effect)
    return Power(result.mde, sd, design_effect, policy.power, policy.alpha)


def analyze_candidate(data: ValidatedResults, candidate: str, policy: Policy,
                      tables: Mapping[str, pd.DataFrame] | None = None) -> CandidateAnalysis:
    """Run the binary plan for one candidate."""
    paired, exclusions = pair(data, candidate, tables)
    base = paired["base"].to_numpy()
    cand = paired["cand"].to_numpy()
    overall = compare_binary("overall", base, cand, policy)
    categories = []
    if data.has_categories:
        codes, labels = pd.factorize(paired["category"], sort=True)
        for k, label in enumerate(labels):
            inside = codes == k
            categories.append(compare_binary(str(label), base[inside], cand[inside], policy,
                                             critical=str(label) in policy.critical))
    extras, design_effect = {}, 1.0
    if data.has_clusters:
        from releasegate.axes.clusters import apply_clusters

        overall, categories, extras["clusters"] = apply_clusters(
            overall, categories, paired, codes if data.has_categories else None, policy, binary=True)
        design_effect = extras["clusters"].design_effect
    overall, categories = adjust_family(overall, categories, policy)
    broken = _changes(paired, (base == 1) & (cand == 0), data, policy)
    fixed = _changes(paired, (base == 0) & (cand == 1), data, policy)
    extras["case_view"] = case_view(paired, (base == 0) & (cand == 0), data.metadata_columns,
                                    lambda mask: _changes(paired, mask, data, policy), policy.critical)
    return CandidateAnalysis(
        name=candidate,
        overall=overall,
        categories=tuple(categories),
        broken_cases=broken,
        fixed_cases=fixed,
        exclusions=exclusions,
        power=_power(base, cand, policy, design_effect),
        extras=extras,
    )


def release_summary(data: ValidatedResults, release: str, policy: Policy,
                    tables: Mapping[str, pd.DataFrame] | None = None) -> ReleaseSummary:
    cases = _cases(data, release, tables)
    n = int(cases.shape[0])
    binary = data.outcome_kind == "binary"
    if data.has_clusters:
        from releasegate.axes.clusters import clustered_rate

        rate = clustered_rate(cases["outcome"].to_numpy(float), cases["cluster"], policy.confidence, binary)
    elif binary and not data.has_runs:
        w = wilson_interval(float(cases["outcome"].sum()), n, policy.confidence)
        rate = Rate(n, w.estimate, w.low, w.high)
    else:
        from releasegate.stats.continuous import mean_interval

        m = mean_interval(cases["outcome"].to_numpy(float), policy.confidence)
        rate = Rate(n, m.mean, m.ci_low, m.ci_high)
    return ReleaseSummary(release, n, rate, release == data.baseline)


def analyze(data: ValidatedResults, policy: Policy, only: tuple[str, ...] | None = None) -> Analysis:
    """The fixed plan for every candidate: binary McNemar path, or the paired-mean path for scores and runs."""
    # Built once only with runs, where each is a group-by over every row; a single run's table is a cheap
    # re-indexing, and holding every release's at once cost 230 MB more at 1,000,000 cases.
    tables = case_tables(data) if data.has_runs else None
    if data.outcome_kind == "binary" and not data.has_runs:
        candidates = tuple(analyze_candidate(data, c, policy, tables) for c in data.candidates)
    else:
        from releasegate.analyze_scores import analyze_scores_candidate

        candidates = tuple(analyze_scores_candidate(data, c, policy, tables) for c in data.candidates)
    releases = tuple(release_summary(data, r, policy, tables) for r in data.releases)
    n_cases = max(r.n_cases for r in releases)
    analysis = Analysis(
        baseline=data.baseline,
        outcome_kind=data.outcome_kind,
        n_cases=n_cases,
        releases=releases,
        candidates=candidates,
        parameters=parameters_of(policy),
        has_categories=data.has_categories,
        has_clusters=data.has_clusters,
        has_runs=data.has_runs,
        notes=data.notes,
    )
    if data.cost_columns or policy.prices:
        from releasegate.analyze_costs import add_costs

        analysis = add_costs(analysis, data, policy)
    return analysis
