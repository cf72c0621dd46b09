"""Rows of the input-problem table for values that are not what their role holds: a case table's (or results')
category or cluster holding a JSON list or object, two column roles naming one column, and policy values far
outside any meaning (a title with a text-direction character, a seed past 64 bits, guardrails no release is
held to). Kept beside tests/validate/input_cases.py, which appends them to its CASES."""

from __future__ import annotations

import json

from input_cases import BASE, GOOD, Case, csv

PLAIN = csv("r1,c1,1", "r1,c2,0", "r2,c1,1", "r2,c2,1", header="release,case_id,passed")
MODEL_ID_CORRECT = csv("a,c1,1", "a,c2,0", "b,c1,1", "b,c2,1", header="model,id,correct")
_CASES_JSON = json.dumps([{"case_id": "c1", "category": [1, 2]}, {"case_id": "c2", "category": 5}])
_RESULTS_JSONL = "".join(json.dumps({"release": r, "case_id": c, "passed": 1,
                                     "cluster": {"g": 1} if c == "c2" else "g"}) + "\n"
                         for r in ("r1", "r2") for c in ("c1", "c2"))
_POLICY = ("results.csv", *BASE, "--policy", "policy.toml")

VALUE_CASES: tuple[Case, ...] = (
    Case("case-table-category-list", "a case table's category holding a JSON list",
         '`{"case_id": "c1", "category": [1, 2]}` in `cases.json`',
         {"results.csv": PLAIN, "cases.json": _CASES_JSON}, ("results.csv", *BASE, "--cases", "cases.json"),
         ("cases.json: 'category' of case 'c1' holds a JSON list ([1, 2])", "give each row one category")),
    Case("results-cluster-object", "a results file's cluster holding a JSON object",
         '`"cluster": {"g": 1}` in `results.jsonl`', {"results.jsonl": _RESULTS_JSONL},
         ("results.jsonl", *BASE), ("results.jsonl: 'cluster' of case 'c2' holds a JSON object",)),
    Case("column-two-roles-own-name", "a role's own column named for another role too",
         "`--release-col release --case-col release`", {"results.csv": PLAIN},
         ("results.csv", *BASE, "--release-col", "release", "--case-col", "release"),
         ("column 'release' is named for 2 roles, case_id and release",), kind="column"),
    Case("column-two-roles-policy", "two roles of a policy's [columns] naming one column",
         '`[columns] case_id = "id"`, `passed = "id"`',
         {"results.csv": MODEL_ID_CORRECT,
          "policy.toml": '[columns]\nrelease = "model"\ncase_id = "id"\npassed = "id"\n'},
         ("results.csv", "--baseline", "a", "--policy", "policy.toml"),
         ("column 'id' is named for 2 roles, case_id and passed", "give each role its own"), kind="column"),
    Case("policy-title-bidi", "a title holding a text-direction character", '`title = "Q3 \\u202egnp.exe"`',
         {"results.csv": GOOD, "policy.toml": 'title = "Q3 \\u202egnp.exe"\n'}, _POLICY,
         ("title holds the control or text-direction character \\u202e", "read otherwise than it says"),
         kind="policy"),
    Case("policy-seed-too-large", "a seed past 64 bits", "`seed = 18446744073709551616` (2**64)",
         {"results.csv": GOOD, "policy.toml": "seed = 18446744073709551616\n"}, _POLICY,
         ("seed must be a whole number from 0 to 2**64 - 1",), kind="policy"),
    Case("policy-number-too-long", "a policy number too long to read", "`seed = 999...9` (5,000 digits)",
         {"results.csv": GOOD, "policy.toml": "seed = " + "9" * 5000 + "\n"}, _POLICY,
         ("holds a number too long to read", "5000 digits"), kind="policy"),
    Case("policy-error-rate-guardrail-range", "an error-rate guardrail above 1", "`max_error_rate_increase = 1e18`",
         {"results.csv": GOOD, "policy.toml": "[guardrails]\nmax_error_rate_increase = 1e18\n"}, _POLICY,
         ("max_error_rate_increase must be a rise of the error rate above 0 and at most 1",), kind="policy"),
    Case("policy-ratio-guardrail-range", "a ratio guardrail far outside any meaning", "`max_cost_ratio = 1e18`",
         {"results.csv": GOOD, "policy.toml": "[guardrails]\nmax_cost_ratio = 1e18\n"}, _POLICY,
         ("max_cost_ratio must be a ratio from 0.001 to 1,000",), kind="policy"),
)
