"""The correction across metrics: with k metrics gated at once, each metric's adjusted p-values (already
adjusted over its own family, overall + categories) are multiplied by k (Bonferroni across metrics).

Why Bonferroni on the regression tests only (docs/operating-characteristics.md, "Several metrics"): on harmless
releases of the base design a 3-metric gate at alpha 0.05 each blocks 9.4% of the time against the 1-metric
gate's 3.1%; splitting alpha itself over the metrics also narrows the non-inferiority interval's level and
still blocks 6.5%; multiplying the regression tests' adjusted p by k keeps the non-inferiority rule as the
single-metric run has it and brings the 3-metric gate back under 5%. Every other figure (differences,
intervals, raw p-values) is the single-metric run's, unchanged.
"""

from __future__ import annotations

from dataclasses import replace

from releasegate.model import Analysis, Comparison


def _scaled(c: Comparison, k: int) -> Comparison:
    return replace(c, p_adjusted=min(1.0, c.p_adjusted * k), p_value_adjusted=min(1.0, c.p_value_adjusted * k))


def across_metrics(analysis: Analysis, k: int) -> Analysis:
    """The analysis with every adjusted p multiplied by ``k`` (capped at 1); ``k = 1`` returns it unchanged."""
    if k <= 1:
        return analysis
    candidates = tuple(replace(c, overall=_scaled(c.overall, k), categories=tuple(_scaled(x, k) for x in c.categories))
                       for c in analysis.candidates)
    return replace(analysis, candidates=candidates)
