"""The lines ``releasegate plan`` prints (and ``-o plan.md`` / ``plan.html`` list), pinned byte for byte on
seeded small simulations that reach every branch of their wording: churn assumed, given, split into its
run-to-run and case-level parts, capped, measured from a rerun; the reach line's four endings and its absence
(margin 0); the target reached as the suite is, at a larger suite, and not reached for either reason. The
gold-label plan's lines likewise, on plans built by hand. Regenerate the expected text only on purpose:
``PYTHONPATH=src python tests/plan/test_plan_lines.py``."""

from __future__ import annotations

import sys
from pathlib import Path

from releasegate.plan.gold import GoldPlan, gold_plan_lines
from releasegate.plan.suite import SuiteDesign, design_from_counts, plan_lines, plan_suite
from releasegate.policy import make_policy
from releasegate.stats.ppi import GoldLabelPlan
from releasegate.stats.ppi_strata import StratifiedAllocation

EXPECTED = Path(__file__).resolve().parents[1] / "data" / "plan" / "plan_lines.txt"
RERUN = "measured from the rerun r1-again"


def _suites():
    """(name, design, policy overrides, scales): each a branch of the plan's lines, 20 replications, seed 4."""
    return [
        ("assumed churn, critical, not reached up to 4x", design_from_counts(200, critical=(("Fraud", 30),),
                                                                               categories=3), {}, (2.0, 4.0)),
        ("run-to-run and case-level, reaches the margin", design_from_counts(200, runs=5, churn=0.10,
                                                                              run_churn=0.04), {}, ()),
        ("case-level change capped", design_from_counts(300, pass_rate=0.97, churn=0.06, run_churn=0.05), {}, ()),
        ("rerun, reached as it is", SuiteDesign(6000, 0.9, (("Safety", 400),), 2, churn=0.02, churn_source=RERUN,
                                                rerun=True, run_churn=0.0, run_churn_source=RERUN), {}, ()),
        ("runs would reach the margin, false blocks too many", design_from_counts(600, churn=0.10, run_churn=0.08),
         {"margin": 0.03}, ()),
        ("runs would not reach the margin", design_from_counts(100, churn=0.08, run_churn=0.0), {}, ()),
        ("no margin, reached at 2x", design_from_counts(300, churn=0.03), {"margin": 0.0}, (2.0, 4.0)),
    ]


def _gold_plans() -> list[GoldPlan]:
    def plan(needed, more, reachable):
        return GoldLabelPlan(0.08, 0.9, 1200, 150, needed, more, 0.1234, 0.061, reachable)

    strata = StratifiedAllocation(("changed by the judge", "unchanged by the judge"), (180, 1020), (25, 125),
                                  (0.4, 0.1), (0.41, 0.59), 0.82, True)
    return [GoldPlan("r2", "r1", 150, plan(310, 160, True), strata, 255, "paired"),
            GoldPlan("r3", "r1", 150, plan(None, None, False), None, None, "paired"),
            GoldPlan("r4", "r1", 150, plan(310, 160, True), None, None, "paired"),
            GoldPlan("r5", "r1", 0, None, None, None, "one_release_only")]


def rendered() -> str:
    blocks = []
    for name, design, overrides, scales in _suites():
        plan = plan_suite(design, make_policy({}, baseline="a", **overrides), replications=20, seed=4, scales=scales)
        blocks.append(f"## {name}\n" + "".join(f"{line}\n" for line in plan_lines(plan)))
    blocks.append("## gold-label plans\n" + "".join(f"{line}\n" for line in gold_plan_lines(_gold_plans())))
    return "\n".join(blocks)


def test_the_plan_lines_are_the_pinned_text():
    assert rendered() == EXPECTED.read_text(encoding="utf-8")


if __name__ == "__main__":
    EXPECTED.write_text(rendered(), encoding="utf-8")
    sys.stdout.write(f"wrote {EXPECTED}\n")
