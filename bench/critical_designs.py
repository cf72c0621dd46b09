"""Issue 46's done-when lines under several critical-category designs, on the same simulated releases.

The releases are ``bench/verdicts.py``'s (its generator and its per-cell seeds, so the default design's row is
what ``bench/verdicts.py --study done`` prints at the same replications); every release is decided once per
design by the library's own plan and rules. A design is the critical category's own test (``critical_test``:
the exact conditional McNemar test, or the exact unconditional Suissa-Shuster test), its weight in the one
error budget (``critical_weight``) and the level below which it leaves the release NOT PROVEN
(``critical_doubt``, 0.10 unless a design names it); nothing else of the default policy moves. The question it answers: does any
design keep every harmless release's DON'T SHIP at most 5% and not ship a 20-point drop in a 50-case critical
category at least 93% of the time, while a 5-point regression at 10% churn stays DON'T SHIP at least 70%?

    PYTHONPATH=src python bench/critical_designs.py [--reps 300] [--workers 2]

prints one row per design (markdown), each rate with its Monte Carlo standard error.
"""

from __future__ import annotations

import argparse
import sys
import time
import zlib
from dataclasses import replace

import numpy as np

from releasegate.policy import make_policy
from verdicts import CRITICAL, SEED, Cell, done_cells, draw, gate, labels, rate, verdict_of

# (critical_test, critical_weight): the default first.
DESIGNS = (("conditional", 10.0), ("conditional", 3.0), ("conditional", 1.0), ("unconditional", 10.0),
           ("unconditional", 3.0), ("unconditional", 2.0), ("unconditional", 1.0))


def design_policy(test: str, weight: float, doubt: float = 0.10):
    policy = make_policy(baseline="baseline", critical=(CRITICAL,), critical_test=test, critical_weight=weight,
                         critical_doubt=doubt)
    return replace(policy, guardrails={})  # simulated releases carry no latency or cost


def run_cell(cell: Cell, reps: int, designs=DESIGNS) -> list[dict[str, int]]:
    """Per design, the counts of DON'T SHIP, NOT PROVEN and SHIP on the cell's ``reps`` releases."""
    policies = [design_policy(*d) for d in designs]
    codes, names = labels(cell.critical)
    rng = np.random.default_rng((SEED, zlib.crc32(cell.key.encode())))
    counts = [{"dont_ship": 0, "not_proven": 0, "ship": 0} for _ in designs]
    for _ in range(reps):
        base, cand, rerun = draw(cell, rng)
        for count, policy in zip(counts, policies):
            count[verdict_of(gate(policy, base, cand, rerun, codes, names))] += 1
    return counts


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=300)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--designs", help="TEST:WEIGHT[:DOUBT],... (default: the seven of DESIGNS at critical_doubt "
                        "0.10)")
    parser.add_argument("--decisive", action="store_true", help="only the two cells the designs trade between: "
                        "the 5-point regression at 10%% churn and the 20-point critical drop")
    args = parser.parse_args(argv)
    designs = DESIGNS if not args.designs else tuple(
        (parts[0], *map(float, parts[1:])) for parts in (d.split(":") for d in args.designs.split(",")))
    named = [(name, cell) for name, cell in done_cells()
             if not args.decisive or name.startswith(("5 points, 10%", "20 points"))]
    start = time.perf_counter()
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(args.workers) as pool:
        results = list(pool.map(run_cell, [c for _, c in named], [args.reps] * len(named), [designs] * len(named)))
    reps = args.reps
    print("| critical_test, critical_weight | harmless: largest DON'T SHIP (cell) | 3 points, 5% churn: DON'T SHIP | "
          "5 points, 10% churn: DON'T SHIP | 5 points, 10% churn: not SHIP | 20 points in the critical category: "
          "not SHIP |")
    print("|---|--:|--:|--:|--:|--:|")
    index = {name: i for i, (name, _) in enumerate(named)}
    for d, (test, weight, *doubt) in enumerate(designs):
        harmless = [(results[i][d]["dont_ship"], name) for name, i in index.items() if name.startswith("harmless")]
        worst = f"{rate(max(harmless)[0], reps)} ({max(harmless)[1]})" if harmless else "not run"
        three = (rate(results[index["3 points, 5% churn"]][d]["dont_ship"], reps) if "3 points, 5% churn" in index
                 else "not run")
        five = results[index["5 points, 10% churn"]][d]
        crit = results[index["20 points in the critical category, 10% churn"]][d]
        level = f", critical_doubt {doubt[0]:g}" if doubt else ""
        print(f"| {test}, {weight:g}{level} | {worst} | {three} | "
              f"{rate(five['dont_ship'], reps)} | {rate(reps - five['ship'], reps)} | "
              f"{rate(reps - crit['ship'], reps)} |")
    print("\nEvery cell, every design (DON'T SHIP / NOT PROVEN / SHIP counts):", file=sys.stderr)
    for name, i in index.items():
        print(name, [tuple(c.values()) for c in results[i]], file=sys.stderr)
    print(f"\n{len(named)} cells x {reps} replications x {len(designs)} designs, "
          f"{time.perf_counter() - start:.0f} s wall", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
