"""The two-phase settling rule (plan/settle.py, issue 34 item 3) against one look, on simulated releases.

400 cases at pass rate 0.9, one 50-case critical category and 8 others, default policy; look 1 at alpha 0.04,
look 2 (4 more runs of every case on both releases) at 0.01. Churn is run-to-run (each run reproduces the
case's latent outcome with probability rho, else a fresh draw; rho from the churn), except the row marked
case-level, where the candidate changed 10% (20%) of the cases for good and runs repeat exactly. One look is the
library's gate at alpha 0.05 on the same releases (their first run, or the two runs the rows marked "2 runs" start
with), so the columns are paired.
With two runs in hand the discordance is split first (issue 46 item 2): where the added runs cannot settle it,
nothing is called and one look at alpha 0.05 decides ("one look at alpha" is that share).

    PYTHONPATH=src python bench/settle.py [--reps 600]
"""

from __future__ import annotations

import argparse
import sys

from releasegate.plan.settle import two_phase_characteristics
from releasegate.plan.simulate import ReleaseScenario
from releasegate.policy import make_policy


def pct(r) -> str:
    return f"{100 * r.rate:.1f}% ({100 * r.se:.1f})"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=600)
    args = parser.parse_args(argv)
    policy = make_policy(baseline="a")
    base = {"n": 400, "critical": (50,), "categories": 8, "noise": "reproduce"}
    rows = [("no change, 5% run-to-run churn", {"churn": 0.05}), ("no change, 10%", {"churn": 0.10}),
            ("no change, 17%", {"churn": 0.17}), ("no change, 10% case-level change", {"churn": 0.0, "change": 0.10}),
            ("5 points added, 10%", {"churn": 0.10, "drop": 0.05}),
            ("3 points added, 10%", {"churn": 0.10, "drop": 0.03}),
            ("20 points in the critical category, 10%", {"churn": 0.10, "critical_drop": 0.20}),
            ("no change, 20% case-level change", {"churn": 0.0, "change": 0.20}),
            ("no change, 10% run-to-run churn, 2 runs", {"churn": 0.10, "runs": 2}),
            ("no change, 20% case-level change, 2 runs", {"churn": 0.0, "change": 0.20, "runs": 2}),
            ("no change, 10% case-level change, 2 runs", {"churn": 0.0, "change": 0.10, "runs": 2}),
            ("5 points added, 10% run-to-run churn, 2 runs", {"churn": 0.10, "drop": 0.05, "runs": 2})]
    print("| release | one look: DON'T SHIP | one look: NOT PROVEN | settled: DON'T SHIP | settled: NOT PROVEN | "
          "settled: SHIP | second looks | one look at alpha | mean calls (one look = 1) |")
    print("|---|--:|--:|--:|--:|--:|--:|--:|--:|")
    for label, args_ in rows:
        sc = ReleaseScenario(**base, **args_)
        two = two_phase_characteristics(sc, policy, reps=args.reps)
        print(f"| {label} | {pct(two.single_dont_ship)} | {pct(two.single_not_proven)} | {pct(two.dont_ship)} | "
              f"{pct(two.not_proven)} | {pct(two.ship)} | {pct(two.second_look)} | "
              f"{'-' if two.one_look is None else pct(two.one_look)} | {two.mean_calls:.2f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
