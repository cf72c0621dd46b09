"""Rows of the input-problem table added by issue 15 (fail closed): inputs the tool used to let through.

Kept beside tests/input_cases.py, which appends them to its CASES; each row failed on the main branch before
issue 15 (a SHIP, a silently ignored option, an overwritten input, or an internal error).
"""

from __future__ import annotations

import io
import json
import zipfile

from input_cases import BASE, EXISTING, GOOD, GOOD_ROWS, ROOT, Case, csv

PROMPTFOO = ROOT / "tests" / "data" / "promptfoo" / "results.json"
LM_SAMPLES = ROOT / "tests" / "fixtures" / "lm_eval" / "samples_math_perturbed_full_2026-01-21T03-44-18.458309.jsonl"
RESULTS_JSON = ('[{"release": "r1", "case_id": "c1", "passed": 1}, {"release": "r1", "case_id": "c2", "passed": 0},'
                ' {"release": "r2", "case_id": "c1", "passed": 1}, {"release": "r2", "case_id": "c2", "passed": 1}]')
FRAUD = csv("r1,c1,1,Fraud", "r1,c2,1,Fraud", "r1,c3,1,Fees", "r2,c1,0,Fraud", "r2,c2,1,Fraud", "r2,c3,1,Fees")

NESTED = "".join(json.dumps({"release": r, "case_id": c, "scores": {"acc": 1}}) + "\n"
                 for r in ("r1", "r2") for c in ("c1", "c2"))


def _deep_inspect_header() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("header.json", "[" * 100_000 + "]" * 100_000)
        archive.writestr("samples/1_epoch_1.json", "{}")
    return buffer.getvalue()


FAIL_CLOSED_CASES: tuple[Case, ...] = (
    # --- critical categories (issue 15, item 2) -----------------------------------------------------------
    Case("critical-case-differs", "--critical naming a category in another case", "`--critical fraud`, category `Fraud`",
         {"results.csv": FRAUD}, ("results.csv", *BASE, "--critical", "fraud"),
         ("critical category 'fraud' matches no category", "closest match 'Fraud'", "'Fees', 'Fraud'"),
         kind="policy"),
    Case("critical-unknown", "--critical naming no category at all", "`--critical Safety`, categories `A`, `B`",
         {"results.csv": GOOD}, ("results.csv", *BASE, "--critical", "Safety"),
         ("critical category 'Safety' matches no category", "categories: 'A', 'B'"), kind="policy"),
    Case("critical-no-category", "--critical without a category column", "`--critical Safety`, no category",
         {"results.csv": csv(*(r.rsplit(",", 1)[0] for r in GOOD_ROWS), header="release,case_id,passed")},
         ("results.csv", *BASE, "--critical", "Safety"), ("'Safety' given", "no category column", "--cases"),
         kind="policy"),
    # --- options (items 5, 6, 8) --------------------------------------------------------------------------
    Case("option-twice", "a one-valued option given twice", "`--passed-col a --passed-col b`",
         {"results.csv": GOOD}, ("results.csv", *BASE, "--passed-col", "a", "--passed-col", "b"),
         ("--passed-col takes one value", "2 times", "'a', 'b'")),
    Case("foreign-option-tidy", "a harness option on a tidy table", "`--scorer match` on a CSV",
         {"results.csv": GOOD}, ("results.csv", *BASE, "--scorer", "match"),
         ("--scorer applies to inspect", "the inputs are tidy")),
    # (--metric itself also names promptfoo's named metrics since issue 16; --filter stays lm-eval's own.)
    Case("foreign-option-promptfoo", "an lm-eval option on a promptfoo file", "`--filter strict-match` on promptfoo results",
         {"results.json": PROMPTFOO.read_bytes}, ("results.json", *BASE, "--filter", "strict-match"),
         ("--filter applies to lm-eval files only", "the inputs are promptfoo")),
    Case("foreign-option-lm-eval", "a promptfoo option on an lm-eval file", "`--release-by prompt` on lm-eval samples",
         {"m1.jsonl": LM_SAMPLES.read_bytes}, ("m1=m1.jsonl", *BASE, "--release-by", "prompt"),
         ("--release-by applies to promptfoo files only", "the inputs are lm-eval")),
    Case("alpha-above-half", "alpha of 0.5 or more", "`--alpha 0.6`",
         {"results.csv": GOOD}, ("results.csv", *BASE, "--alpha", "0.6"),
         ("alpha must be a number between 0 and 0.5", "0.6"), kind="policy"),
    # --- outputs (item 9) ---------------------------------------------------------------------------------
    Case("output-is-input", "-o naming the input file", "`report results.json -o results.json`",
         {"results.json": RESULTS_JSON}, ("results.json", *BASE),
         ("output results.json is the input file results.json",), outputs=(EXISTING, "results.json"),
         kind="output"),
    # --- one line instead of an internal error (item 13) -------------------------------------------------
    Case("header-space-variant", "two headers equal but for spaces", "`passed` and ` passed` (a leading space)",
         {"results.csv": "release,case_id,passed, passed\nr1,c1,1,0\nr2,c1,1,1\n"}, ("results.csv", *BASE),
         ("results.csv: column 'passed' appears twice", "' passed'", "columns 3 and 4"), kind="column"),
    Case("header-duplicate", "a header given twice", "`release,case_id,passed,passed`",
         {"results.csv": "release,case_id,passed,passed\nr1,c1,1,0\nr2,c1,1,1\n"}, ("results.csv", *BASE),
         ("column 'passed' appears twice, as columns 3 and 4", "unique"), kind="column"),
    Case("header-duplicate-case-id", "the case_id header given twice", "`release,case_id,case_id,passed`",
         {"results.csv": "release,case_id,case_id,passed\nr1,c1,c2,1\nr2,c1,c2,1\n"}, ("results.csv", *BASE),
         ("column 'case_id' appears twice, as columns 2 and 3",), kind="column"),
    Case("json-passed-object", "JSON passed values that are objects", '`"passed": {"a": 1}`',
         {"results.json": json.dumps([{"release": r, "case_id": "c1", "passed": {"a": 1}} for r in ("r1", "r2")])},
         ("results.json", *BASE), ("'passed' holds JSON objects or lists", "keys a", "flatten"),
         kind="value"),
    Case("jsonl-nested-passed-col", "--passed-col naming a nested JSON field", '`--passed-col scores`, `"scores": {"acc": 1}`',
         {"results.jsonl": NESTED}, ("results.jsonl", *BASE, "--passed-col", "scores"),
         ("'passed' holds JSON objects or lists", "keys acc"), kind="value"),
    Case("no-plausible-column", "no outcome column and nothing close to one", "header `release,case_id,outcome`",
         {"results.csv": "release,case_id,outcome\nr1,c1,1\nr2,c1,1\n"}, ("results.csv", *BASE),
         ("no outcome column", "columns present: release, case_id, outcome"), kind="column"),
    Case("policy-deep-toml", "policy file nested 5,000 levels deep", "`a = [[[[...]]]]`",
         {"results.csv": GOOD, "policy.toml": "a = " + "[" * 5000 + "]" * 5000 + "\n"},
         ("results.csv", *BASE, "--policy", "policy.toml"), ("policy.toml is nested too deeply",),
         kind="policy"),
    Case("inspect-deep-header", "Inspect header.json nested 100,000 levels deep", "`header.json` of `[[[[...]]]]`",
         {"log.eval": _deep_inspect_header}, ("log.eval", *BASE), ("member header.json is nested too deeply",)),
    Case("huge-score", "scores too large to compute with", "`1e308` and `-1e308` in `score`",
         {"results.csv": csv("r1,c1,1e308", "r1,c2,-1e308", "r2,c1,-1e308", "r2,c2,1e308",
                             header="release,case_id,score")},
         ("results.csv", *BASE), ("'score' values must lie within +-1e+100", "found 4", "rescale"),
         kind="value"),
    Case("huge-latency", "a latency too large to compute with", "`1e308` in `latency_ms`",
         {"results.csv": csv("r1,c1,1,1e308", "r1,c2,1,5", "r2,c1,1,1e308", "r2,c2,1,5",
                             header="release,case_id,passed,latency_ms")},
         ("results.csv", *BASE), ("'latency_ms' values must lie within +-1e+100", "found 2"), kind="value"),
)
