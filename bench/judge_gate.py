"""The judge gate's operating characteristics (issue 35 items 4 and 6): on simulated suites with known judge error
rates, how often the verdict blocks a harmless release (false blocks) and a 5-point regression (detection), for
the raw judge (the plan and its rules on the judge's labels, gold labels unread) and with the judge gate
(decide/rules/judge.py at the policy's defaults, which reads the judge section of analyze/judge.py), and the
share of the gate's blocks that are its own (judge_unreliable fired).

The suites are bench/judge_calibration.py's (1,000 cases; the regression: true pass rates 0.80 / 0.75, paired),
plus a harmless pair (0.80 / 0.80: both pass 0.72, each alone 0.08); the judge passes a truly passing answer
with probability TPR and a failing one with probability FPR, each release its own; the gold sample is the same
n cases on both releases (paired). Each replication runs the library's own plan on arrays
(analyze.candidate.plan_arrays), the judge section on arrays (analyze.judge.section_from_arrays) and
decide.decide_candidate under the default policy.

A second table (issue 35 item 3) sets the two readings of the overall test side by side, both with the judge
gate on: "raw" (judge_correction = "none": the rules read the judge's own comparison) and "corrected"
("ppi", the default: they read the PPI++ corrected difference in its place), with the harmless pair's
DON'T SHIP and NOT PROVEN counted apart and the regression's DON'T SHIP (detection) and not SHIP.

    PYTHONPATH=src python bench/judge_gate.py --write docs/operating-characteristics.md   # 200 replications a cell
    PYTHONPATH=src python bench/judge_gate.py --write docs/operating-characteristics.md --write-correction docs/judge.md
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from judge_calibration import JUDGES, gold_sample, write_doc  # noqa: E402

from releasegate.analyze import parameters_of  # noqa: E402
from releasegate.analyze.candidate import plan_arrays  # noqa: E402
from releasegate.analyze.judge import corrected_figures, section_from_arrays  # noqa: E402
from releasegate.decide import decide_candidate  # noqa: E402
from releasegate.kinds import OutcomeKind  # noqa: E402
from releasegate.model import Analysis, CandidateAnalysis, CandidateSections, Decision, Exclusions  # noqa: E402
from releasegate.policy import Policy  # noqa: E402

GOLD_SIZES = (50, 100, 150, 200, 400)
START, END = "<!-- BEGIN generated:judge-gate -->", "<!-- END generated:judge-gate -->"
JUDGE_RULE = "judge_unreliable"


@dataclass(frozen=True)
class Cell:
    judge: str
    gold: int
    reps: int
    raw_false_blocks: float
    gated_false_blocks: float
    raw_detection: float
    gated_detection: float
    gate_fired_harmless: float
    gate_fired_regressed: float


def truth(rng: np.random.Generator, n_cases: int, harmless: bool) -> tuple[np.ndarray, np.ndarray]:
    u = rng.random(n_cases)
    yb = (u < 0.80).astype(float)
    if harmless:
        yc = ((u < 0.72) | ((u >= 0.80) & (u < 0.88))).astype(float)
    else:
        yc = ((u < 0.70) | ((u >= 0.80) & (u < 0.85))).astype(float)
    return yb, yc


def judged(rng: np.random.Generator, y: np.ndarray, tpr: float, fpr: float) -> np.ndarray:
    return np.where(y == 1, rng.random(y.size) < tpr, rng.random(y.size) < fpr).astype(float)


def decided(fb: np.ndarray, fc: np.ndarray, gb: np.ndarray, gc: np.ndarray,
            policy: Policy) -> tuple[Decision, set[str]]:
    """The verdict and the rules that fired on one simulated pair, wired as analyze_candidate wires a
    candidate with gold labels: the corrected figures made first, in the overall test's place under
    judge_correction = "ppi", the judge section beside the plan."""
    corrected = corrected_figures(fb, fc, (gb, gc), policy)
    gated = policy.judge_correction == "ppi"
    result = plan_arrays(fb, fc, policy, mcnemar=True, rates=True, verdict_only=True,
                         corrected=corrected if gated else None)
    judged = result.overall if result.judged is None else result.judged
    section = section_from_arrays(("baseline", "candidate"), (fb, fc), (gb, gc), fb, fc, (gb, gc), judged,
                                  policy, corrected=corrected, gated=gated)
    cand = CandidateAnalysis("candidate", result.overall, result.categories, (), (), Exclusions(), result.power,
                             CandidateSections(None, None, None, judge=section), judged=result.judged)
    analysis = Analysis("baseline", OutcomeKind.BINARY, int(fb.size), (), (cand,), parameters_of(policy), False,
                        False, False)
    verdict_ = decide_candidate(cand, analysis, policy)
    return verdict_.decision, {c.rule for c in verdict_.checks if c.fired}


def verdict(fb: np.ndarray, fc: np.ndarray, gb: np.ndarray, gc: np.ndarray, policy: Policy) -> tuple[bool, bool, bool]:
    """(raw blocks, gated blocks, the judge gate fired) on one simulated pair."""
    _, fired = decided(fb, fc, gb, gc, policy)
    return bool(fired - {JUDGE_RULE}), bool(fired), JUDGE_RULE in fired


def run_cell(judge: tuple, gold: int, reps: int, n_cases: int, seed: int, policy: Policy) -> Cell:
    name, tpr_b, fpr_b, tpr_c, fpr_c = judge
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(reps):
        out = []
        for harmless in (True, False):
            yb, yc = truth(rng, n_cases, harmless)
            fb, fc = judged(rng, yb, tpr_b, fpr_b), judged(rng, yc, tpr_c, fpr_c)
            gb, gc = gold_sample(rng, n_cases, gold, "paired", yb, yc)
            out.append(verdict(fb, fc, gb, gc, policy))
        (rh, gh, jh), (rr, gr, jr) = out
        rows.append((rh, gh, rr, gr, jh, jr))
    m = np.array(rows, dtype=float).mean(axis=0)
    return Cell(name, gold, reps, *map(float, m))


def grid(reps: int, n_cases: int, seed: int, judges=JUDGES, sizes=GOLD_SIZES) -> list[Cell]:
    # The judge gate on the rules that read the judge's own figures (what it was measured on before the
    # correction was gated: the correction table below sets the two readings side by side).
    policy = Policy(judge_correction="none")
    return [run_cell(judge, n, reps, n_cases, seed + 1000 * k + n, policy)
            for k, judge in enumerate(judges) for n in sizes]


# The correction table: two equal judges and the unequal one, three gold sizes.
CORRECTION_JUDGES = tuple(j for j in JUDGES if j[0] in ("equal J 0.9", "equal J 0.7 (TPR 0.9, FPR 0.2)",
                                                        "unequal J 0.8 / 0.5 (the issue's: FPR 0.1 / 0.4)"))
CORRECTION_SIZES = (50, 150, 400)
CORRECTION_START, CORRECTION_END = "<!-- BEGIN generated:judge-correction -->", "<!-- END generated:judge-correction -->"
READINGS = ("none", "ppi")  # raw, corrected


@dataclass(frozen=True)
class CorrectionCell:
    """One judge and gold size: per reading (raw, corrected) the harmless pair's DON'T SHIP and NOT PROVEN
    shares and the regressed pair's DON'T SHIP (detection) and not-SHIP shares."""

    judge: str
    gold: int
    reps: int
    harmless_dont_ship: tuple[float, float]
    harmless_not_proven: tuple[float, float]
    regression_dont_ship: tuple[float, float]
    regression_not_ship: tuple[float, float]


def run_correction_cell(judge: tuple, gold: int, reps: int, n_cases: int, seed: int) -> CorrectionCell:
    name, tpr_b, fpr_b, tpr_c, fpr_c = judge
    policies = [Policy(judge_correction=r) for r in READINGS]
    rng = np.random.default_rng(seed)
    counts = np.zeros((4, 2))
    for _ in range(reps):
        for harmless in (True, False):
            yb, yc = truth(rng, n_cases, harmless)
            fb, fc = judged(rng, yb, tpr_b, fpr_b), judged(rng, yc, tpr_c, fpr_c)
            gb, gc = gold_sample(rng, n_cases, gold, "paired", yb, yc)
            for k, policy in enumerate(policies):  # the same simulated pair under both readings
                decision, _ = decided(fb, fc, gb, gc, policy)
                if harmless:
                    counts[0, k] += decision is Decision.DONT_SHIP
                    counts[1, k] += decision is Decision.NOT_PROVEN
                else:
                    counts[2, k] += decision is Decision.DONT_SHIP
                    counts[3, k] += decision is not Decision.SHIP
    shares = [tuple(float(x) for x in row / reps) for row in counts]
    return CorrectionCell(name, gold, reps, *shares)


def correction_grid(reps: int, n_cases: int, seed: int, judges=CORRECTION_JUDGES,
                    sizes=CORRECTION_SIZES) -> list[CorrectionCell]:
    return [run_correction_cell(judge, n, reps, n_cases, seed + 1000 * k + n)
            for k, judge in enumerate(judges) for n in sizes]


def correction_table(cells: list[CorrectionCell]) -> str:
    def pair(x: tuple[float, float]) -> str:
        return f"{_pct(x[0])} / {_pct(x[1])}"

    lines = ["| judge | gold per release | harmless: DON'T SHIP raw / corrected "
             "| harmless: NOT PROVEN raw / corrected | 5-point regression: DON'T SHIP raw / corrected "
             "| 5-point regression: not SHIP raw / corrected |",
             "|---|---:|---:|---:|---:|---:|"]
    for c in cells:
        lines.append(f"| {c.judge} | {c.gold} | {pair(c.harmless_dont_ship)} | {pair(c.harmless_not_proven)} "
                     f"| {pair(c.regression_dont_ship)} | {pair(c.regression_not_ship)} |")
    return "\n".join(lines)


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def table(cells: list[Cell]) -> str:
    lines = ["| judge | gold per release | false blocks: raw / gated | detection: raw / gated "
             "| judge gate fired: harmless / regressed |",
             "|---|---:|---:|---:|---:|"]
    for c in cells:
        lines.append(f"| {c.judge} | {c.gold} | {_pct(c.raw_false_blocks)} / {_pct(c.gated_false_blocks)} "
                     f"| {_pct(c.raw_detection)} / {_pct(c.gated_detection)} "
                     f"| {_pct(c.gate_fired_harmless)} / {_pct(c.gate_fired_regressed)} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> list[Cell]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=200, help="replications per cell (default 200)")
    parser.add_argument("--cases", type=int, default=1000, help="cases per simulated suite (default 1000)")
    parser.add_argument("--seed", type=int, default=20260202)
    parser.add_argument("--write", type=Path, help="write the tables into this Markdown file between their markers")
    parser.add_argument("--write-correction", type=Path, action="append", default=[],
                        help="also write the correction table into this file (repeatable)")
    parser.add_argument("--only", choices=("gate", "correction"), help="run one of the two tables")
    args = parser.parse_args(argv)
    policy = Policy()
    cells: list[Cell] = []
    if args.only != "correction":
        started = time.perf_counter()
        cells = grid(args.reps, args.cases, args.seed)
        seconds = time.perf_counter() - started
        text = (f"{table(cells)}\n\n{args.reps} replications a cell (each a harmless and a regressed pair), "
                f"{args.cases} cases a suite, paired gold labels, seed {args.seed}, the default policy but "
                f"judge_correction \"none\" (judge_min_youden {policy.judge_min_youden:g}, judge_rate_tolerance "
                f"{policy.judge_rate_tolerance:g}, margin {policy.margin:g}, alpha {policy.alpha:g}); {seconds:.0f} s.")
        print(text)
        if args.write:
            write_doc(args.write, text, START, END)
    if args.only != "gate":
        started = time.perf_counter()
        corrections = correction_grid(args.reps, args.cases, args.seed + 7)
        seconds = time.perf_counter() - started
        text = (f"{correction_table(corrections)}\n\n{args.reps} replications a cell (each a harmless and a "
                f"regressed pair, both read both ways), {args.cases} cases a suite, paired gold labels, seed "
                f"{args.seed + 7}, the default policy with the judge gate on (margin {policy.margin:g}, alpha "
                f"{policy.alpha:g}); raw: judge_correction \"none\", corrected: \"ppi\"; {seconds:.0f} s.")
        print(text)
        for path in ([args.write] if args.write else []) + list(args.write_correction):
            write_doc(path, text, CORRECTION_START, CORRECTION_END)
    if args.write:
        print(f"wrote {args.write}", file=sys.stderr)
    return cells


if __name__ == "__main__":  # pragma: no cover
    main()
