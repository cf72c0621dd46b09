"""Operating characteristics of a critical metric (``[metrics.NAME] critical = true``, issue 16): the critical
test applied to the metric's overall comparison and to every category, on simulated releases.

Releases of 400 cases in 4 categories of 100, baseline pass rate 0.9, one run. Harmless: a share ``churn`` of
cases change, half breaking and half fixing on average (each passing case breaks with probability
churn / 2 / 0.9, each failing one is fixed with probability churn / 2 / 0.1). Harmful: the same churn, plus
a 20-point drop of one category's pass rate (its passing cases broken with probability 0.2 / 0.9). The gate
is the library's own critical section after the one error budget (analyze/candidate.plan_arrays with
a critical metric's scope, ``CriticalScope(metric=True)``: the metric's tests share critical_weight, each weighing critical_weight / 5 here, beside
the overall and category regression tests); 1,000 replications each.

    PYTHONPATH=src python bench/critical_metric.py
"""

from __future__ import annotations

import numpy as np

from releasegate.analyze.candidate import plan_arrays
from releasegate.model import CriticalScope
from releasegate.policy import Policy

N, K, P0, REPS = 400, 4, 0.9, 1000


def _release(rng: np.random.Generator, churn: float, drop: float) -> tuple[np.ndarray, np.ndarray]:
    base = (rng.random(N) < P0).astype(np.float64)
    brk = np.where(base == 1, churn / 2 / P0, churn / 2 / (1 - P0))
    flip = rng.random(N) < brk
    cand = np.where(flip, 1 - base, base)
    if drop:
        first = np.arange(N) < N // K
        cand[first & (cand == 1) & (rng.random(N) < drop / P0)] = 0
    return base, cand


def blocks(rule: str, churn: float, drop: float, weight: float = 4.0, seed: int = 20261201) -> tuple[float, float]:
    """(share blocked by the whole critical metric, share blocked by its overall test alone)."""
    rng = np.random.default_rng(seed)
    codes = np.arange(N) * K // N
    labels = [f"c{k}" for k in range(K)]
    policy = Policy(critical=tuple(labels), critical_rule=rule, critical_weight=weight)
    any_block = overall_block = 0
    for _ in range(REPS):
        base, cand = _release(rng, churn, drop)
        s = plan_arrays(base, cand, policy, mcnemar=True, category_codes=codes, category_labels=labels,
                        critical=CriticalScope(tuple(labels), metric=True), verdict_only=True).critical
        overall_block += s.overall.blocks
        any_block += s.overall.blocks or any(t.blocks for t in s.tests)
    return any_block / REPS, overall_block / REPS


def main() -> None:
    print("| critical rule, critical_weight | false blocks at churn 5% / 10% / 17% (overall test alone) | "
          "20-point drop of one category caught, churn 10% |")
    print("|---|---|---|")
    # The metric's 5 tests (overall + 4 categories) share critical_weight: 4 gives each 0.8 beside weight 1 for
    # the overall and each category regression test, with which they are merged (one run, the same McNemar).
    # Every member then weighs the same, whatever the weight, so one row says it.
    for rule, weight in (("test", 4.0), ("any", 4.0)):
        false = [blocks(rule, churn, 0.0, weight) for churn in (0.05, 0.10, 0.17)]
        caught = blocks(rule, 0.10, 0.20, weight)[0]
        cells = " / ".join(f"{a:.1%} ({o:.1%})" for a, o in false)
        level = f"`{weight:g}`" if rule == "test" else "-"
        print(f"| `{rule}`, {level} | {cells} | {caught:.1%} |")


if __name__ == "__main__":
    main()
