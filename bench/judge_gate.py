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

    PYTHONPATH=src python bench/judge_gate.py --write docs/operating-characteristics.md   # 200 replications a cell
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from judge_calibration import JUDGES, gold_sample  # noqa: E402

from releasegate.analyze import parameters_of  # noqa: E402
from releasegate.analyze.candidate import plan_arrays  # noqa: E402
from releasegate.analyze.judge import section_from_arrays  # noqa: E402
from releasegate.decide import decide_candidate  # noqa: E402
from releasegate.kinds import OutcomeKind  # noqa: E402
from releasegate.model import Analysis, CandidateAnalysis, CandidateSections, Exclusions  # noqa: E402
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


def verdict(fb: np.ndarray, fc: np.ndarray, gb: np.ndarray, gc: np.ndarray, policy: Policy) -> tuple[bool, bool, bool]:
    """(raw blocks, gated blocks, the judge gate fired) on one simulated pair."""
    result = plan_arrays(fb, fc, policy, mcnemar=True, rates=True, verdict_only=True)
    section = section_from_arrays(("baseline", "candidate"), (fb, fc), (gb, gc), fb, fc, (gb, gc), result.overall,
                                  policy)
    cand = CandidateAnalysis("candidate", result.overall, result.categories, (), (), Exclusions(), result.power,
                             CandidateSections(None, None, None, judge=section))
    analysis = Analysis("baseline", OutcomeKind.BINARY, int(fb.size), (), (cand,), parameters_of(policy), False,
                        False, False)
    fired = {c.rule for c in decide_candidate(cand, analysis, policy).checks if c.fired}
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
    policy = Policy()
    return [run_cell(judge, n, reps, n_cases, seed + 1000 * k + n, policy)
            for k, judge in enumerate(judges) for n in sizes]


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


def write_doc(path: Path, text: str) -> None:
    doc = path.read_text(encoding="utf-8")
    head, rest = doc.split(START, 1)
    tail = rest.split(END, 1)[1]
    path.write_text(f"{head}{START}\n{text}\n{END}{tail}", encoding="utf-8")


def main(argv: list[str] | None = None) -> list[Cell]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=200, help="replications per cell (default 200)")
    parser.add_argument("--cases", type=int, default=1000, help="cases per simulated suite (default 1000)")
    parser.add_argument("--seed", type=int, default=20260202)
    parser.add_argument("--write", type=Path, help="write the table into this Markdown file between its markers")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    cells = grid(args.reps, args.cases, args.seed)
    seconds = time.perf_counter() - started
    policy = Policy()
    text = (f"{table(cells)}\n\n{args.reps} replications a cell (each a harmless and a regressed pair), "
            f"{args.cases} cases a suite, paired gold labels, seed {args.seed}, the default policy "
            f"(judge_min_youden {policy.judge_min_youden:g}, judge_rate_tolerance {policy.judge_rate_tolerance:g}, "
            f"margin {policy.margin:g}, alpha {policy.alpha:g}); {seconds:.0f} s.")
    print(text)
    if args.write:
        write_doc(args.write, text)
        print(f"wrote {args.write}", file=sys.stderr)
    return cells


if __name__ == "__main__":  # pragma: no cover
    main()
