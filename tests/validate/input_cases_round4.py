"""Rows of the input-problem table added by the fourth fail-closed round: inputs that exhausted memory, waited
forever, were misnamed, or ended in "internal error" on the main branch before it.

Kept beside tests/validate/input_cases.py, which appends them to its CASES.
"""

from __future__ import annotations

from input_cases import BASE, GOOD, Case, csv

OVER_A_MIB = b"# a comment\n" * (1 + (1 << 20) // 12)
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
    # --- scores at any scale --------------------------------------------------------------------------------
    Case("scores-lost-digits", "scores that differ only in their last digits",
         "scores of 1e12 + 0.1 to 1e12 + 0.9", {"results.csv": OFFSET_SCORES}, ("results.csv", *BASE),
         ("agree in their first nine digits", "subtract a constant"), kind="value"),
)
