"""The options of ``releasegate plan`` as data (names, click keywords), read by the command line; click only,
so that the command line's start-up stays light."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from releasegate.plan.defaults import DEFAULT_REPLICATIONS, DEFAULT_SEED

# The results, the case table, the columns, the adapters and the policy are read with report's own options
# (cli.input_options); these are plan's own, and PLAN_SKIPS the input options plan does not take (its --seed is
# its simulation's; it judges no named candidate, writes no titled note and simulates no judge).
# --gold (with --gold-width) asks plan's other question: how many gold labels the judge's correction needs.
PLAN_SKIPS = ("results", "seed", "n_resamples", "title", "candidates")
PLAN_OPTIONS: tuple[tuple[tuple[str, ...], dict[str, Any]], ...] = (
    (("--n-cases",), {"type": int, "help": "Without RESULTS: the suite's number of cases."}),
    (("--pass-rate",), {"type": float, "help": "Without RESULTS: the baseline's pass rate (default 0.9)."}),
    (("--critical-size", "critical_sizes"), {"multiple": True,
                                             "help": "Without RESULTS: a critical category NAME=CASES (repeatable)."}),
    (("--categories",), {"type": int, "help": "Without RESULTS: the number of other categories (default 1)."}),
    (("--runs",), {"type": int, "help": "Without RESULTS: runs per case (default 1)."}),
    (("--churn",), {"type": float, "help": "Churn to assume: share of cases that differ between one run of the "
                                           "baseline and one of a harmless candidate (default: measured from the "
                                           "results' candidate, a rerun or runs, else 0.10)."}),
    (("--run-churn",), {"type": float, "help": "Its run-to-run part (two runs of one release differ); default: "
                                               "measured from a rerun or runs, else none (all case-level)."}),
    (("--replications",), {"type": int, "default": DEFAULT_REPLICATIONS, "show_default": True,
                           "help": "Simulated releases per scenario."}),
    (("--seed",), {"type": int, "default": DEFAULT_SEED, "show_default": True, "help": "Random seed."}),
    (("--gold-width",), {"type": float, "help": "With --gold: the width of the corrected difference's interval "
                                                 "to plan the gold labels for (default: the margin, or 0.05)."}),
    (("-o", "--output"), {"type": click.Path(path_type=Path), "multiple": True,
                          "help": "Also write the plan, repeatable; the format comes from the suffix: .json (every "
                                  "figure), .md (its lines as Markdown), .html (a page)."}),
)
