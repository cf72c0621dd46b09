"""Which candidate of a sweep is best: each against the baseline, Holm across the candidates.

This answers "which is best", apart from each candidate's own gate (the report's verdicts): picking the
best of k candidates by its unadjusted p would find a "winner" by luck k times as often (mushin applies
Holm across systems; Holm 1979, Scand J Statist 6:65-70).

Per candidate: d = candidate - baseline per case (the mean over runs of each), on the cases both have.
One run of pass/fail outcomes: McNemar's exact one-sided p for "better" (P(X >= fixed), X ~ Bin(fixed +
broke, 1/2)); otherwise the paired t test's one-sided p for mean(d) > 0. Holm adjusts the k p-values.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from releasegate.stats.continuous import paired_t_test
from releasegate.stats.mcnemar import mcnemar_test
from releasegate.stats.multiplicity import holm_adjust


@dataclass(frozen=True)
class RankedCandidate:
    name: str
    n_cases: int
    difference: float  # mean of candidate - baseline over cases
    p_better: float  # one-sided, unadjusted
    p_adjusted: float  # Holm across the candidates
    method: str


def rank_candidates(table: pd.DataFrame, baseline: str, candidates: tuple[str, ...], value: str = "passed",
                    ) -> tuple[RankedCandidate, ...]:
    """The candidates sorted best first (largest mean difference); ``table`` is the run's tidy table."""
    data = table.dropna(subset=[value])
    per_case = data.groupby(["release", "case_id"], sort=False)[value].mean().unstack("release")
    runs = int(data.groupby(["release", "case_id"]).size().max()) if len(data) else 0
    rows = []
    for name in candidates:
        if name not in per_case.columns or baseline not in per_case.columns:
            continue
        pair = per_case[[baseline, name]].dropna()
        d = (pair[name] - pair[baseline]).to_numpy(dtype=float)
        if value == "passed" and runs == 1:
            fixed, broke = int((d > 0).sum()), int((d < 0).sum())
            p, method = mcnemar_test(broke, fixed).p_regression, "McNemar exact"  # roles swapped: P(X >= fixed)
        else:
            test = paired_t_test(d)
            p, method = (test.p_improvement if test.defined else float("nan")), "paired t"
        rows.append((name, len(d), float(d.mean()) if len(d) else float("nan"), float(p), method))
    if not rows:
        return ()
    raw = np.array([r[3] for r in rows])
    finite = np.isfinite(raw)
    adjusted = np.full(raw.shape, np.nan)
    if finite.any():
        adjusted[finite] = holm_adjust(raw[finite])
    ranked = [RankedCandidate(n, k, diff, p, float(a), m) for (n, k, diff, p, m), a in zip(rows, adjusted)]
    return tuple(sorted(ranked, key=lambda r: (-r.difference if np.isfinite(r.difference) else np.inf, r.name)))


def describe_ranking(ranked: tuple[RankedCandidate, ...], baseline: str, alpha: float = 0.05) -> list[str]:
    """Lines for the report's notes and the run's summary."""
    if not ranked:
        return []
    lines = [(f"Sweep: {len(ranked)} candidate(s) ranked against {baseline}, Holm across candidates "
              f"(alpha {alpha:g}):")]
    for i, r in enumerate(ranked, 1):
        lines.append(f"{i}. {r.name}: {r.difference:+.3f} on {r.n_cases} cases, one-sided p {r.p_better:.3g}, "
                     f"adjusted {r.p_adjusted:.3g} ({r.method})")
    winners = [r for r in ranked if np.isfinite(r.p_adjusted) and r.p_adjusted < alpha and r.difference > 0]
    lines.append(f"Best: {winners[0].name} (better than {baseline} after the correction)." if winners else
                 f"Best: none is shown better than {baseline} after the correction.")
    return lines
