"""Rows of the input-problem table added by issue 44 for the harness adapters (lm-eval tasks of two kinds, Inspect
epochs and metadata), kept beside tests/validate/input_cases.py, which appends them to its CASES. Each reads the
genuine files of tests/fixtures/harness/ (copied into the case's directory; an edit, where there is one, says why).
"""

from __future__ import annotations

import json

from input_cases import ROOT, Case

THIRD = ROOT / "tests" / "fixtures" / "harness" / "third"
LM = THIRD / "lm-eval-0.4.13"
CATEGORY_LOGS = ROOT / "tests" / "fixtures" / "harness" / "issue44" / "inspect-0.3.285" / "metadata-category"


def _lm_folder(model: str, graded: bool) -> dict[str, bytes]:
    """A model's results file and its words_wrong and words_two_filters samples; ``graded``: one words_wrong
    value made 0.25, so that task scores rather than passes or fails."""
    files = {}
    for path in sorted((LM / model).iterdir()):
        if path.name.startswith("results_") or "words_two_filters" in path.name:
            files[f"{model}/{path.name}"] = path.read_bytes()
        elif "words_wrong" in path.name:
            records = [json.loads(line) for line in path.read_text().splitlines()]
            if graded:
                records[0]["wrong"] = 0.25
            files[f"{model}/{path.name}"] = "".join(json.dumps(r) + "\n" for r in records).encode()
    return files


HARNESS_44_CASES: tuple[Case, ...] = (
    Case("lm-eval-two-kinds-of-task", "lm-eval tasks of a score and of pass/fail read together",
         "`words_wrong` graded 0.25 on one document beside `words_two_filters` (`exact_match`)",
         {**_lm_folder("base", True), **_lm_folder("cand", False)},
         ("base=base", "cand=cand", "--baseline", "base"),
         ("words_wrong (wrong) scored (values other than 0 and 1)", "words_two_filters (exact_match) pass/fail",
          "samples_words_wrong_*.jsonl", "--metric words_wrong=METRIC")),
    Case("inspect-category-col-not-in-metadata", "`--category-col` naming no column of an Inspect log",
         "`--category-col topic` on logs whose samples' metadata hold `category` and `subject`",
         {f"logs/{p.name}": p.read_bytes() for p in sorted(CATEGORY_LOGS.glob("*.eval"))},
         ("logs", "--baseline", "mockllm/base", "--category-col", "topic"),
         ("column 'topic' (--category-col) is in none of the files", "the cases' metadata fields: category, subject")),
)
