"""Several metrics gated at once: the false-block rate of a k-metric gate on harmless releases beside the
1-metric gate, and its detection of a regression in one metric (docs/operating-characteristics.md, "Several
metrics").

    PYTHONPATH=src python bench/opchar/metrics.py            # the published run (2,000 replications a cell)
    PYTHONPATH=src python bench/opchar/metrics.py --reps 200 # a quick look

Each replication draws k independent metric pairs of the same design (the base scenario: 400 cases, pass rate
0.9, 5% changing); the gate blocks when any metric's rules fire. Independent metrics are the worst case for
the false-block rate (correlated metrics block together, so less often in all). Each metric runs the library's
own plan and rules with the correction across metrics the release gate applies (each regression test's
adjusted p times k, releasegate.analyze.metrics) beside no correction and alpha / k for every rule.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from opchar.gates import BASELINE, CANDIDATE, library_fast
from opchar.simulate import Scenario, draw
from releasegate.analyze import parameters_of
from releasegate.analyze.candidate import plan_arrays
from releasegate.analyze.metrics import across_metrics
from releasegate.decide import decide_candidate
from releasegate.model import Analysis, CandidateAnalysis, CandidateSections, Exclusions
from releasegate.policy import Policy

SEED = 16_2026
BASE = Scenario()  # 400 cases, pass rate 0.9, 5% changing


def _blocks(sample, policy: Policy, k: int, split: str) -> bool:
    """Whether one metric's rules fire: its plan and rules as the library runs them, with the correction
    across k metrics ("p": adjusted p times k, the release gate's; "alpha": alpha / k; "none")."""
    if split != "p":
        alpha = policy.alpha / k if split == "alpha" else policy.alpha
        return any(library_fast(sample, [dataclasses.replace(policy, alpha=alpha)])[0])
    result = plan_arrays(sample.base, sample.cand, policy, mcnemar=True)
    cand = CandidateAnalysis(CANDIDATE, result.overall, result.categories, (), (), Exclusions(), result.power,
                             CandidateSections(result.item_axis, None, result.clusters))
    analysis = Analysis(BASELINE, "binary", sample.base.size, (), (cand,), parameters_of(policy), False, False, False)
    analysis = across_metrics(analysis, k)
    return any(c.fired for c in decide_candidate(analysis.candidates[0], analysis, policy).checks)


def block_rate(k: int, delta_first: float, split: str, reps: int, seed: int = SEED) -> float:
    """Share of replications a k-metric gate blocks when the first metric's true difference is
    ``delta_first`` and the others' is 0."""
    policy = Policy()
    rng = np.random.default_rng([seed, k, round(delta_first * 1000) + 1000, ("none", "alpha", "p").index(split)])
    streams = [draw(dataclasses.replace(BASE, delta=delta_first if m == 0 else 0.0), reps, rng) for m in range(k)]
    blocked = 0
    for samples in zip(*streams):
        blocked += any(_blocks(s, policy, k, split) for s in samples)
    return blocked / reps


def table(reps: int) -> str:
    rows = [("| gate (400 cases, pass rate 0.9, 5% changing, independent metrics) | no change: blocked | "
            "one metric -2 points: blocked | one metric -3 points: blocked | one metric -5 points: blocked |"),
            "|---|--:|--:|--:|--:|"]
    for label, k, split in (("1 metric (default policy)", 1, "none"),
                            ("3 metrics, no correction across metrics", 3, "none"),
                            ("3 metrics, alpha / 3 for every rule", 3, "alpha"),
                            ("3 metrics, regression tests' adjusted p x 3 (releasegate's)", 3, "p")):
        rates = [block_rate(k, d, split, reps) for d in (0.0, -0.02, -0.03, -0.05)]
        rows.append(f"| {label} | " + " | ".join(f"{100 * r:.1f}%" for r in rates) + " |")
    return "\n".join(rows) + "\n"


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=2000)
    print(table(parser.parse_args().reps), end="")
