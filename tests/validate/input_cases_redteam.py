"""Rows of the input-problem table added by a red-team round on what is paired: inputs that were compared on
something other than each release's own results, or in a way no line said. On the main branch before them each
of these gave a verdict (a case table's `passed` stood in for every release's scores; a harness file compared
with itself) or a message that did not say what differed.

Kept beside tests/validate/input_cases.py, which appends them to its CASES.
"""

from __future__ import annotations

from input_cases import BASE, Case, csv

# Scores only: r2 falls from 0.9 to 0.1 on every case. A case table's `passed` (1 everywhere) joined onto it
# would win over the scores and show no change.
SCORES = csv(*(f"{r},c{i},{0.9 if r == 'r1' else 0.1}" for r in ("r1", "r2") for i in range(1, 5)),
             header="release,case_id,score")
PASSED_IN_CASES = csv(*(f"c{i},A,1" for i in range(1, 5)), header="case_id,category,passed")
OUTCOMES = csv(*(f"{r},c{i},1" for r in ("r1", "r2") for i in range(1, 5)), header="release,case_id,passed")
COSTS_IN_CASES = csv(*(f"c{i},A,0.5,120" for i in range(1, 5)), header="case_id,category,cost,latency_ms")
ERRORS_IN_CASES = csv(*(f"c{i},A,{'timeout' if i == 1 else ''}" for i in range(1, 5)), header="case_id,category,error")

REDTEAM_CASES: tuple[Case, ...] = (
    Case("cases-outcome-column", "a case table holding an outcome column", "`passed` in `cases.csv`, results of `score`",
         {"results.csv": SCORES, "cases.csv": PASSED_IN_CASES}, ("results.csv", *BASE, "--cases", "cases.csv"),
         ("cases.csv: the case table holds 'passed'", "what each release did, not what a case is"), kind="input"),
    Case("cases-cost-columns", "a case table holding costs or latencies", "`cost`, `latency_ms` in `cases.csv`",
         {"results.csv": OUTCOMES, "cases.csv": COSTS_IN_CASES}, ("results.csv", *BASE, "--cases", "cases.csv"),
         ("cases.csv: the case table holds 'cost', 'latency_ms'",), kind="input"),
    Case("cases-error-column", "a case table holding an error column", "`error` in `cases.csv`",
         {"results.csv": OUTCOMES, "cases.csv": ERRORS_IN_CASES}, ("results.csv", *BASE, "--cases", "cases.csv"),
         ("cases.csv: the case table holds 'error'",), kind="input"),
)
