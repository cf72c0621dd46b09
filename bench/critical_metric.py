"""Operating characteristics of a critical metric (``[metrics.NAME] critical = true``, issue 16): the critical
test applied to the metric's overall comparison and to every category, on simulated releases.

Releases of 400 cases in 4 categories of 100, baseline pass rate 0.9, one run. Harmless: a share ``churn`` of
cases change, half breaking and half fixing on average (each passing case breaks with probability
churn / 2 / 0.9, each failing one is fixed with probability churn / 2 / 0.1). Harmful: the same churn, plus
a 20-point drop of one category's pass rate (its passing cases broken with probability 0.2 / 0.9). The gate
is the library's own critical section (analyze/critical.py), whose tests share critical_alpha (each at
critical_alpha / 5 here); 1,000 replications each.

    PYTHONPATH=src python bench/critical_metric.py
"""

from __future__ import annotations

import numpy as np

from releasegate.analyze.critical import critical_section
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


def blocks(rule: str, churn: float, drop: float, alpha: float = 0.1, seed: int = 20261201) -> tuple[float, float]:
    """(share blocked by the whole critical metric, share blocked by its overall test alone)."""
    rng = np.random.default_rng(seed)
    codes = np.arange(N) * K // N
    labels = [f"c{k}" for k in range(K)]
    policy = Policy(critical=tuple(labels), critical_rule=rule, critical_alpha=alpha)
    any_block = overall_block = 0
    for _ in range(REPS):
        base, cand = _release(rng, churn, drop)
        s = critical_section(base, cand, policy, mcnemar=True, rates=True, category_codes=codes,
                             category_labels=labels, whole=True)
        overall_block += s.overall.blocks
        any_block += s.overall.blocks or any(t.blocks for t in s.tests)
    return any_block / REPS, overall_block / REPS


def main() -> None:
    print("| critical rule, critical_alpha | false blocks at churn 5% / 10% / 17% (overall test alone) | "
          "20-point drop of one category caught, churn 10% |")
    print("|---|---|---|")
    # The metric's 5 tests (overall + 4 categories) share critical_alpha: 0.1 runs each at 0.02, 0.2 at 0.04.
    for rule, alpha in (("test", 0.1), ("test", 0.2), ("any", 0.1)):
        false = [blocks(rule, churn, 0.0, alpha) for churn in (0.05, 0.10, 0.17)]
        caught = blocks(rule, 0.10, 0.20, alpha)[0]
        cells = " / ".join(f"{a:.1%} ({o:.1%})" for a, o in false)
        level = f"`{alpha:g}`" if rule == "test" else "-"
        print(f"| `{rule}`, {level} | {cells} | {caught:.1%} |")


if __name__ == "__main__":
    main()
