"""Rows of the input-problem table added by the fourth fail-closed round: inputs that exhausted memory, waited
forever, were misnamed, or ended in "internal error" on the main branch before it.

Kept beside tests/validate/input_cases.py, which appends them to its CASES.
"""

from __future__ import annotations

from input_cases import BASE, GOOD, Case, csv

OVER_A_MIB = b"# a comment\n" * (1 + (1 << 20) // 12)
LONG_NAME = "x" * 200_000
JSON_ID_1E300 = "".join(f'{{"release": "{r}", "case_id": {c}, "passed": {p}}}\n'
                        for r, c, p in (("r1", "1e300", 1), ("r1", "2", 0), ("r2", "1e300", 1), ("r2", "2", 1)))
# Scores of 0.1 to 0.9 written in units where they sit on top of 1e12: only the last few digits differ.
OFFSET_SCORES = csv(*(f"{r},c{i},{1e12 + (i + (r == 'r2')) / 10!r}" for r in ("r1", "r2") for i in range(1, 9)),
                    header="release,case_id,score")

ROUND_4_CASES: tuple[Case, ...] = (
    # --- files are regular files, read within a cap --------------------------------------------------------
    Case("cases-device", "a device named as the case table", "`--cases /dev/zero`",
         {"results.csv": GOOD}, ("results.csv", *BASE, "--cases", "/dev/zero"),
         ("case file /dev/zero", "a character device, not a regular file"), kind="file"),
    Case("cases-fifo", "a FIFO named as the case table", "`--cases cases.csv`, a named pipe",
         {"results.csv": GOOD, "cases.csv|": ""}, ("results.csv", *BASE, "--cases", "cases.csv"),
         ("case file cases.csv", "a FIFO (named pipe)"), kind="file"),
    Case("results-fifo", "a FIFO named as a results file", "`report results.csv`, a named pipe",
         {"results.csv|": ""}, ("results.csv", *BASE), ("results file results.csv", "a FIFO (named pipe)"),
         kind="file"),
    Case("gold-device", "a device named as the gold labels", "`--gold /dev/null`",
         {"results.csv": GOOD}, ("results.csv", *BASE, "--gold", "/dev/null"),
         ("gold file /dev/null", "a character device"), kind="file"),
    Case("policy-fifo", "a FIFO named as the policy", "`--policy p.toml`, a named pipe",
         {"results.csv": GOOD, "p.toml|": ""}, ("results.csv", *BASE, "--policy", "p.toml"),
         ("policy file p.toml", "a FIFO (named pipe)"), kind="policy"),
    Case("policy-over-cap", "a policy file over its cap", "`--policy p.toml` of 1 MiB of comments",
         {"results.csv": GOOD, "p.toml": OVER_A_MIB}, ("results.csv", *BASE, "--policy", "p.toml"),
         ("policy file p.toml is 1,048,584 bytes", "over the cap of 1 MiB"), kind="policy"),
    # --- internal errors that are one line now -------------------------------------------------------------
    Case("column-name-200k", "a column name of 200,000 characters", "a CSV header `release,case_id,passed,xxx...`",
         {"results.csv": csv(*(f"{row},v" for row in GOOD.splitlines()[1:]),
                             header=f"release,case_id,passed,category,{LONG_NAME}")}, ("results.csv", *BASE),
         ("column 5's name is 200,000 characters long", "at most 1,000"), kind="column"),
    Case("alpha-tiny-flag", "--alpha below one in a million", "`--alpha 1e-17`",
         {"results.csv": GOOD}, ("results.csv", *BASE, "--alpha", "1e-17"), ("alpha must be a number from 0.000001 up to 0.5 (excluded)",),
         kind="policy"),
    Case("alpha-tiny-policy", "a policy alpha of 1e-300", "`alpha = 1e-300`",
         {"results.csv": GOOD, "p.toml": "alpha = 1e-300\n"}, ("results.csv", *BASE, "--policy", "p.toml"),
         ("alpha must be a number from 0.000001 up to 0.5 (excluded)", "got 1e-300"), kind="policy"),
    Case("case-id-1e300", "a case_id of 1e300", "JSON lines with `\"case_id\": 1e300`",
         {"results.jsonl": JSON_ID_1E300}, ("results.jsonl", *BASE),
         ("'case_id' holds 2 number(s) too large to be an exact id", "write the ids as text"), kind="value"),
    # --- policy values checked by one table of types and ranges ----------------------------------------------
    Case("margin-false", "a boolean where a number belongs", "`margin = false`",
         {"results.csv": GOOD, "p.toml": "margin = false\n"}, ("results.csv", *BASE, "--policy", "p.toml"),
         ("margin must be a number from 0 up to 1 (excluded), got False", "a boolean is never a number"),
         kind="policy"),
    Case("metric-margin-false", "a boolean where a number belongs, per metric", "`[metrics.passed]` `margin = false`",
         {"results.csv": GOOD, "p.toml": "[metrics.passed]\nmargin = false\n"},
         ("results.csv", *BASE, "--metric", "passed", "--policy", "p.toml"),
         ("policy [metrics.passed]: margin must be a number from 0 up to 1 (excluded), got False",
          "a boolean is never a number"), kind="policy"),
    Case("margin-below-spread", "a margin too small for any suite", "`--margin 1e-300` on pass/fail outcomes",
         {"results.csv": GOOD}, ("results.csv", *BASE, "--margin", "1e-300"),
         ("margin 1e-300 is below a billionth of the outcomes' range", "set margin = 0"), kind="policy"),
    Case("flag-wrong-type", "a flag's value of the wrong type", "`--alpha true`",
         {"results.csv": GOOD}, ("results.csv", *BASE, "--alpha", "true"),
         ("Invalid value for '--alpha': 'true' is not a valid float",), kind="input"),
    # --- scores at any scale --------------------------------------------------------------------------------
    Case("scores-lost-digits", "scores that differ only in their last digits",
         "scores of 1e12 + 0.1 to 1e12 + 0.9", {"results.csv": OFFSET_SCORES}, ("results.csv", *BASE),
         ("agree in their first nine digits", "subtract a constant"), kind="value"),
)
