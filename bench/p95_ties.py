"""Coverage of the p95 latency ratio's interval on rounded latencies: the delta method as it was (always)
against quantile_ratio_normal now (bootstrap hand-over on heavy ties). Seeded; prints one line per cell.

    PYTHONPATH=src python bench/p95_ties.py [replications]
"""

from __future__ import annotations

import sys

import numpy as np

from releasegate.stats import costs_normal


def draw(rng, n, unit):
    z = rng.normal(size=n)
    base = np.exp(7 + 0.5 * z)
    cand = np.exp(7 + 0.5 * (0.8 * z + 0.6 * rng.normal(size=n))) * 0.95
    if unit:
        base, cand = np.round(base / unit) * unit, np.round(cand / unit) * unit
    return base, cand


def delta_method_only(base, cand):
    q_b, u_b = costs_normal._quantile_influence(base, 0.95, 0.95)
    q_c, u_c = costs_normal._quantile_influence(cand, 0.95, 0.95)
    se = float(np.std(u_c - u_b, ddof=1)) / np.sqrt(base.size)
    return costs_normal._log_interval(q_c / q_b, se, base.size, 0, 0.95)


def main(reps: int = 200) -> None:
    rng = np.random.default_rng(20261201)
    for unit, n in ((100, 3000), (50, 3000), (100, 10000), (10, 30000), (0, 3000)):
        pop_b, pop_c = draw(rng, 2_000_000, unit)
        truth = np.quantile(pop_c, 0.95) / np.quantile(pop_b, 0.95)
        old = new = handed = 0
        for _ in range(reps):
            b, c = draw(rng, n, unit)
            r_old = delta_method_only(b, c)
            r_new = costs_normal.quantile_ratio_normal(b, c)
            old += r_old.low <= truth <= r_old.high
            new += r_new.low <= truth <= r_new.high
            handed += r_new.method == costs_normal.TIE_METHOD
        se = (0.95 * 0.05 / reps) ** 0.5
        print(f"rounding {unit:>3} ms, {n:>6} pairs: delta method {old / reps:.3f}, now {new / reps:.3f} "
              f"(bootstrap on {handed}/{reps}; Monte Carlo se {se:.3f})", flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200)
