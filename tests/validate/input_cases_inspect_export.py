"""Rows of the input-problem table for an Inspect ``samples_df`` export given beside Inspect logs, or saved without
the columns that mark it, kept beside tests/validate/input_cases.py, which appends them to its CASES. The export
and the logs are the genuine files of tests/fixtures/harness/third/inspect-0.3.285/ (``samples-df/samples.csv``
is ``samples_df`` of the two ``reducer-at_least_1`` logs, whose file names its ``log`` column holds)."""

from __future__ import annotations

import csv
import io

from input_cases import ROOT, Case

INSPECT = ROOT / "tests" / "fixtures" / "harness" / "third" / "inspect-0.3.285"
EXPORT = INSPECT / "samples-df" / "samples.csv"
CAND_LOG = INSPECT / "reducer-at_least_1" / "2026-12-01T22-40-56-00-00_words_bifPTXnhzg9uBRnfTiMCbv.eval"
MODE_LOG = INSPECT / "reducer-mode" / "2026-12-01T22-40-59-00-00_words_58Fz8LXWg4n8MjoVnQa8Xc.eval"


def _without(*dropped: str) -> bytes:
    """The export saved without some of its columns (as a hand-trimmed CSV is)."""
    rows = list(csv.DictReader(io.StringIO(EXPORT.read_text(encoding="utf-8"))))
    out = io.StringIO()
    writer = csv.DictWriter(out, [c for c in rows[0] if c not in dropped], extrasaction="ignore")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue().encode()


INSPECT_EXPORT_CASES: tuple[Case, ...] = (
    Case("inspect-export-beside-its-log", "an Inspect samples_df export beside the log it was exported from",
         "`samples.csv` (`samples_df` of both logs) and the candidate's `.eval` log",
         {"samples.csv": EXPORT.read_bytes(), CAND_LOG.name: CAND_LOG.read_bytes()},
         (CAND_LOG.name, "samples.csv", "--baseline", "mockllm/base"),
         ("samples.csv is an Inspect samples_df export (one row per sample and epoch), exported from "
          f"{CAND_LOG.name}", "read twice", "the export alone")),
    Case("inspect-export-beside-a-log-of-its-release", "an Inspect samples_df export beside a log of a release it holds",
         "`samples.csv` (holding `mockllm/base`) and another `mockllm/base` log",
         {"samples.csv": EXPORT.read_bytes(), MODE_LOG.name: MODE_LOG.read_bytes()},
         (MODE_LOG.name, "samples.csv", "--baseline", "mockllm/base"),
         ("samples.csv is an Inspect samples_df export", f"holding release 'mockllm/base' as {MODE_LOG.name} does",
          "give the logs instead of the export")),
    Case("inspect-export-beside-a-reduced-log", "an Inspect samples_df export beside a log whose epochs are reduced",
         "`samples.csv` and `base=` a log reduced by `mode`",
         {"samples.csv": EXPORT.read_bytes(), MODE_LOG.name: MODE_LOG.read_bytes()},
         (f"base={MODE_LOG.name}", "samples.csv", "--baseline", "base"),
         (f"{MODE_LOG.name} reduces each sample's epochs by mode", "samples.csv is an Inspect samples_df export",
          "keeps every epoch as a run", "measured two ways")),
    Case("inspect-export-without-its-ids", "an Inspect samples_df export saved without sample_id and eval_id",
         "`samples.csv` with those two columns dropped",
         {"samples.csv": _without("sample_id", "eval_id")}, ("samples.csv", "--baseline", "mockllm/base"),
         ("samples.csv looks like an Inspect samples_df export (columns id, epoch, score_match)",
          "without the sample_id and eval_id columns", "--format inspect-samples")),
)
