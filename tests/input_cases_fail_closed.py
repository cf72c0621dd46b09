"""Rows of the input-problem table added by issue 15 (fail closed): inputs the tool used to let through.

Kept beside tests/input_cases.py, which appends them to its CASES; each row failed on the main branch before
issue 15 (a SHIP, a silently ignored option, an overwritten input, or an internal error).
"""

from __future__ import annotations

from input_cases import BASE, EXISTING, GOOD, GOOD_ROWS, ROOT, Case, csv

PROMPTFOO = ROOT / "tests" / "data" / "promptfoo" / "results.json"
LM_SAMPLES = ROOT / "tests" / "fixtures" / "lm_eval" / "samples_math_perturbed_full_2026-01-21T03-44-18.458309.jsonl"
RESULTS_JSON = ('[{"release": "r1", "case_id": "c1", "passed": 1}, {"release": "r1", "case_id": "c2", "passed": 0},'
                ' {"release": "r2", "case_id": "c1", "passed": 1}, {"release": "r2", "case_id": "c2", "passed": 1}]')
FRAUD = csv("r1,c1,1,Fraud", "r1,c2,1,Fraud", "r1,c3,1,Fees", "r2,c1,0,Fraud", "r2,c2,1,Fraud", "r2,c3,1,Fees")

FAIL_CLOSED_CASES: tuple[Case, ...] = (
    # --- critical categories (issue 15, item 2) -----------------------------------------------------------
    Case("critical-case-differs", "--critical naming a category in another case", "`--critical fraud`, category `Fraud`",
         {"results.csv": FRAUD}, ("results.csv", *BASE, "--critical", "fraud"),
         ("critical category 'fraud' matches no category", "closest match 'Fraud'", "'Fees', 'Fraud'")),
    Case("critical-unknown", "--critical naming no category at all", "`--critical Safety`, categories `A`, `B`",
         {"results.csv": GOOD}, ("results.csv", *BASE, "--critical", "Safety"),
         ("critical category 'Safety' matches no category", "categories: 'A', 'B'")),
    Case("critical-no-category", "--critical without a category column", "`--critical Safety`, no category",
         {"results.csv": csv(*(r.rsplit(",", 1)[0] for r in GOOD_ROWS), header="release,case_id,passed")},
         ("results.csv", *BASE, "--critical", "Safety"), ("'Safety' given", "no category column", "--cases")),
    # --- options (items 5, 6, 8) --------------------------------------------------------------------------
    Case("option-twice", "a one-valued option given twice", "`--passed-col a --passed-col b`",
         {"results.csv": GOOD}, ("results.csv", *BASE, "--passed-col", "a", "--passed-col", "b"),
         ("--passed-col takes one value", "2 times", "'a', 'b'")),
    Case("foreign-option-tidy", "a harness option on a tidy table", "`--scorer match` on a CSV",
         {"results.csv": GOOD}, ("results.csv", *BASE, "--scorer", "match"),
         ("--scorer applies to inspect files only", "the input is tidy")),
    Case("foreign-option-promptfoo", "an lm-eval option on a promptfoo file", "`--metric acc` on promptfoo results",
         {"results.json": PROMPTFOO.read_bytes}, ("results.json", *BASE, "--metric", "acc"),
         ("--metric applies to lm-eval files only", "the input is promptfoo")),
    Case("foreign-option-lm-eval", "a promptfoo option on an lm-eval file", "`--release-by prompt` on lm-eval samples",
         {"m1.jsonl": LM_SAMPLES.read_bytes}, ("m1=m1.jsonl", *BASE, "--release-by", "prompt"),
         ("--release-by applies to promptfoo files only", "the input is lm-eval")),
    Case("alpha-above-half", "alpha of 0.5 or more", "`--alpha 0.6`",
         {"results.csv": GOOD}, ("results.csv", *BASE, "--alpha", "0.6"),
         ("alpha must be a number between 0 and 0.5", "0.6")),
    # --- outputs (item 9) ---------------------------------------------------------------------------------
    Case("output-is-input", "-o naming the input file", "`report results.json -o results.json`",
         {"results.json": RESULTS_JSON}, ("results.json", *BASE),
         ("output results.json is the input file results.json",), outputs=(EXISTING, "results.json")),
)
