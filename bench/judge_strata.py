"""Where a gold sample stratified by whether the judge changed the case would help (issue 35 item 5): the
design effect of Neyman allocation (stats/ppi_strata.py) on bench/judge_calibration.py's simulated suites, at
200 paired gold labels of 1,000 cases, per judge.

    PYTHONPATH=src python bench/judge_strata.py --write docs/judge.md
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from judge_calibration import JUDGES, gold_sample, simulate_suite, write_doc  # noqa: E402

from releasegate.stats.ppi_strata import neyman_allocation  # noqa: E402

START, END = "<!-- judge-strata:start -->", "<!-- judge-strata:end -->"


def run(reps: int, n_cases: int, labels: int, seed: int) -> list[tuple[str, float, float, float]]:
    rows = []
    for k, (name, tpr_b, fpr_b, tpr_c, fpr_c) in enumerate(JUDGES):
        rng = np.random.default_rng(seed + k)
        effects, shares, changed = [], [], []
        for _ in range(reps):
            yb, yc, fb, fc = simulate_suite(rng, n_cases, tpr_b, fpr_b, tpr_c, fpr_c)
            gb, gc = gold_sample(rng, n_cases, labels, "paired", yb, yc)
            g = fc - fb
            a = neyman_allocation(gc - gb, g, np.where(g != 0, 0, 1), ("changed", "unchanged"))
            effects.append(a.design_effect)
            shares.append(a.shares[0])
            changed.append(float(np.mean(g != 0)))
        rows.append((name, float(np.mean(changed)), float(np.mean(shares)), float(np.mean(effects))))
    return rows


def table(rows, reps: int, n_cases: int, labels: int, seed: int) -> str:
    lines = ["| judge | cases the judge changed | their Neyman share of the labels | design effect |",
             "|---|---:|---:|---:|"]
    lines += [f"| {n} | {100 * c:.0f}% | {100 * s:.0f}% | {d:.2f} |" for n, c, s, d in rows]
    return "\n".join(lines) + (f"\n\n{reps} replications a judge, {n_cases} cases, {labels} paired gold labels, "
                               f"seed {seed}.")


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--labels", type=int, default=200)
    parser.add_argument("--seed", type=int, default=20260303)
    parser.add_argument("--write", type=Path)
    args = parser.parse_args(argv)
    text = table(run(args.reps, args.cases, args.labels, args.seed), args.reps, args.cases, args.labels, args.seed)
    print(text)
    if args.write:
        write_doc(args.write, text, START, END)
    return text


if __name__ == "__main__":  # pragma: no cover
    main()
