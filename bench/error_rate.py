"""The default of ``max_error_rate_increase`` (issue 34, item 6 of the build): how often the error-rate rule
fires, by the limit, on simulated releases whose error rates are known.

Each case errors on each release independently (baseline rate e, candidate rate e + rise); the pass/fail
outcomes are a harmless 10%-churn pair in 9 categories, so the error-rate test sits in the error budget beside
the overall and category tests as in a report. The rule fires when the budget's adjusted p of the error-rate
test (exact one-sided McNemar of the cases only the candidate errored on against those only the baseline
errored on) is below alpha and the observed rise is above the limit. 2,000 replications a cell (500 at 2,000
cases).

    PYTHONPATH=src python bench/error_rate.py [--reps 2000]
"""

from __future__ import annotations

import numpy as np

from releasegate.analyze.candidate import plan_arrays
from releasegate.policy import Policy

P0, CHURN, REPS, SEED = 0.9, 0.10, 2000, 34_4


def fires(n: int, base_rate: float, rise: float, limits: tuple[float, ...], rng: np.random.Generator,
          reps: int = REPS) -> np.ndarray:
    """Share of replications in which the rule fires, one per limit."""
    codes = (np.arange(n) * 9) // n
    labels = [f"k{j}" for j in range(9)]
    policy = Policy()
    hits = np.zeros(len(limits))
    for _ in range(reps):
        p = np.array([P0 - CHURN / 2, CHURN / 2, CHURN / 2, 1 - P0 - CHURN / 2])
        cells = rng.choice(4, size=n, p=p)
        base = np.isin(cells, (0, 1)).astype(float)
        cand = np.isin(cells, (0, 2)).astype(float)
        b_err = rng.random(n) < base_rate
        c_err = rng.random(n) < base_rate + rise
        keep = ~(b_err | c_err)
        result = plan_arrays(base[keep], cand[keep], policy, mcnemar=True, category_codes=codes[keep],
                             category_labels=labels, verdict_only=True,
                             errored=(int(np.count_nonzero(c_err & ~b_err)), int(np.count_nonzero(b_err & ~c_err))))
        increase = (c_err.sum() - b_err.sum()) / n
        significant = result.error_p_adjusted < policy.alpha
        hits += np.array([significant and increase > limit for limit in limits])
    return hits / reps


def main(argv: list[str] | None = None) -> None:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=REPS)
    reps = parser.parse_args(argv).reps
    limits = (0.0, 0.01, 0.02, 0.05)
    rng = np.random.default_rng(SEED)
    heads = " | ".join(f"limit {100 * x:g} points" for x in limits)
    print(f"| cases | baseline error rate | true rise | {heads} |")
    print("|--:|--:|--:|" + "--:|" * len(limits))
    for n in (200, 400, 2000):
        for base_rate in (0.01, 0.05):
            for rise in (0.0, 0.01, 0.02, 0.03, 0.05, 0.10, 0.395):
                rates = fires(n, base_rate, rise, limits, rng, reps if n < 2000 else max(1, reps // 4))
                print(f"| {n} | {100 * base_rate:g}% | {100 * rise:g} points | "
                      + " | ".join(f"{100 * r:.1f}%" for r in rates) + " |", flush=True)


if __name__ == "__main__":
    main()
