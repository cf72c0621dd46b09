"""Rows of the input-problem table added by a red-team round on what is paired: inputs that were compared on
something other than each release's own results, or in a way no line said. On the main branch before them each
of these gave a verdict (a case table's `passed` stood in for every release's scores; a harness file compared
with itself) or a message that did not say what differed.

Kept beside tests/validate/input_cases.py, which appends them to its CASES.
"""

from __future__ import annotations

import json
import unicodedata

from input_cases import BASE, ROOT, Case, csv

HARNESS = ROOT / "tests" / "fixtures" / "harness"
INSPECT_LOG = next(iter(sorted((HARNESS / "inspect-0.3.285" / "single").glob("*.eval"))))
LM_FOLDER = HARNESS / "lm-eval-0.4.13" / "model-a"
THIRD_LM = HARNESS / "third" / "lm-eval-0.4.13"
POPULARITY = ROOT / "tests" / "fixtures" / "inspect" / "2025-05-12T20-28-13-04-00_popularity.json"
REDUCED = HARNESS / "third" / "inspect-0.3.285"


def _popularity(model: str, scorer: str) -> str:
    """The popularity log (cancelled after 3 samples, read as finished) of ``model``, scored by ``scorer``."""
    log = json.loads(POPULARITY.read_text())
    log["status"], log["eval"]["model"] = "success", model
    for sample in log["samples"]:
        sample["scores"] = {scorer: sample["scores"]["match"]}
    return json.dumps(log)


def _two_filters(model: str, shots: int | None = None) -> dict[str, bytes]:
    """lm-eval's words_two_filters samples and results of ``model`` (base or cand), the results file saying
    ``shots`` few-shot examples when given (the run asked with 5 examples before each question)."""
    files = {}
    for path in sorted((THIRD_LM / model).iterdir()):
        if path.name.startswith("results_") and shots is not None:
            summary = json.loads(path.read_text())
            summary["n-shot"]["words_two_filters"] = shots
            files[f"{model}/{path.name}"] = json.dumps(summary).encode()
        elif path.name.startswith("results_") or "words_two_filters" in path.name:
            files[f"{model}/{path.name}"] = path.read_bytes()
    return files


PROMPTFOO = HARNESS / "third" / "promptfoo-0.123.1" / "single.json"


def _promptfoo_var_changed() -> bytes:
    """promptfoo's single run relabelled cand, test t1 asking with another variable under the same prompt text."""
    data = json.loads(PROMPTFOO.read_text())
    data["evalId"] += "-cand"
    for result in data["results"]["results"]:
        result["provider"]["label"] = "cand"
    first = data["results"]["results"][0]
    first["vars"]["word"] = first["testCase"]["vars"]["word"] = "banana"
    return json.dumps(data).encode()


# The baseline's outcomes of c1 and c2 missing; the candidate's all there.
BASE_BLANK = csv("r1,c1,", "r1,c2,", "r1,c3,1", "r1,c4,1", *(f"r2,c{i},1" for i in range(1, 5)),
                 header="release,case_id,passed")
# r1 written without runs, r2 with three.
RUNS_ONE_SIDE = csv(*(f"r1,c{i},1," for i in range(1, 5)), *(f"r2,c{i},1,{k}" for i in range(1, 5) for k in (1, 2, 3)),
                    header="release,case_id,passed,run")


# The same ids written in two Unicode forms: composed (NFC) in r1, decomposed (NFD, as macOS names files) in r2.
NFD_IDS = csv(*(f"{r},{unicodedata.normalize('NFC' if r == 'r1' else 'NFD', f'café-{i}')},1"
                for r in ("r1", "r2") for i in range(1, 5)), header="release,case_id,passed")
CASE_IDS = csv(*(f"{r},{'c' if r == 'r1' else 'C'}{i},1" for r in ("r1", "r2") for i in range(1, 5)),
               header="release,case_id,passed")


# A file named r2= whose own release column holds both releases: named, every row would become r2's.
BOTH_INSIDE = csv(*(f"c{i},{'r1' if i % 2 else 'r2'},1" for i in range(1, 9)), header="case_id,release,passed")
ONE_RELEASE = csv(*(f"c{i},1" for i in range(1, 9)), header="case_id,passed")
OTHER_NAME = csv(*(f"c{i},rX,1" for i in range(1, 9)), header="case_id,release,passed")


PASSED_FILE = csv(*(f"c{i},1" for i in range(1, 5)), header="case_id,passed")
SCORE_FILE = csv(*(f"c{i},0.{i}" for i in range(1, 5)), header="case_id,score")


# Every question of r2 reworded under the same ids; with --allow-changed every case is left out.
REWORDED = csv(*(f"{r},c{i},1,{'Question' if r == 'r1' else 'Other question'} {i}" for r in ("r1", "r2")
                 for i in range(1, 5)), header="release,case_id,passed,input")
# r1 errored on c1 and c3, r2 on c2 and c4: every case errored on one side or the other.
CROSSWISE = csv(*(f"{r},c{i},1,{'boom' if (i % 2 == 1) == (r == 'r1') else ''}" for r in ("r1", "r2")
                  for i in range(1, 5)), header="release,case_id,passed,error")


# r1 scored as fractions, r2 as percentages of the same answers: compared, r2 would gain the whole scale.
PERCENT = csv(*(f"{r},c{i},{s if r == 'r1' else s * 100:g}" for r in ("r1", "r2")
                for i, s in enumerate((0.2, 0.45, 0.7, 0.9), 1)), header="release,case_id,score")


ZERO_PADDED = csv(*(f"{r},{i:03d},1" for r in ("r1", "r2") for i in range(1, 5)), header="release,case_id,passed")
UNPADDED_CASES = csv(*(f"{i},A" for i in range(1, 5)), header="case_id,category")


def _one(folder: str) -> str:
    return str(next(iter(sorted((REDUCED / folder).glob("*.eval")))))

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
    Case("harness-log-twice", "one Inspect log named as two releases", "`base=log.eval cand=copy.eval`, a copy",
         {"log.eval": INSPECT_LOG.read_bytes(), "copy.eval": INSPECT_LOG.read_bytes()},
         ("base=log.eval", "cand=copy.eval", "--baseline", "base", "--scorer", "match"),
         ("log.eval and copy.eval are the same file as 'base' and 'cand'", "name each release's own file")),
    Case("lm-eval-path-twice", "one lm-eval samples file named as two releases", "`base=out/s.jsonl cand=out/s.jsonl`",
         {f"out/{p.name}": p.read_bytes() for p in LM_FOLDER.iterdir() if "words_gen" in p.name or "results" in p.name},
         ("base=out/samples_words_gen_2026-12-01T09-00-19.061798.jsonl",
          "cand=out/samples_words_gen_2026-12-01T09-00-19.061798.jsonl", "--baseline", "base"),
         ("are the same file as 'base' and 'cand'",)),
    Case("inspect-other-scorers", "Inspect logs of one task scored by different scorers",
         "`base` scored by `match`, `cand` by `includes`",
         {"a.json": _popularity("openai/base", "match"), "b.json": _popularity("openai/cand", "includes")},
         ("base=a.json", "cand=b.json", "--baseline", "base"),
         ("a.json (base) and b.json (cand) read task popularity with other scorers (match and includes)",
          "--scorer")),
    Case("inspect-other-reducers", "Inspect logs of one task reduced over epochs by different reducers",
         "`base` under `at_least_1`, `cand` under `pass_at_2`",
         {"a.eval": lambda: open(_one("reducer-at_least_1"), "rb").read(),
          "b.eval": lambda: open(_one("reducer-pass_at_2"), "rb").read()},
         ("base=a.eval", "cand=b.eval", "--baseline", "base"),
         ("read task words with other reducers (at_least_1 and pass_at_2)", "--reducer NAME")),
    Case("lm-eval-other-n-shot", "lm-eval runs of one task with different few-shot counts",
         "`n-shot` 0 in base's `results_*.json`, 5 in cand's", {**_two_filters("base"), **_two_filters("cand", 5)},
         ("base=base", "cand=cand", "--baseline", "base"),
         ("read task words_two_filters with other n-shots (0 and 5)", "--num_fewshot")),
    Case("content-changed-same-text", "a harness case whose variables changed under the same prompt text",
         "promptfoo test `t1` asks with `word: banana` in cand, the prompt text shown unchanged",
         {"a.json": PROMPTFOO.read_bytes(), "b.json": _promptfoo_var_changed},
         ("a.json", "b.json", "--baseline", "base"),
         ("'t1': 'Say the word apple' in 'base', 'Say the word apple' in 'cand'",
          "where the text shown is the same, the rest of the case differs"), kind="pairing"),
    Case("missing-fail-baseline-only", "missing outcomes on the baseline only, with --missing fail",
         "`r1,c1,` and `r1,c2,`, `--missing fail`", {"results.csv": BASE_BLANK},
         ("results.csv", *BASE, "--missing", "fail"),
         ("2 row(s) without an outcome counted as failures (2 in 'r1'; --missing fail)",), exit=0),
    Case("runs-in-one-release", "a run column filled for one release only", "r1 without runs, r2 runs 1-3",
         {"results.csv": RUNS_ONE_SIDE}, ("results.csv", *BASE),
         ("4 row(s) have no run although the run column is set (4 in 'r1'; runs in 'r2')", "run 1"), kind="value"),
    Case("ids-nfc-nfd", "case ids that differ only in Unicode form (NFC against NFD)",
         "`café-1` composed in r1, decomposed in r2", {"results.csv": NFD_IDS}, ("results.csv", *BASE),
         ("4 of them differ from an id of the other side only in Unicode form (NFC against NFD)",
          "'caf\\xe9-1' and 'cafe\\u0301-1'"), kind="pairing"),
    Case("ids-letter-case", "case ids that differ only in letter case, with --allow-missing",
         "`c1` in r1, `C1` in r2, `--allow-missing`", {"results.csv": CASE_IDS},
         ("results.csv", *BASE, "--allow-missing"),
         ("share no case_id", "differ from an id of the other side only in letter case, e.g. 'c1' and 'C1'"),
         kind="pairing"),
    Case("named-file-of-two-releases", "`NAME=path` on a file whose release column holds two releases",
         "`r2=b.csv`, `b.csv` holding r1 and r2 rows", {"a.csv": ONE_RELEASE, "b.csv": BOTH_INSIDE},
         ("r1=a.csv", "r2=b.csv", *BASE), ("r2=b.csv: the file's release column holds 2 releases", "drop r2=")),
    Case("named-file-other-release", "`NAME=path` on a file whose release column names another release",
         "`r2=b.csv`, `b.csv` holding release `rX`", {"a.csv": ONE_RELEASE, "b.csv": OTHER_NAME},
         ("r1=a.csv", "r2=b.csv", *BASE), ("b.csv: release 'rX' of its release column read as 'r2'",), exit=0),
    Case("files-of-two-outcome-kinds", "a file of pass/fail outcomes beside a file of scores only",
         "`r1=a.csv` with `passed`, `r2=b.csv` with `score`", {"a.csv": PASSED_FILE, "b.csv": SCORE_FILE},
         ("r1=a.csv", "r2=b.csv", *BASE),
         ("a.csv holds pass/fail outcomes ('r1') and b.csv scores only ('r2')", "one kind of outcome")),
    Case("allow-changed-everything", "every case's content changed, with --allow-changed",
         "r2 asks `Other question N` for every `Question N`, `--allow-changed`", {"results.csv": REWORDED},
         ("results.csv", *BASE, "--allow-changed"),
         ("share cases, but every one is left out (4 whose content changed): nothing to compare",), kind="pairing"),
    Case("errored-crosswise", "every case errored on one release or the other", "r1 errored on c1, c3; r2 on c2, c4",
         {"results.csv": CROSSWISE}, ("results.csv", *BASE),
         ("share cases, but every one is left out (4 errored on either side): nothing to compare",), kind="pairing"),
    Case("scores-in-two-units", "one release's scores as fractions, another's as percentages",
         "r1 `0.45`, r2 `45` for the same answer", {"results.csv": PERCENT}, ("results.csv", *BASE),
         ("the scores of 'r1' all lie within [0, 1] (largest 0.9) and those of 'r2' mostly above 1 (median 57.5)",
          "declare score_range"), kind="value"),
    Case("scores-in-two-units-declared", "scores of two scales with a declared score_range",
         "as above, `score_range = [0, 100]`", {"results.csv": PERCENT, "p.toml": "score_range = [0, 100]\n"},
         ("results.csv", *BASE, "--policy", "p.toml"), (), exit=0),
    Case("difficulty-differs", "a case whose difficulty differs between releases", "`c2` is `easy` in r1, `hard` in r2",
         {"results.csv": csv("r1,c1,1,easy", "r1,c2,1,easy", "r2,c1,1,easy", "r2,c2,0,hard",
                             header="release,case_id,passed,difficulty")}, ("results.csv", *BASE),
         ("different difficulty", "case 'c2'", "'easy' in 'r1'", "'hard' in 'r2'"), kind="pairing"),
    Case("difficulty-in-one-file", "a difficulty given by one release's file only", "r1's file has `difficulty`, r2's not",
         {"r1.csv": csv("c1,1,easy", "c2,1,hard", header="case_id,passed,difficulty"),
          "r2.csv": csv("c1,1", "c2,0", header="case_id,passed")}, ("r1=r1.csv", "r2=r2.csv", *BASE), (), exit=0),
    Case("cases-ids-leading-zeros", "results ids zero-padded, the case table's not", "`001` in results, `1` in cases",
         {"results.csv": ZERO_PADDED, "cases.csv": UNPADDED_CASES}, ("results.csv", *BASE, "--cases", "cases.csv"),
         ("4 result case_id(s) are not in the case table cases.csv",
          "4 of them differ from an id of the case table only in leading zeros, e.g. '001' and '1'")),
    Case("critical-category-twin", "a critical category beside a category differing from it only in case",
         "`Fraud` critical, `fraud` on other cases", {"results.csv": csv("r1,c1,1,Fraud", "r1,c2,1,fraud",
                                                                          "r2,c1,1,Fraud", "r2,c2,0,fraud")},
         ("results.csv", *BASE, "--critical", "Fraud"),
         ("critical category 'Fraud' and the category 'fraud' differ only in case or spaces",
          "name both as critical"), kind="policy"),
    Case("metric-nothing-left", "with several metrics, one metric's outcomes all missing on a release",
         "`safe` blank on every r2 row, `--missing drop`",
         {"results.csv": csv("r1,c1,1,1", "r1,c2,0,1", "r2,c1,1,", "r2,c2,1,", header="release,case_id,correct,safe")},
         ("results.csv", *BASE, "--metric", "correct", "--metric", "safe", "--missing", "drop"),
         ("metric 'safe': release 'r2' has no rows left to compare",)),
    Case("min-change-beyond-range", "a min_change at or beyond the whole range of the scores",
         "scores from 0.2 to 0.9, `--min-change 5`",
         {"results.csv": csv("r1,c1,0.9,A", "r1,c2,0.8,A", "r2,c1,0.2,A", "r2,c2,0.3,A",
                             header="release,case_id,score,category")},
         ("results.csv", *BASE, "--min-change", "5"),
         ("min_change 5 is at least the whole range of the scores (0.2 to 0.9)", "could never block")),
)
