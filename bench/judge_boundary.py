"""The corrected interval when the gold labels show the judge no error (stats.ppi.shows_no_judge_error): its
coverage of the true difference on the samples that show a judge error and on those that show none, for good
judges with small error rates, on bench/judge_calibration.py's simulated suites (true difference -5 points).

    PYTHONPATH=src python bench/judge_boundary.py --write docs/judge.md
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from judge_calibration import TRUE_BASE, TRUE_CAND, gold_sample, simulate_suite, write_doc  # noqa: E402

from releasegate.stats.ppi import ppi_paired_difference, shows_no_judge_error  # noqa: E402

START, END = "<!-- judge-boundary:start -->", "<!-- judge-boundary:end -->"
TRUE_DIFF = TRUE_CAND - TRUE_BASE
# (name, TPR on both releases, FPR on the baseline's answers, FPR on the candidate's)
JUDGES = (("TPR 0.98, FPR 0.02 on both", 0.98, 0.02, 0.02),
          ("TPR 0.98, FPR 0.02 / 0.10", 0.98, 0.02, 0.10),
          ("TPR 0.97, FPR 0.03 / 0.15", 0.97, 0.03, 0.15))


def run(reps: int, n_cases: int, labels: int, seed: int) -> list[tuple[str, str, int, float, int, float]]:
    """Per judge and design: the samples showing a judge error and the interval's coverage on them, then the
    same for the samples showing none."""
    rows = []
    for k, (name, tpr, fpr_b, fpr_c) in enumerate(JUDGES):
        for design in ("paired", "per release"):
            rng = np.random.default_rng(seed + k)
            counts = {False: [0, 0], True: [0, 0]}
            for _ in range(reps):
                yb, yc, fb, fc = simulate_suite(rng, n_cases, tpr, fpr_b, tpr, fpr_c)
                gb, gc = gold_sample(rng, n_cases, labels, design.replace(" ", "_"), yb, yc)
                d = ppi_paired_difference(fb, fc, gb, gc)
                if not d.defined or d.se == 0.0:
                    continue
                seen = counts[shows_no_judge_error(fb, fc, gb, gc)]
                seen[0] += 1
                seen[1] += int(d.low <= TRUE_DIFF <= d.high)
            (n_err, c_err), (n_none, c_none) = counts[False], counts[True]
            rows.append((name, design, n_err, c_err / n_err if n_err else float("nan"), n_none,
                         c_none / n_none if n_none else float("nan")))
    return rows


def table(rows, reps: int, n_cases: int, labels: int, seed: int) -> str:
    lines = ["| judge | gold design | samples showing a judge error | their coverage | samples showing none "
             "| their coverage |", "|---|---|---:|---:|---:|---:|"]
    lines += [f"| {n} | {d} | {a} | {100 * ca:.1f}% | {b} | {100 * cb:.1f}% |" for n, d, a, ca, b, cb in rows]
    return "\n".join(lines) + (f"\n\n{reps} replications a row, {n_cases} cases, {labels} gold labels per release, "
                               f"true difference {100 * TRUE_DIFF:+.0f} points, 95% intervals, seed {seed}.")


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=4000)
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--labels", type=int, default=40)
    parser.add_argument("--seed", type=int, default=20261207)
    parser.add_argument("--write", type=Path)
    args = parser.parse_args(argv)
    text = table(run(args.reps, args.cases, args.labels, args.seed), args.reps, args.cases, args.labels, args.seed)
    print(text)
    if args.write:
        write_doc(args.write, text, START, END)
    return text


if __name__ == "__main__":  # pragma: no cover
    main()
