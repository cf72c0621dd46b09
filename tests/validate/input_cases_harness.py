"""Rows of the input-problem table added by issue 31 (harness files, third pass) and the load parts of issue 28.

Kept beside tests/validate/input_cases.py, which appends them to its CASES; each failed on main before (a silent
wrong reading, an internal error, or a message that named the wrong thing). The harness rows read the genuine
files of tests/fixtures/harness/third/ (copied into the case's directory, so inputs stay byte-identical).
"""

from __future__ import annotations

import json

from input_cases import BASE, ROOT, Case

THIRD = ROOT / "tests" / "fixtures" / "harness" / "third"


def _file(path) -> bytes:
    return path.read_bytes()


def _one(folder, pattern: str):
    (path,) = sorted(folder.glob(pattern))
    return path


LM = THIRD / "lm-eval-0.4.13"
PPL = {"base.jsonl": _file(_one(LM / "base", "samples_words_ppl_*.jsonl")),
       "cand.jsonl": _file(_one(LM / "cand", "samples_words_ppl_*.jsonl"))}
ODD = {"base.jsonl": _file(_one(LM / "base", "samples_words_odd_acc_*.jsonl")),
       "cand.jsonl": _file(_one(LM / "cand", "samples_words_odd_acc_*.jsonl"))}
PROMPTFOO = THIRD / "promptfoo-0.123.1"
EVALS = THIRD / "evals-3.0.1"
ROWS = [{"release": r, "case_id": c, "passed": 1} for r in ("r1", "r2") for c in ("c1", "c2")]


def _records(edit) -> str:
    rows = [dict(r) for r in ROWS]
    edit(rows)
    return json.dumps(rows)


def _success_string() -> bytes:
    data = json.loads((PROMPTFOO / "single.json").read_text())
    data["results"]["results"][0]["success"] = "maybe"
    return json.dumps(data).encode()


HARNESS_CASES: tuple[Case, ...] = (
    # --- harness files (issue 31) -------------------------------------------------------------------------
    Case("lm-eval-corpus-metric", "lm-eval corpus-level metric (perplexity, bleu, ...) chosen",
         "`--metric perplexity` on a loglikelihood task", PPL,
         ("base=base.jsonl", "cand=cand.jsonl", "--baseline", "base", "--metric", "perplexity"),
         ("corpus-level (aggregation perplexity)", "per-document metrics: acc (--metric acc)")),
    Case("lm-eval-odd-accuracy", "lm-eval accuracy that is not 0 or 1", "`acc` 0.5 and 2 on two documents", ODD,
         ("base=base.jsonl", "cand=cand.jsonl", "--baseline", "base"),
         ("accuracy (0 or 1 per document)", "doc_id 1: 0.5, doc_id 2: 2")),
    Case("promptfoo-csv-export", "promptfoo's CSV export", "`promptfoo eval -o results.csv`",
         {"results.csv": _file(PROMPTFOO / "both.csv")}, ("results.csv", "--baseline", "base"),
         ("promptfoo's CSV export", "-o results.json"), kind="column"),
    Case("promptfoo-success-text", "promptfoo `success` that is not a boolean", '`"success": "maybe"`',
         {"results.json": _success_string}, ("results.json", "--baseline", "base"),
         ("'success' is \"maybe\", not true or false",)),
    Case("oaieval-as-tidy", "OpenAI evals record read as a tidy table", "`--format tidy` on `oaieval` records",
         {"r1.jsonl": _file(EVALS / "base.jsonl"), "r2.jsonl": _file(EVALS / "cand.jsonl")},
         ("r1=r1.jsonl", "r2=r2.jsonl", *BASE, "--format", "tidy", "--case-col", "sample_id",
          "--passed-col", "data.correct"), ("4 row(s) have a blank case_id (2 in 'r1', 2 in 'r2')",),
          kind="value"),
    # --- tidy JSON (issue 28) -----------------------------------------------------------------------------
    Case("json-duplicate-key", "a key given twice in one JSON record", '`{"passed": 1, "passed": 0}`',
         {"results.jsonl": '{"release": "r1", "case_id": "c1", "passed": 1, "passed": 0}\n'
                           '{"release": "r2", "case_id": "c1", "passed": 1}\n'},
         ("results.jsonl", *BASE), ("line 1: key 'passed' appears twice in one record",), kind="file"),
    Case("json-dotted-ambiguous", "a dotted key beside the nested field of the same name",
         '`"scores.correct": 1` and `"scores": {"correct": 0}`',
         {"results.jsonl": "".join(json.dumps({"release": r, "case_id": c, "scores.correct": 1,
                                               "scores": {"correct": 0}}) + "\n"
                                   for r in ("r1", "r2") for c in ("c1", "c2"))},
         ("results.jsonl", *BASE, "--passed-col", "scores.correct"),
         ("'scores.correct' is both a key of its own and the field 'correct' inside 'scores'",)),
    Case("json-huge-integer", "an integer beyond any float in JSON", "`latency_ms: 10**400`",
         {"results.json": _records(lambda rows: rows[0].update(latency_ms=10 ** 400))}, ("results.json", *BASE),
         ("a number of 401 digits", "beyond any float"), kind="file"),
    Case("json-dotted-object", "a dotted column flag naming an object", "`--category-col meta.t`, `t` an object",
         {"results.jsonl": "".join(json.dumps({**r, "meta": {"t": {"x": 1}}}) + "\n" for r in ROWS)},
         ("results.jsonl", *BASE, "--category-col", "meta.t"), ("'meta.t' holds JSON objects (fields: x)",)),
    Case("error-false", "an error column of false and 0", '`"error": false`, `"error": 0`',
         {"results.json": _records(lambda rows: (rows[0].update(error=False), rows[1].update(error=0)))},
         ("results.json", *BASE), (), exit=0),
    Case("error-is-a-reason", "an error column holding the grader's reason of every failure",
         '`"passed": 0, "error": "Expected ..."` on each failing row only',
         {"results.json": _records(lambda rows: rows[3].update(passed=0, error="Expected output to contain 'x'"))},
         ("results.json", *BASE), ("a text on every failing row (1) and on no other", "grader's reasons"), exit=0),
)
