"""Does the one error budget keep a harmless release's DON'T SHIP at alpha with several runs (issue 34)? With runs
the overall and category members are paired t tests on per-case means, asymptotic where the McNemar members are
exact; the teams' grid once measured 6.5% at 17% churn with 5 runs (200 replications).

Two measurements, on ``releasegate.plan.simulate``'s flaky run model (the teams' grid's):

- ``--study tail``: the null tail of the one-sided paired t on a 44-case category (the size of the 8 non-critical
  categories of the teams' design) at the levels the budget reads it (about alpha / 10 each: the critical
  category's majority-outcome test spends almost nothing), P(p < level) / level over many null categories;
  above 1 the test is anti-conservative there.
- ``--study cell``: the teams' cell itself (400 cases, 9 categories, one 50-case critical, 5 runs, harmless),
  decided by the library's plan and rules (``plan_gate``), the share DON'T SHIP and each rule's.

    PYTHONPATH=src python bench/paired_t_tail.py --study tail [--reps 400000]
    PYTHONPATH=src python bench/paired_t_tail.py --study cell [--reps 3000] [--churn 0.17] [--seed-offset 0]
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

P0, RUNS, CATEGORY = 0.9, 5, 44


def tail_study(reps: int) -> None:
    from scipy import stats

    rng = np.random.default_rng(34)
    print("| churn | nonzero differences (of 44) | P(p < 0.01) / 0.01 | P(p < 0.005) / 0.005 | P(p < 0.0025) / 0.0025 |")
    print("|--:|--:|--:|--:|--:|")
    for churn in (0.05, 0.10, 0.17):
        w = churn / (2 * P0 * (1 - P0))  # flaky share: every run of a flaky case a fresh Bernoulli(p0)
        kind = rng.choice(3, size=(reps, CATEGORY), p=[(1 - w) * P0, w, (1 - w) * (1 - P0)])
        latent = np.where(kind == 0, 1.0, np.where(kind == 1, P0, 0.0))
        d = rng.binomial(RUNS, latent) / RUNS - rng.binomial(RUNS, latent) / RUNS  # candidate - baseline means
        sd = d.std(1, ddof=1)
        ok = sd > 0
        t = np.where(ok, d.mean(1) / np.where(ok, sd, 1.0) * math.sqrt(CATEGORY), 0.0)
        p = np.where(ok, stats.t.cdf(t, CATEGORY - 1), 1.0)  # one-sided, regression: the lower tail
        cells = []
        for level in (0.01, 0.005, 0.0025):
            se = math.sqrt(level * (1 - level) / reps) / level
            cells.append(f"{np.mean(p < level) / level:.2f} ({se:.2f})")
        print(f"| {churn:.0%} | {(d != 0).sum(1).mean():.1f} | " + " | ".join(cells) + " |", flush=True)


def cell_study(reps: int, churn: float, offset: int) -> None:
    from opchar.teams import CATEGORIES, SEED, fast_power
    from releasegate.decide.rules import decision_of
    from releasegate.model import Decision
    from releasegate.plan.evaluate import scenario_seed
    from releasegate.plan.gate import plan_gate
    from releasegate.plan.simulate import ReleaseScenario, draw_releases
    from releasegate.policy import make_policy

    sc = ReleaseScenario(churn=churn, critical=(50,), runs=RUNS, categories=CATEGORIES)
    gate = plan_gate(make_policy(baseline="baseline"))
    rng = np.random.default_rng(scenario_seed(SEED + offset, sc))
    dont, fired, start = 0, {}, time.process_time()
    for sample in draw_releases(sc, reps, rng):
        with fast_power():
            rules = gate(sample)
        dont += decision_of(rules) is Decision.DONT_SHIP
        for r in rules:
            fired[r] = fired.get(r, 0) + 1
    rate = dont / reps
    rules = ", ".join(f"{r} {100 * n / reps:.1f}%" for r, n in sorted(fired.items()))
    print(f"{sc.key()} (seed offset {offset}): DON'T SHIP {100 * rate:.2f}% (SE {100 * math.sqrt(rate * (1 - rate) / reps):.2f}) "
          f"of {reps}; {rules}; {time.process_time() - start:.0f} CPU-s")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--study", choices=("tail", "cell"), default="tail")
    parser.add_argument("--reps", type=int)
    parser.add_argument("--churn", type=float, default=0.17)
    parser.add_argument("--seed-offset", type=int, default=0, help="0: the teams' grid's own releases")
    args = parser.parse_args(argv)
    if args.study == "tail":
        tail_study(args.reps or 400_000)
    else:
        cell_study(args.reps or 3000, args.churn, args.seed_offset)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
