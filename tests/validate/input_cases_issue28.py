"""Rows of the input-problem table added by issue 28 (fail closed, the next twenty) and issue 29 item 7 (the
column mapping in one message): inputs that SHIPped on nothing, clobbered an input, or gave an internal error or
a misleading line on the main branch before them.

Kept beside tests/validate/input_cases.py, which appends them to its CASES.
"""

from __future__ import annotations

from input_cases import BASE, EXISTING, GOOD, ROOT, Case, csv

LM_EVAL = ROOT / "tests" / "fixtures" / "harness" / "lm-eval-0.4.13"
LM_FILES = {f"lm/{p.relative_to(LM_EVAL)}": p.read_bytes for p in sorted(LM_EVAL.rglob("*")) if p.is_file()}
LM_RESULTS = next(name for name in LM_FILES if name.startswith("lm/model-a/results_"))
SCORES = csv("r1,c1,0.9", "r1,c2,0.7", "r1,c3,0.4", "r2,c1,0.5", "r2,c2,0.3", "r2,c3,0.1",
             header="release,case_id,score")
THREE = csv("r1,c1,1,A", "r1,c2,1,A", "r1,c3,1,B", "r2,c1,1,A", "r2,c2,1,A", "r2,c3,1,B",
            "r3,c1,0,A", "r3,c2,0,A", "r3,c3,1,B")
STRAY_POLICY = 'baseline = "r1"\ncandidates = ["r2"]\nmargin = 0\ncritical = []\n'
LONG = csv(*(f"{r},c{i},{m},{int((i + len(m)) % 3 > 0)}" for r in ("r1", "r2") for i in range(3)
             for m in ("correct", "safe")), header="release,case_id,metric,passed")
TWO_METRICS = csv("r1,c1,1,0.5", "r1,c2,0,0.7", "r2,c1,1,0.4", "r2,c2,1,0.9", header="release,case_id,correct,quality")
MODEL_ID_CORRECT = "model,id,correct\nr1,c1,1\nr1,c2,0\nr2,c1,1\nr2,c2,1\n"
LATENCY = csv(*(f"{r},c{i},{0.2 if r == 'r1' else 0.9}" for r in ("r1", "r2") for i in range(3)),
              header="release,case_id,lat")
MANY = csv(*(f"r{k},c{i},1" for k in range(202) for i in range(2)), header="release,case_id,passed")

ISSUE_28_CASES: tuple[Case, ...] = (
    # --- nothing judged (item 1) and the releases left out (item 3) --------------------------------------
    Case("nothing-judged", "only the baseline and its rerun: nothing to judge",
         "`--baseline r1 --baseline-rerun r2`, releases r1 and r2 only",
         {"results.csv": GOOD}, ("results.csv", *BASE, "--baseline-rerun", "r2"),
         ("nothing to judge", "only its rerun 'r2'", "add a candidate's results")),
    Case("stray-policy-short-list", "a `releasegate.toml` found beside the results naming fewer candidates",
         "`candidates = [\"r2\"]` in a stray `releasegate.toml`; r3 in the data", {"results.csv": THREE,
          "releasegate.toml": STRAY_POLICY}, ("results.csv",), (), exit=0,
         markdown=("Not judged: r3, not among the policy's candidates (r2)",
                   "Policy file: releasegate.toml (found, not named with --policy) · sha256 `")),
    Case("rerun-not-judged", "the baseline rerun beside the candidates", "`--baseline-rerun r3` among r1, r2, r3",
         {"results.csv": THREE}, ("results.csv", *BASE, "--baseline-rerun", "r3"), (), exit=0,
         markdown=("Not judged: r3, the baseline rerun (its churn is measured; it is never judged)",
                   "Policy file: none (flags and defaults)")),
    # --- pass_threshold (item 2) -------------------------------------------------------------------------
    Case("threshold-nan", "`--pass-threshold nan` (or `inf`, `-inf`)", "`--pass-threshold nan` on scores",
         {"results.csv": SCORES}, ("results.csv", *BASE, "--pass-threshold", "nan"),
         ("pass_threshold must be a finite number, got nan", "every case would fail it"), kind="policy"),
    Case("threshold-minus-inf", "`--pass-threshold -inf`: every score would pass", "`--pass-threshold -inf`",
         {"results.csv": SCORES}, ("results.csv", *BASE, "--pass-threshold", "-inf"),
         ("pass_threshold must be a finite number, got -inf", "every case would pass it"), kind="policy"),
    Case("threshold-nan-policy", "`pass_threshold = nan` in the policy", "`pass_threshold = nan`",
         {"results.csv": SCORES, "policy.toml": "pass_threshold = nan\n"},
         ("results.csv", *BASE, "--policy", "policy.toml"), ("policy: pass_threshold must be a finite number",),
         kind="policy"),
    Case("threshold-nan-metric", "`pass_threshold = nan` in `[metrics.NAME]`", "`[metrics.quality]` `pass_threshold = nan`",
         {"results.csv": TWO_METRICS, "policy.toml": "[metrics.quality]\npass_threshold = nan\n"},
         ("results.csv", *BASE, "--policy", "policy.toml", "--metric", "correct", "--metric", "quality"),
         ("[metrics.quality]: pass_threshold must be a finite number", "nan"), kind="policy"),
    Case("threshold-above-scores", "a pass threshold above every score", "`--pass-threshold 50` on 0-1 scores",
         {"results.csv": SCORES}, ("results.csv", *BASE, "--pass-threshold", "50"),
         ("pass_threshold 50 is outside the scores' range [0.1, 0.9]", "every score fails it", "compares nothing"),
         kind="value"),
    Case("threshold-at-lowest", "a pass threshold every score meets", "`--pass-threshold 0` on 0-1 scores",
         {"results.csv": SCORES}, ("results.csv", *BASE, "--pass-threshold", "0"),
         ("pass_threshold 0 is outside the scores' range [0.1, 0.9]", "every score passes it"), kind="value"),
    Case("threshold-outside-declared", "a pass threshold outside the declared score_range",
         "`score_range = [0, 1]`, `pass_threshold = 1.5`",
         {"results.csv": SCORES, "policy.toml": "score_range = [0, 1]\npass_threshold = 1.5\n"},
         ("results.csv", *BASE, "--policy", "policy.toml"),
         ("pass_threshold 1.5 is outside the declared score_range [0, 1]",), kind="value"),
    # --- a directory input's files (item 9) --------------------------------------------------------------
    Case("output-in-directory-input", "-o naming a file inside a directory input",
         "`report lm --metric words_mc=acc -o lm/model-a/results_<date>.json`", LM_FILES,
         ("lm", "--baseline", "model-a", "--metric", "words_mc=acc"),
         ("a file of the input directory lm", "write the report to another name"), outputs=(EXISTING, LM_RESULTS),
         kind="output"),
    # --- the policy's numbers (item 12) ------------------------------------------------------------------
    Case("policy-confidence", "confidence too close to 1", "`confidence = 0.9999999999`",
         {"results.csv": GOOD, "policy.toml": "confidence = 0.9999999999\n"},
         ("results.csv", *BASE, "--policy", "policy.toml"), ("confidence must be a number from 0.5 to 0.999",),
         kind="policy"),
    Case("policy-power", "power at or below even odds", "`power = 1e-7`",
         {"results.csv": GOOD, "policy.toml": "power = 1e-7\n"}, ("results.csv", *BASE, "--policy", "policy.toml"),
         ("power must be a number above 0.5 and below 1", "1e-07"), kind="policy"),
    Case("seed-negative", "a negative seed", "`--seed -5`",
         {"results.csv": GOOD}, ("results.csv", *BASE, "--seed", "-5"),
         ("seed must be a whole number from 0", "no negative seed"),
         kind="policy"),
    Case("resamples-huge", "more resamples than a note needs", "`--resamples 100000000`",
         {"results.csv": GOOD}, ("results.csv", *BASE, "--resamples", "100000000"),
         ("n_resamples must be an integer from 100 to 1,000,000",), kind="policy"),
    Case("guardrail-nan", "a guardrail of nan (it would never fire)", "`[guardrails]` `max_cost_ratio = nan`",
         {"results.csv": GOOD, "policy.toml": "[guardrails]\nmax_cost_ratio = nan\n"},
         ("results.csv", *BASE, "--policy", "policy.toml"), ("guardrail max_cost_ratio must be a positive finite",),
         kind="policy"),
    Case("score-range-nan", "a score_range bound that is nan", "`score_range = [nan, 1]`",
         {"results.csv": SCORES, "policy.toml": "score_range = [nan, 1]\n"},
         ("results.csv", *BASE, "--policy", "policy.toml"), ("score_range must be two finite numbers",),
         kind="policy"),
    Case("policy-bom", "UTF-8 byte-order mark in the policy file", "`EF BB BF` before `alpha = 0.05`",
         {"results.csv": GOOD, "policy.toml": b"\xef\xbb\xbfalpha = 0.05\n"},
         ("results.csv", *BASE, "--policy", "policy.toml"), (), exit=0),
    # --- sizes (item 14) ---------------------------------------------------------------------------------
    Case("too-many-candidates", "more candidates than one note holds", "202 releases, no `--candidate`",
         {"results.csv": MANY}, ("results.csv", "--baseline", "r0"),
         ("201 candidates to judge against 'r0'", "(200)", "--candidate NAME")),
    # --- a score's direction (item 7) ------------------------------------------------------------------
    Case("metric-lower-unsaid", "a score whose name says lower is better, gated with no direction",
         "`--metric lat`, latency 0.2 -> 0.9", {"results.csv": LATENCY}, ("results.csv", *BASE, "--metric", "lat"),
         ("score 'lat' reads as lower-is-better ('lat')", "[metrics.lat] direction = \"lower\"")),
    Case("score-col-lower-unsaid", "the outcome column read as a score whose name says lower is better",
         "`--score-col lat`", {"results.csv": LATENCY}, ("results.csv", *BASE, "--score-col", "lat"),
         ("score 'lat' reads as lower-is-better", "--metric lat and [metrics.lat] direction")),
    Case("score-direction-assumed", "a score no input or policy gives a direction", "`release,case_id,score`",
         {"results.csv": SCORES}, ("results.csv", *BASE), ("score: higher is better (assumed",), exit=0,
         markdown=("score: higher is better (assumed; nothing in the input or the policy says which way is better)",)),
    # --- messages (item 18) ------------------------------------------------------------------------------
    Case("long-layout-no-metric", "a long layout (a `metric` column) without `--metric`",
         "`release,case_id,metric,passed`, two metrics", {"results.csv": LONG}, ("results.csv", *BASE),
         ("the rows are a long layout", "(release, case_id) and metric", "correct, safe", "--metric NAME")),
    # --- the column mapping in one message (issue 29 item 7) ---------------------------------------------
    Case("columns-all-missing", "release, case and outcome columns all named otherwise", "header `model,id,correct`",
         {"results.csv": MODEL_ID_CORRECT}, ("results.csv", *BASE),
         ("3 problems with the columns", "'release' (name it with --release-col)",
          "'case_id' (name it with --case-col)", "--passed-col", "columns present: model, id, correct"),
          kind="column"),
    Case("columns-after-rename", "the column problems left after one rename", "`--release-col model` on `model,id,correct`",
         {"results.csv": MODEL_ID_CORRECT}, ("results.csv", *BASE, "--release-col", "model"),
         ("2 problems with the columns", "--case-col", "--passed-col", "columns present: model, id, correct"),
         kind="column"),
    Case("column-two-roles", "one column named for two roles", "`--release-col id --case-col id`",
         {"results.csv": MODEL_ID_CORRECT}, ("results.csv", *BASE, "--release-col", "id", "--case-col", "id",
                                             "--passed-col", "correct"),
         ("column 'id' is named for 2 roles, case_id and release (--case-col and --release-col",), kind="column"),
)

