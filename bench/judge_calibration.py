"""The judge's corrected comparison, measured on simulated suites with known judge error rates (issue 35 item 6).

Each replication draws a suite of ``--cases`` cases whose true outcomes pass at 0.80 on the baseline and 0.75 on
the candidate (paired: both pass 0.70, baseline only 0.10, candidate only 0.05, neither 0.15; the true difference
is -0.05, a 5-point regression), a judge that passes a truly passing answer with probability TPR and a truly
failing one with probability FPR (independently per case, each release its own rates), and a random gold sample:
the same n cases labelled on both releases ("paired"), or n cases per release drawn independently
("per release"). It records whether the 95% interval of the difference covers -0.05, for the corrected
(PPI++, releasegate.stats.ppi) and for the raw judge's (Newcombe's paired interval on the judge's labels, what
the plan reports without gold labels), their mean widths, and how often each interval shows the candidate
better (lower bound > 0) or a regression (upper bound < 0).

    PYTHONPATH=src python bench/judge_calibration.py --write docs/judge.md     # 500 replications a cell

writes the table into docs/judge.md between its markers (about a minute on this 2-core machine).
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from releasegate.stats.ppi import ppi_paired_difference
from releasegate.stats.proportions import newcombe_paired_interval

TRUE_BASE, TRUE_CAND = 0.80, 0.75
TRUE_DIFF = TRUE_CAND - TRUE_BASE
# (name, TPR baseline, FPR baseline, TPR candidate, FPR candidate): J from 0.4 to 0.9, equal and unequal.
JUDGES = (
    ("equal J 0.4", 0.70, 0.30, 0.70, 0.30),
    ("equal J 0.6", 0.80, 0.20, 0.80, 0.20),
    ("equal J 0.7 (TPR 0.9, FPR 0.2)", 0.90, 0.20, 0.90, 0.20),
    ("equal J 0.9", 0.95, 0.05, 0.95, 0.05),
    ("unequal J 0.8 / 0.5 (the issue's: FPR 0.1 / 0.4)", 0.90, 0.10, 0.90, 0.40),
    ("unequal J 0.7 / 0.4", 0.90, 0.20, 0.70, 0.30),
    ("unequal J 0.9 / 0.7", 0.95, 0.05, 0.90, 0.20),
)
GOLD_SIZES = (50, 100, 150, 200, 400)
PER_RELEASE_SIZES = (100, 150)
START, END = "<!-- judge-calibration:start -->", "<!-- judge-calibration:end -->"


@dataclass(frozen=True)
class Cell:
    judge: str
    j_baseline: float
    j_candidate: float
    design: str
    gold: int
    reps: int
    corrected_coverage: float
    raw_coverage: float
    corrected_width: float
    raw_width: float
    corrected_better: float
    raw_better: float
    corrected_regression: float
    raw_regression: float
    mean_corrected: float
    mean_raw: float


def simulate_suite(rng: np.random.Generator, n_cases: int, tpr_b: float, fpr_b: float, tpr_c: float,
                   fpr_c: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """True outcomes (baseline, candidate) and the judge's labels of one simulated suite."""
    u = rng.random(n_cases)
    yb = (u < TRUE_BASE).astype(float)
    yc = ((u < 0.70) | ((u >= 0.80) & (u < 0.85))).astype(float)
    fb = np.where(yb == 1, rng.random(n_cases) < tpr_b, rng.random(n_cases) < fpr_b).astype(float)
    fc = np.where(yc == 1, rng.random(n_cases) < tpr_c, rng.random(n_cases) < fpr_c).astype(float)
    return yb, yc, fb, fc


def gold_sample(rng: np.random.Generator, n_cases: int, n: int, design: str,
                yb: np.ndarray, yc: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The gold values (NaN where not labelled) of a random sample of n cases per release."""
    def mask() -> np.ndarray:
        out = np.zeros(n_cases, bool)
        out[rng.choice(n_cases, n, replace=False)] = True
        return out

    lb = mask()
    lc = lb if design == "paired" else mask()
    return np.where(lb, yb, np.nan), np.where(lc, yc, np.nan)


def raw_interval(fb: np.ndarray, fc: np.ndarray) -> tuple[float, float, float]:
    """The raw judge's paired difference and Newcombe's interval, as the plan computes it."""
    a = int(np.sum((fb == 1) & (fc == 1)))
    b = int(np.sum((fb == 1) & (fc == 0)))
    c = int(np.sum((fb == 0) & (fc == 1)))
    r = newcombe_paired_interval(a, b, c, fb.size - a - b - c)
    return r.estimate, r.low, r.high


def run_cell(judge: tuple, design: str, gold: int, reps: int, n_cases: int, seed: int) -> Cell:
    name, tpr_b, fpr_b, tpr_c, fpr_c = judge
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(reps):
        yb, yc, fb, fc = simulate_suite(rng, n_cases, tpr_b, fpr_b, tpr_c, fpr_c)
        gb, gc = gold_sample(rng, n_cases, gold, design, yb, yc)
        d = ppi_paired_difference(fb, fc, gb, gc)
        raw, raw_low, raw_high = raw_interval(fb, fc)
        rows.append((d.low <= TRUE_DIFF <= d.high, raw_low <= TRUE_DIFF <= raw_high, d.high - d.low,
                     raw_high - raw_low, d.low > 0, raw_low > 0, d.high < 0, raw_high < 0, d.estimate, raw))
    m = np.array(rows, dtype=float).mean(axis=0)
    return Cell(name, tpr_b - fpr_b, tpr_c - fpr_c, design, gold, reps, *map(float, m))


def grid(reps: int, n_cases: int, seed: int, judges=JUDGES, sizes=GOLD_SIZES,
         per_release_sizes=PER_RELEASE_SIZES) -> list[Cell]:
    cells = []
    for k, judge in enumerate(judges):
        for design, ns in (("paired", sizes), ("per release", per_release_sizes)):
            for n in ns:
                cells.append(run_cell(judge, design, n, reps, n_cases, seed + 1000 * k + n + (7 if design != "paired" else 0)))
    return cells


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def table(cells: list[Cell]) -> str:
    lines = ["| judge | J base / cand | gold design | gold per release | corrected coverage | raw coverage "
             "| corrected width | raw width | corrected: cand. better / regression | raw: cand. better / regression "
             "| mean corrected / raw diff |",
             "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for c in cells:
        lines.append(f"| {c.judge} | {c.j_baseline:.1f} / {c.j_candidate:.1f} | {c.design} | {c.gold} "
                     f"| {_pct(c.corrected_coverage)} | {_pct(c.raw_coverage)} | {100 * c.corrected_width:.1f} pts "
                     f"| {100 * c.raw_width:.1f} pts | {_pct(c.corrected_better)} / {_pct(c.corrected_regression)} "
                     f"| {_pct(c.raw_better)} / {_pct(c.raw_regression)} "
                     f"| {100 * c.mean_corrected:+.1f} / {100 * c.mean_raw:+.1f} pts |")
    return "\n".join(lines)


def issue_example(n_cases: int, seed: int) -> str:
    """One seeded suite of the issue's example at 150 paired gold labels, its figures in one line."""
    rng = np.random.default_rng(seed)
    yb, yc, fb, fc = simulate_suite(rng, n_cases, 0.9, 0.1, 0.9, 0.4)
    gb, gc = gold_sample(rng, n_cases, 150, "paired", yb, yc)
    d = ppi_paired_difference(fb, fc, gb, gc)
    raw, low, high = raw_interval(fb, fc)
    return (f"One seeded suite ({n_cases} cases, seed {seed}): judge pass rates {fb.mean():.3f} / {fc.mean():.3f}, "
            f"true {yb.mean():.3f} / {yc.mean():.3f}; raw judge difference {100 * raw:+.1f} points "
            f"[{100 * low:+.1f}, {100 * high:+.1f}]; corrected {100 * d.estimate:+.1f} points "
            f"[{100 * d.low:+.1f}, {100 * d.high:+.1f}] (lam {d.lam_baseline:.2f}, gold-only "
            f"{100 * d.classical:+.1f}).")


def write_doc(path: Path, text: str, start: str = START, end: str = END) -> None:
    """``text`` in place of what stands between the markers ``start`` and ``end`` of the Markdown file ``path``
    (the judge benchmarks each write their table this way)."""
    doc = path.read_text(encoding="utf-8")
    head, rest = doc.split(start, 1)
    tail = rest.split(end, 1)[1]
    path.write_text(f"{head}{start}\n{text}\n{end}{tail}", encoding="utf-8")


def main(argv: list[str] | None = None) -> list[Cell]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=500, help="replications per cell (default 500)")
    parser.add_argument("--cases", type=int, default=1000, help="cases per simulated suite (default 1000)")
    parser.add_argument("--seed", type=int, default=20260101)
    parser.add_argument("--write", type=Path, help="write the table into this Markdown file between its markers")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    cells = grid(args.reps, args.cases, args.seed)
    seconds = time.perf_counter() - started
    text = (f"{table(cells)}\n\n{args.reps} replications a cell, {args.cases} cases a suite, seed {args.seed}; "
            f"{seconds:.0f} s. {issue_example(args.cases, args.seed)}")
    print(text)
    if args.write:
        write_doc(args.write, text)
        print(f"wrote {args.write}", file=sys.stderr)
    return cells


if __name__ == "__main__":  # pragma: no cover
    main()
