"""Every input problem the tool knows, as data: what the bad input is, and the words its message must hold.

One list serves two readers. tests/validate/test_input_errors.py runs each case through the command line and checks
the exit status, the one-line message, and that no output was written or clobbered; docs/input-errors.md
is the same list as a table, with the message each case really produced. After changing a message,
regenerate the table with ``PYTHONPATH=src python tests/validate/input_cases.py`` (the test says when it is stale).
"""

from __future__ import annotations

import builtins
import io
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from click.testing import CliRunner

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "input-errors.md"
PREFIX = "releasegate: error["  # then the kind (releasegate.errors), "]: " and the message
LINE = re.compile(r"releasegate: error\[([a-z-]+)\]: ")
EXISTING = "existing.md"  # an earlier report, which a failed run must leave as it was
NEW = "new.json"  # a report that a failed run must not create
OLD_TEXT = b"previous report\n"
OLD_MTIME = 1_700_000_000

Content = str | bytes | Callable[[], bytes]


@dataclass(frozen=True)
class Case:
    key: str
    problem: str
    example: str  # Markdown, for the docs table
    files: dict[str, Content]
    args: tuple[str, ...]
    words: tuple[str, ...]  # exit 2: in the error line; exit 0: in a note or warning of the report
    exit: int = 2
    outputs: tuple[str, ...] = (EXISTING, NEW)
    subprocess: bool = False
    env: dict[str, str] = field(default_factory=dict)
    unreadable: str | None = None
    markdown: tuple[str, ...] = ()  # exit 0: texts the Markdown report must contain
    kind: str = "input"  # exit 2: the error's kind, releasegate.errors (a code the line and the action carry)


def csv(*rows: str, header: str = "release,case_id,passed,category") -> str:
    return "\n".join((header, *rows)) + "\n"


GOOD_ROWS = ("r1,c1,1,A", "r1,c2,1,A", "r1,c3,0,B", "r1,c4,1,B",
             "r2,c1,1,A", "r2,c2,0,A", "r2,c3,1,B", "r2,c4,1,B")
GOOD = csv(*GOOD_ROWS)


def _previous_note(policy: dict | None = None, n_cases: int = 4, categories: tuple[str, ...] = ("A", "B"),
                   drop: tuple[str, ...] = ()) -> dict:
    """An earlier look at GOOD as a report writes its note (the parts --previous reads), with ``policy`` keys
    changed (and the keys ``drop`` left out): margin 0.05, the default correction and McNemar, no critical
    category, every other key of the budget at its default."""
    recorded = {"alpha": 0.05, "margin": 0.05, "correction": "discrete-holm", "mcnemar": "exact", "critical": [],
                "critical_rule": "test", "critical_test": "conditional", "critical_weight": 10.0,
                "pass_threshold": None, "guardrails": {"max_error_rate_increase": 0.02}, **(policy or {})}
    return {"baseline": "r1", "parameters": {"alpha": 0.05}, "outcome_kind": "binary", "n_cases": n_cases,
            "policy": {k: v for k, v in recorded.items() if k not in drop},
            "releases": [{"name": "r1", "n_cases": n_cases}, {"name": "r2", "n_cases": n_cases}],
            "candidates": [{"name": "r2", "budget": {"look": 1, "left": 0.01},
                            "categories": [{"category": c} for c in categories]}]}
BASE = ("--baseline", "r1")


def _late_bad_byte() -> bytes:
    # Past pandas' first decoding chunk, where its own offset would be wrong.
    rows = "".join(f"r{r},case-{i:06d},1\n" for r in (1, 2) for i in range(20_000))
    data = ("release,case_id,passed\n" + rows).encode()
    return data[:400_000] + b"\xff" + data[400_000:]


def _million_categories() -> bytes:
    n = 1_000_000
    lines = ["release,case_id,passed,category"]
    for release in ("r1", "r2"):
        lines.extend(f"{release},c{i},1,k{i}" for i in range(n))
    return ("\n".join(lines) + "\n").encode()


def _parquet_of_lists() -> bytes:
    # Parquet's list type reads back as arrays, not the lists JSON gives: refused by name all the same.
    import pyarrow as pa
    import pyarrow.parquet as pq

    sink = io.BytesIO()
    pq.write_table(pa.table({"release": ["r1", "r1", "r2", "r2"], "case_id": ["c1", "c2", "c1", "c2"],
                             "passed": [[1, 0], [1], [0], [1]]}), sink)
    return sink.getvalue()


def _json(value) -> str:
    return json.dumps(value)


RECORDS = [{"release": r, "case_id": c, "passed": p} for r, c, p in
           (("r1", "c1", 1), ("r1", "c2", 0), ("r2", "c1", 1), ("r2", "c2", 1))]

CASES: tuple[Case, ...] = (
    # --- files -------------------------------------------------------------------------------------------
    Case("missing-file", "results file does not exist", "`report nothere.csv`",
         {}, ("nothere.csv", *BASE), ("file not found", "nothere.csv"), subprocess=True, kind="file"),
    Case("directory", "a directory instead of a file", "`report data/`",
         {"data/": ""}, ("data", *BASE), ("data is a directory",), kind="file"),
    Case("empty-file", "empty file (0 bytes)", "`results.csv` of 0 bytes",
         {"results.csv": ""}, ("results.csv", *BASE), ("results.csv", "empty"), kind="file"),
    Case("blank-lines", "file of blank lines only", "`results.csv` holding three newlines",
         {"results.csv": "\n\n\n"}, ("results.csv", *BASE), ("results.csv", "empty"), kind="file"),
    Case("header-only", "header but no rows", "`release,case_id,passed` and nothing else",
         {"results.csv": "release,case_id,passed\n"}, ("results.csv", *BASE), ("header but no rows",),
         kind="file"),
    Case("unreadable", "file that cannot be read (permissions)", "`chmod 000 results.csv`",
         {"results.csv": GOOD}, ("results.csv", *BASE), ("cannot read", "Permission denied"),
         unreadable="results.csv", kind="file"),
    Case("unknown-format", "unknown format", "`results.xlsx`",
         {"results.xlsx": "PK"}, ("results.xlsx", *BASE), ("unknown format '.xlsx'", ".csv", ".parquet"),
         kind="file"),
    Case("no-suffix", "file name without a suffix", "`results`",
         {"results": GOOD}, ("results", *BASE), ("unknown format", "no suffix"), kind="file"),
    Case("parquet-corrupt", "corrupt Parquet file", "`results.parquet` holding text",
         {"results.parquet": "not parquet"}, ("results.parquet", *BASE), ("cannot read as parquet",),
         kind="file"),
    # --- encodings and syntax ----------------------------------------------------------------------------
    Case("bom", "UTF-8 byte-order mark (Excel's \"CSV UTF-8\")", "`EF BB BF` before `release,case_id,...`",
         {"results.csv": b"\xef\xbb\xbf" + GOOD.encode()}, ("results.csv", *BASE), (), exit=0),
    Case("latin-1", "text that is not UTF-8 (Latin-1, Windows-1252)", "`r1,caf\\xe9,0` saved as Latin-1",
         {"results.csv": csv("r1,c1,1", "r1,caf\xe9,0", "r2,c1,1", "r2,caf\xe9,1",
                             header="release,case_id,passed").encode("latin-1")},
         ("results.csv", *BASE), ("not UTF-8", "0xE9", "offset 37", "line 3", "re-save"), subprocess=True,
         kind="file"),
    Case("mixed-encoding-late", "mixed encodings: one bad byte deep in a UTF-8 file",
         "a 0xFF byte at offset 400,000 of a 1 MB file", {"results.csv": _late_bad_byte},
         ("results.csv", *BASE), ("not UTF-8", "0xFF", "offset 400000", "line 23530"), kind="file"),
    Case("utf-16", "UTF-16 file (Excel's \"Unicode text\")", "`FF FE` then UTF-16 text",
         {"results.csv": GOOD.encode("utf-16")}, ("results.csv", *BASE), ("UTF-16", "re-save it as UTF-8"),
         kind="file"),
    Case("truncated-utf8", "file cut inside a multi-byte character", "last byte `\\xc3` of `é`",
         {"results.csv": GOOD.encode() + b"r3,c\xc3"}, ("results.csv", *BASE),
         ("not UTF-8", "ends inside a multi-byte character"), kind="file"),
    Case("malformed-csv", "malformed CSV line (too many fields)", "line 3: `r1,c2,0,A,extra`",
         {"results.csv": csv("r1,c1,1,A", "r1,c2,0,A,extra", "r2,c1,1,A", "r2,c2,1,A")},
         ("results.csv", *BASE), ("malformed CSV", "line 3 has 5 fields", "header has 4"), subprocess=True,
         kind="file"),
    Case("open-quote", "CSV quote never closed", "line 3: `r1,\"c2,0,A`",
         {"results.csv": csv("r1,c1,1,A", 'r1,"c2,0,A', "r2,c1,1,A", "r2,c2,1,A")},
         ("results.csv", *BASE), ("malformed CSV", "starts on line 3", "never closed"), kind="file"),
    Case("json-not-records", "JSON file that is not records (an object of objects)", '`{"r1": {"c1": 1}}`',
         {"results.json": _json({"r1": {"c1": 1}, "r2": {"c1": 0}})}, ("results.json", *BASE),
         ("list of records", "found an object with keys r1, r2"), kind="file"),
    Case("json-list-of-values", "JSON list of plain values", "`[1, 0, 1]`",
         {"results.json": "[1, 0, 1]"}, ("results.json", *BASE), ("list of records", "found a list of numbers"),
         kind="file"),
    Case("json-empty", "JSON list with no records", "`[]`",
         {"results.json": "[]"}, ("results.json", *BASE), ("no records",), kind="file"),
    Case("json-invalid", "invalid JSON", "`[{\"release\": \"r1\",]`",
         {"results.json": '[{"release": "r1",\n]'}, ("results.json", *BASE), ("not valid JSON", "line 2"),
         kind="file"),
    Case("json-deep", "JSON nested 100,000 levels deep", "`[[[[...]]]]`",
         {"results.json": "[" * 100_000 + "]" * 100_000}, ("results.json", *BASE), ("nested too deeply",),
         kind="file"),
    Case("jsonl-bad-line", "JSON-lines file with a broken line", 'line 2: `{"release": "r1",`',
         {"results.jsonl": _json(RECORDS[0]) + '\n{"release": "r1",\n'}, ("results.jsonl", *BASE),
         ("line 2 is not valid JSON",), kind="file"),
    Case("jsonl-not-object", "JSON-lines line that is not an object", "line 2: `[1, 2]`",
         {"results.jsonl": _json(RECORDS[0]) + "\n[1, 2]\n"}, ("results.jsonl", *BASE),
         ("line 2 is a list", "not a record"), kind="file"),
    Case("json-lone-surrogate", "JSON text holding half a UTF-16 pair", 'record 4: `"latency_ms": "\\ud800"`',
         {"results.json": '"\\ud800"'.join(_json([{**r, "latency_ms": 5} for r in RECORDS]).rsplit("5", 1))},
         ("results.json", *BASE), ("record 4: 'latency_ms' holds a lone UTF-16 surrogate (\\ud800)",),
         kind="file"),
    Case("nul-byte", "NUL or control character inside a value", "case id `c\\x002`",
         {"results.csv": csv("r1,c1,1,A", "r1,c\x002,1,A", "r2,c1,1,A", "r2,c\x002,0,A")},
         ("results.csv", *BASE), (), exit=0, markdown=("c\\\\x002",)),
    # --- columns -----------------------------------------------------------------------------------------
    Case("missing-case-column", "missing required column (case_id)", "header `release,caseid,passed`",
         {"results.csv": csv("r1,c1,1", "r2,c1,0", header="release,caseid,passed")}, ("results.csv", *BASE),
         ("missing required column 'case_id'", "columns present: release, caseid, passed",
          "closest match 'caseid'", "--case-col caseid"), kind="column"),
    Case("missing-release-column", "missing required column (release)", "header `model,case_id,passed`",
         {"results.csv": csv("r1,c1,1", "r2,c1,0", header="model,case_id,passed")}, ("results.csv", *BASE),
         ("missing required column 'release'", "columns present: model, case_id, passed", "--release-col"),
         kind="column"),
    Case("no-outcome-column", "no passed or score column", "header `release,case_id,pased`",
         {"results.csv": csv("r1,c1,1", "r2,c1,0", header="release,case_id,pased")}, ("results.csv", *BASE),
         ("no outcome column", "'passed'", "'score'", "closest match 'pased'", "--passed-col pased"),
         kind="column"),
    Case("outcome-column-taken", "the outcome column named for another role, none named the outcome",
         "`--run-col passed`", {"results.csv": GOOD}, ("results.csv", *BASE, "--run-col", "passed"),
         ("column 'passed' is the outcome column", "--run-col passed", "the run axis",
          "no column would be left for the outcome", "--passed-col"), kind="column"),
    Case("renamed-column-absent", "--case-col naming a column that is not there", "`--case-col id`",
         {"results.csv": GOOD}, ("results.csv", *BASE, "--case-col", "id"),
         ("missing required column 'id'", "columns present", "--case-col"), kind="column"),
    Case("category-column-absent", "--category-col naming a column in no file", "`--category-col topic`",
         {"results.csv": GOOD}, ("results.csv", *BASE, "--category-col", "topic"),
         ("column 'topic' (--category-col) is in none of the files", "columns present")),
    # --- keys --------------------------------------------------------------------------------------------
    Case("duplicate-rows", "duplicate (release, case_id) rows", "`r1,c1` twice",
         {"results.csv": csv(*GOOD_ROWS, "r1,c1,0,A")}, ("results.csv", *BASE),
         ("1 duplicate (release, case_id) row(s)", "r1 c1", "--run-col"), kind="value"),
    Case("duplicate-runs", "duplicate (release, case_id, run) rows", "`r1,c1,run 1` twice",
         {"results.csv": csv("r1,c1,1,1", "r1,c1,0,1", "r2,c1,1,1", "r2,c1,1,2",
                             header="release,case_id,passed,run")}, ("results.csv", *BASE),
         ("duplicate (release, case_id, run)", "r1 c1 1"), kind="value"),
    Case("duplicate-rows-two-files", "the same (release, case_id) row in two files", "`r2,c2` in `a.csv` and `b.csv`",
         {"a.csv": csv(*GOOD_ROWS), "b.csv": csv("r2,c5,1,A", "r2,c2,1,A", "r2,c3,0,B")}, ("a.csv", "b.csv", *BASE),
         ("a.csv and b.csv both hold the row of release 'r2', case_id 'c2' (2 such rows)", "NAME=b.csv"),
         kind="value"),
    Case("duplicate-runs-two-files", "the same (release, case_id, run) row in two files",
         "`r1,c1,run 2` in `a.csv` and `b.csv`",
         {"a.csv": csv("r1,c1,1,1", "r1,c1,0,2", "r2,c1,1,1", header="release,case_id,passed,run"),
          "b.csv": csv("r2,c1,1,2", "r1,c1,1,2.0", header="release,case_id,passed,run")}, ("a.csv", "b.csv", *BASE),
         ("a.csv and b.csv both hold the row of release 'r1', case_id 'c1', run 2:",), kind="value"),
    Case("blank-case-id", "a case_id that is blank", "`r1,,1,A` (or only spaces)",
         {"results.csv": csv(*GOOD_ROWS, "r1,  ,1,A")}, ("results.csv", *BASE),
         ("1 row(s) have a blank case_id", "'r1'"), kind="value"),
    Case("blank-release", "a row without a release name", "`,c5,1,A`",
         {"results.csv": csv(*GOOD_ROWS, ",c5,1,A")}, ("results.csv", *BASE), ("1 row(s) have no release name",),
         kind="value"),
    # Identity columns are text: pandas' missing-value words are names there; only an empty cell is missing.
    Case("category-named-na", "a critical category named `NA` (or `N/A`, `None`, `null`, `nan`)",
         "`r2,c2,0,NA` with `--critical NA --critical-rule any`",
         {"results.csv": csv(*(r.replace(",A", ",NA") for r in GOOD_ROWS))},
         ("results.csv", *BASE, "--critical", "NA", "--critical-rule", "any"), (), exit=0,
         markdown=("DON'T SHIP", "| NA (critical)", "broke 1 of 2 passing NA cases")),
    Case("category-na-beside-blank", "a blank category beside one named `N/A`", "`r1,c1,1,N/A` and `r1,c3,0,`",
         {"results.csv": csv(*(r.replace(",A", ",N/A").replace(",B", ",") for r in GOOD_ROWS))},
         ("results.csv", *BASE), (), exit=0, markdown=("| N/A ", "| (none) ")),
    Case("case-id-na", "a case id `NA` or `None`", "`r2,NA,0,A`",
         {"results.csv": csv(*(r.replace(",c2,", ",NA,").replace(",c4,", ",None,") for r in GOOD_ROWS))},
         ("results.csv", *BASE), (), exit=0, markdown=("| NA | A |",)),
    Case("release-null", "a release named `null` or `None`", "`null,c1,1,A` with `--baseline null`",
         {"results.csv": csv(*(r.replace("r1,", "null,", 1).replace("r2,", "None,", 1) for r in GOOD_ROWS))},
         ("results.csv", "--baseline", "null"), (), exit=0, markdown=("Baseline **null**", "#### None vs null")),
    Case("run-partly-missing", "run column with blank cells", "`r1,c1,0,` among numbered runs",
         {"results.csv": csv("r1,c1,1,1", "r1,c1,0,", "r2,c1,1,1", "r2,c1,1,2",
                             header="release,case_id,passed,run")}, ("results.csv", *BASE),
         ("1 row(s) have no run",), kind="value"),
    Case("cluster-partly-missing", "cluster column with blank cells", "`r1,c2,1,` among clusters",
         {"results.csv": csv("r1,c1,1,p1", "r1,c2,1,", "r2,c1,1,p1", "r2,c2,0,",
                             header="release,case_id,passed,cluster")}, ("results.csv", *BASE),
         ("2 row(s) have no cluster",), kind="value"),
    # --- releases ----------------------------------------------------------------------------------------
    Case("empty-release", "an empty release (its file has no rows)", "`r2=r2.csv` with a header only",
         {"r1.csv": csv("c1,1", header="case_id,passed"), "r2.csv": "case_id,passed\n"},
         ("r1=r1.csv", "r2=r2.csv", *BASE), ("r2.csv", "header but no rows"), kind="file"),
    Case("release-emptied", "a release with no rows left (every outcome missing, --missing drop)",
         "every `passed` of r2 blank", {"results.csv": csv("r1,c1,1", "r1,c2,0", "r2,c1,", "r2,c2,",
                                                          header="release,case_id,passed")},
         ("results.csv", *BASE, "--missing", "drop"), ("release 'r2' has no rows left",)),
    Case("release-all-errored", "a release whose every row errored (the error column)",
         "every `error` of r2 set", {"results.csv": csv("r1,c1,1,", "r1,c2,0,", "r2,c1,,timeout", "r2,c2,,HTTP 500",
                                                     header="release,case_id,passed,error")},
         ("results.csv", *BASE), ("release 'r2' has no rows left to compare: every row errored", "'timeout'",
                                "cannot be shown fit to ship", "--missing fail")),
    Case("metric-twice", "a metric given twice", "`--metric safe --metric safe`",
         {"results.csv": csv("r1,c1,1,1", "r1,c2,0,1", "r2,c1,1,0", "r2,c2,1,1", header="release,case_id,correct,safe")},
         ("results.csv", *BASE, "--metric", "correct", "--metric", "safe", "--metric", "safe"),
         ("metric 'safe' is given twice",)),
    Case("metric-no-column", "a metric that matches no column", "`--metric saf`",
         {"results.csv": csv("r1,c1,1,1", "r1,c2,0,1", "r2,c1,1,0", "r2,c2,1,1", header="release,case_id,correct,safe")},
         ("results.csv", *BASE, "--metric", "correct", "--metric", "saf"),
         ("metric 'saf' matches no column", "correct, safe")),
    Case("metric-policy-not-gated", "a policy for a metric not in the data", "`[metrics.brevity]`, metrics correct, safe",
         {"results.csv": csv("r1,c1,1,1", "r1,c2,0,1", "r2,c1,1,0", "r2,c2,1,1", header="release,case_id,correct,safe"), "policy.toml": '[metrics.brevity]\nmargin = 0.02\n'},
         ("results.csv", *BASE, "--policy", "policy.toml", "--metric", "correct", "--metric", "safe"),
         ("[metrics.brevity]: no such metric", "correct, safe")),
    Case("metric-critical-not-boolean", "a metric's `critical` that is not true or false",
         "`[metrics.safe]` `critical = \"yes\"`",
         {"results.csv": csv("r1,c1,1,1", "r1,c2,0,1", "r2,c1,1,0", "r2,c2,1,1", header="release,case_id,correct,safe"),
          "policy.toml": '[metrics.safe]\ncritical = "yes"\n'},
         ("results.csv", *BASE, "--policy", "policy.toml", "--metric", "correct", "--metric", "safe"),
         ("[metrics.safe]: critical must be true or false", "'yes'"), kind="policy"),
    Case("unknown-baseline", "unknown --baseline", "`--baseline r9`",
         {"results.csv": GOOD}, ("results.csv", "--baseline", "r9"), ("unknown baseline 'r9'", "releases: 'r1', 'r2'")),
    Case("no-baseline", "no baseline given", "no `--baseline`, none in the policy",
         {"results.csv": GOOD}, ("results.csv",), ("no baseline given", "--baseline", "'r1', 'r2'")),
    Case("one-release", "fewer than two releases", "only `r1` rows",
         {"results.csv": csv(*GOOD_ROWS[:4])}, ("results.csv", *BASE), ("at least two releases", "found 1: 'r1'")),
    Case("unknown-candidate", "unknown --candidate", "`--candidate r7`",
         {"results.csv": GOOD}, ("results.csv", *BASE, "--candidate", "r7"), ("unknown candidate 'r7'", "'r2'")),
    Case("baseline-as-candidate", "baseline also named as a candidate", "`--baseline r1 --candidate r1`",
         {"results.csv": GOOD}, ("results.csv", *BASE, "--candidate", "r1"), ("cannot also be a candidate",)),
    Case("many-releases-listed", "unknown --baseline among many releases", "30 releases, `--baseline r99`",
         {"results.csv": csv(*(f"r{i},c1,1,A" for i in range(30)))}, ("results.csv", "--baseline", "r99"),
         ("unknown baseline 'r99'", "and 10 more")),
    Case("path-like-release", "release named like a path or with Markdown/HTML characters",
         "releases `../../etc/passwd` and `<b>r2</b>\\|x`",
         {"results.csv": csv(*(row.replace("r1,", "../../etc/passwd,").replace("r2,", '"<b>r2</b>|x",')
                               for row in GOOD_ROWS))},
         ("results.csv", "--baseline", "../../etc/passwd"), (), exit=0,
         markdown=("&lt;b&gt;r2&lt;/b&gt;\\|x", "../../etc/passwd")),
    # --- outcomes ----------------------------------------------------------------------------------------
    Case("not-boolean", "passed values that are not boolean-like", "`maybe`, `2`",
         {"results.csv": csv("r1,c1,1", "r1,c2,maybe", "r2,c1,1", "r2,c2,2", header="release,case_id,passed")},
         ("results.csv", *BASE), ("'passed' must be boolean-like", "'maybe'", "'2'"), kind="value"),
    Case("parquet-list-outcome", "Parquet outcome column of lists", "`passed` of type `list<int64>`",
         {"results.parquet": _parquet_of_lists}, ("results.parquet", *BASE),
         ("'passed' holds JSON objects or lists", "4 row(s)"), kind="value"),
    Case("missing-outcome", "missing (NaN) outcomes", "`r1,c2,,A`",
         {"results.csv": csv(*GOOD_ROWS).replace("r1,c2,1,A", "r1,c2,,A")}, ("results.csv", *BASE),
         ("1 row(s) have no outcome", "'c2'", "--missing fail", "--missing drop"), kind="value"),
    Case("missing-fail", "missing outcomes with --missing fail", "`r1,c2,,A`, `--missing fail`",
         {"results.csv": csv(*GOOD_ROWS).replace("r1,c2,1,A", "r1,c2,,A")},
         ("results.csv", *BASE, "--missing", "fail"), ("counted as failures",), exit=0),
    Case("missing-drop", "missing outcomes with --missing drop", "`c2` blank in both releases, `--missing drop`",
         {"results.csv": csv(*GOOD_ROWS).replace("r1,c2,1,A", "r1,c2,,A").replace("r2,c2,0,A", "r2,c2,,A")},
         ("results.csv", *BASE, "--missing", "drop"), ("dropped",), exit=0),
    Case("score-not-numeric", "score that is not a number", "`r1,c1,high`",
         {"results.csv": csv("r1,c1,high", "r1,c2,0.5", "r2,c1,0.1", "r2,c2,0.2", header="release,case_id,score")},
         ("results.csv", *BASE), ("'score' must be numeric", "'high'"), kind="value"),
    Case("decimal-comma", "numbers with commas (decimal comma)", '`"0,5"` in `score`',
         {"results.csv": csv('r1,c1,"0,5"', "r1,c2,0.5", "r2,c1,0.1", "r2,c2,0.2", header="release,case_id,score")},
         ("results.csv", *BASE), ("'score' must be numeric", "'0,5'", "commas are not read"), kind="value"),
    Case("thousands-comma", "numbers with commas (thousands separator)", '`"1,234"` in `latency_ms`',
         {"results.csv": csv('r1,c1,1,"1,234"', "r1,c2,0,900", "r2,c1,1,800", "r2,c2,1,700",
                             header="release,case_id,passed,latency_ms")},
         ("results.csv", *BASE), ("'latency_ms' must be numeric", "'1,234'", "commas are not read"),
         kind="value"),
    Case("infinite-score", "infinite number", "`inf` (or `1e400`) in `score`",
         {"results.csv": csv("r1,c1,inf", "r1,c2,0.5", "r2,c1,0.1", "r2,c2,0.2", header="release,case_id,score")},
         ("results.csv", *BASE), ("'score' must be finite", "inf"), kind="value"),
    Case("score-out-of-range", "scores outside the declared range", "`score_range = [0, 1]`, scores `1.5`, `-0.2`",
         {"results.csv": csv("r1,c1,0.5", "r1,c2,1.5", "r2,c1,0.1", "r2,c2,-0.2", header="release,case_id,score"),
          "policy.toml": "score_range = [0, 1]\n"},
         ("results.csv", *BASE, "--policy", "policy.toml"), ("2 score(s) outside the declared range [0, 1]", "1.5", "-0.2"),
         kind="value"),
    # --- pairing -----------------------------------------------------------------------------------------
    Case("case-sets-differ", "case sets differ between baseline and candidate", "`c4` only in r1, `c5` only in r2",
         {"results.csv": csv(*GOOD_ROWS[:7], "r2,c5,1,B")}, ("results.csv", *BASE),
         ("case sets differ", "1 case(s) only in 'r1' (e.g. 'c4')", "1 case(s) only in 'r2' (e.g. 'c5')",
          "--allow-missing"), kind="pairing"),
    Case("allow-missing", "case sets differ, with --allow-missing", "as above, `--allow-missing`",
         {"results.csv": csv(*GOOD_ROWS[:7], "r2,c5,1,B")}, ("results.csv", *BASE, "--allow-missing"),
         ("compared on 3 shared cases", "'c4'", "'c5'"), exit=0),
    Case("no-shared-cases", "no case in common, even with --allow-missing", "r1 has `c1`, r2 has `c9`",
         {"results.csv": csv("r1,c1,1,A", "r2,c9,1,A")}, ("results.csv", *BASE, "--allow-missing"),
         ("share no case_id",), kind="pairing"),
    Case("category-differs", "a case whose category differs between releases", "`c2` is `A` in r1, `B` in r2",
         {"results.csv": csv(*GOOD_ROWS).replace("r2,c2,0,A", "r2,c2,0,B")}, ("results.csv", *BASE),
         ("different category", "case 'c2'", "'A' in 'r1'", "'B' in 'r2'"), kind="pairing"),
    Case("cluster-differs", "a case whose cluster differs between releases", "`c2` in `p1` on r1, `p2` on r2",
         {"results.csv": csv("r1,c1,1,p1", "r1,c2,1,p1", "r2,c1,1,p1", "r2,c2,0,p2",
                             header="release,case_id,passed,cluster")}, ("results.csv", *BASE),
         ("different cluster", "case 'c2'", "'p1' in 'r1'", "'p2' in 'r2'"), kind="pairing"),
    Case("million-categories", "a million distinct categories", "1,000,000 cases, each its own category",
         {"results.csv": _million_categories}, ("results.csv", *BASE),
         ("category column has 1000000 distinct values", "at most 10000", "--category-col")),
    # --- case table --------------------------------------------------------------------------------------
    Case("cases-missing", "--cases file does not exist", "`--cases nothere.csv`",
         {"results.csv": GOOD}, ("results.csv", *BASE, "--cases", "nothere.csv"), ("file not found: nothere.csv",),
         kind="file"),
    Case("cases-duplicate", "case table lists a case twice", "`c1` twice in `cases.csv`",
         {"results.csv": csv(*(r.rsplit(",", 1)[0] for r in GOOD_ROWS), header="release,case_id,passed"),
          "cases.csv": "case_id,category\nc1,A\nc1,B\nc2,A\nc3,B\nc4,B\n"},
         ("results.csv", *BASE, "--cases", "cases.csv"), ("cases.csv", "1 case_id(s) twice", "c1")),
    Case("cases-blank-id", "case table with a blank case_id", "`,A` in `cases.csv`",
         {"results.csv": GOOD, "cases.csv": "case_id,difficulty\nc1,easy\n,hard\n"},
         ("results.csv", *BASE, "--cases", "cases.csv"), ("cases.csv", "blank case_id")),
    Case("cases-unknown-ids", "results name cases the case table lacks", "`c3`, `c4` not in `cases.csv`",
         {"results.csv": GOOD, "cases.csv": "case_id,difficulty\nc1,easy\nc2,hard\n"},
         ("results.csv", *BASE, "--cases", "cases.csv"), ("2 result case_id(s) are not in the case table", "c3")),
    Case("cases-disagree", "case table and results disagree on a category", "`c2` is `A` in results, `B` in cases",
         {"results.csv": GOOD, "cases.csv": "case_id,category\nc1,A\nc2,B\nc3,B\nc4,B\n"},
         ("results.csv", *BASE, "--cases", "cases.csv"), ("column 'category' disagrees", "c2")),
    # --- previous note -----------------------------------------------------------------------------------
    Case("previous-damaged-budget", "--previous note whose budget's left is not a level", '`"left": null` in `note.json`',
         {"results.csv": GOOD, "note.json": json.dumps({"baseline": "r1", "parameters": {"alpha": 0.05}, "candidates": [
             {"name": "r2", "budget": {"look": 1, "left": None}}]})},
         ("results.csv", *BASE, "--previous", "note.json"), ("note.json", "r2's budget records left null", "0 to alpha")),
    Case("previous-no-look", "--previous note whose budget records no look", "`budget` without `look` and `left`",
         {"results.csv": GOOD, "note.json": json.dumps({"baseline": "r1", "parameters": {"alpha": 0.05}, "candidates": [
             {"name": "r2", "budget": {"method": "weighted discrete Holm"}}]})},
         ("results.csv", *BASE, "--previous", "note.json"), ("note.json", "r2's budget records no look", "write that")),
    Case("previous-other-policy", "--previous note decided with another margin", '`"margin": 0.1` in `note.json`',
         {"results.csv": GOOD, "note.json": json.dumps(_previous_note(policy={"margin": 0.1}))},
         ("results.csv", *BASE, "--previous", "note.json"),
         ("note.json", "that note was decided with margin 0.1, this comparison with margin 0.05",
          "one policy of the budget")),
    Case("previous-more-cases", "--previous note of more cases than this comparison has", '`"n_cases": 9` in `note.json`',
         {"results.csv": GOOD, "note.json": json.dumps(_previous_note(n_cases=9))},
         ("results.csv", *BASE, "--previous", "note.json"),
         ("note.json", "that note held 9 cases, this comparison 4", "not an earlier look at this suite")),
    Case("previous-other-category", "--previous note of a category this comparison lacks",
         '`"category": "C"` in `note.json`',
         {"results.csv": GOOD, "note.json": json.dumps(_previous_note(categories=["A", "C"]))},
         ("results.csv", *BASE, "--previous", "note.json"),
         ("note.json", "compared r2 in category 'C', which this comparison of it does not have")),
    Case("previous-other-metric", "--previous note of another metric", '`"metric": ["acc"]` in `note.json`',
         {"results.csv": GOOD, "note.json": json.dumps(_previous_note(policy={"metric": ["acc"]}))},
         ("results.csv", *BASE, "--previous", "note.json"),
         ("note.json", "that note gated [acc], this comparison the outcome column: another metric")),
    Case("previous-other-metric-policy", "--previous note decided with another margin for the metric gated",
         '`[metrics.passed] margin = 0.1` in the note, `0.02` in `policy.toml`',
         {"results.csv": GOOD, "policy.toml": "[metrics.passed]\nmargin = 0.02\n",
          "note.json": json.dumps(_previous_note(policy={"metric": ["passed"], "metrics": {"passed": {"margin": 0.1}}}))},
         ("results.csv", *BASE, "--policy", "policy.toml", "--metric", "passed", "--previous", "note.json"),
         ("note.json", "that note was decided with [metrics.passed] margin 0.1, this comparison with "
          "[metrics.passed] margin 0.02", "one policy of the budget")),
    Case("previous-no-budget-key", "--previous note whose policy lacks a key of the budget",
         "no `critical_weight` in the note's `policy`",
         {"results.csv": GOOD, "note.json": json.dumps(_previous_note(drop=("critical_weight",)))},
         ("results.csv", *BASE, "--previous", "note.json"),
         ("note.json", "that note records no critical_weight, so whether it is an earlier look", "unedited")),
    # --- policy ------------------------------------------------------------------------------------------
    Case("policy-missing", "policy file does not exist", "`--policy nothere.toml`",
         {"results.csv": GOOD}, ("results.csv", *BASE, "--policy", "nothere.toml"), ("policy file not found",),
         kind="policy"),
    Case("policy-bad-toml", "policy file that is not valid TOML", "`alpha = `",
         {"results.csv": GOOD, "policy.toml": "alpha = \n"}, ("results.csv", *BASE, "--policy", "policy.toml"),
         ("not valid TOML", "line 1"), subprocess=True, kind="policy"),
    Case("policy-unknown-key", "policy file with an unknown key", "`alfa = 0.1`",
         {"results.csv": GOOD, "policy.toml": "alfa = 0.1\n"}, ("results.csv", *BASE, "--policy", "policy.toml"),
         ("unknown key(s) alfa", "did you mean 'alpha'", "known keys"), kind="policy"),
    Case("policy-retired-key", "policy file with a retired key", "`critical_alpha = 0.1`",
         {"results.csv": GOOD, "policy.toml": "critical_alpha = 0.1\n"},
         ("results.csv", *BASE, "--policy", "policy.toml"), ("critical_alpha is retired", "critical_weight"),
         kind="policy"),
    Case("policy-bad-value", "policy value out of range", "`alpha = 2`",
         {"results.csv": GOOD, "policy.toml": "alpha = 2\n"}, ("results.csv", *BASE, "--policy", "policy.toml"),
         ("alpha must be a number from 0.000001 up to 0.5 (excluded)", "2"), kind="policy"),
    Case("policy-wrong-type", "policy value of the wrong type", "`critical = 5`",
         {"results.csv": GOOD, "policy.toml": "critical = 5\n"}, ("results.csv", *BASE, "--policy", "policy.toml"),
         ("critical must be a list of category names", "got 5"), kind="policy"),
    Case("policy-bad-range", "score_range that is not two numbers", '`score_range = ["a", "b"]`',
         {"results.csv": GOOD, "policy.toml": 'score_range = ["a", "b"]\n'},
         ("results.csv", *BASE, "--policy", "policy.toml"), ("score_range must be two finite numbers",),
         kind="policy"),
    Case("flag-bad-value", "flag value out of range", "`--alpha 1.5`",
         {"results.csv": GOOD}, ("results.csv", *BASE, "--alpha", "1.5"), ("alpha must be a number from 0.000001 up to 0.5 (excluded)",),
         kind="policy"),
    Case("source-date-epoch", "SOURCE_DATE_EPOCH that is not a number", "`SOURCE_DATE_EPOCH=yesterday`",
         {"results.csv": GOOD}, ("results.csv", *BASE), ("SOURCE_DATE_EPOCH must be an integer", "'yesterday'"),
         env={"SOURCE_DATE_EPOCH": "yesterday"}),
    # --- outputs -----------------------------------------------------------------------------------------
    Case("output-missing-dir", "-o into a missing directory", "`-o missing/report.md`",
         {"results.csv": GOOD}, ("results.csv", *BASE), ("output directory does not exist: missing",),
         outputs=(EXISTING, "missing/report.md"), kind="output"),
    Case("output-unknown-suffix", "-o with an unknown suffix", "`-o report.docx`",
         {"results.csv": GOOD}, ("results.csv", *BASE), ("cannot tell the output format of report.docx",),
         outputs=(EXISTING, "report.docx")),
    Case("output-twice", "the same -o given twice", "`-o existing.md -o ./existing.md`",
         {"results.csv": GOOD}, ("results.csv", *BASE), ("given twice",), outputs=(EXISTING, "./existing.md"),
         kind="output"),
    Case("output-is-directory", "-o naming a directory", "`-o out.md` where `out.md/` is a directory",
         {"results.csv": GOOD, "out.md/": ""}, ("results.csv", *BASE), ("output path is a directory",),
         outputs=(EXISTING, "out.md"), kind="output"),
)

# Run as a script, this file is __main__; the added rows import it by name and must find this same module.
sys.modules.setdefault("input_cases", sys.modules[__name__])
from input_cases_fail_closed import FAIL_CLOSED_CASES  # noqa: E402
from input_cases_gold import GOLD_CASES  # noqa: E402
from input_cases_harness import HARNESS_CASES  # noqa: E402
from input_cases_harness44 import HARNESS_44_CASES  # noqa: E402
from input_cases_inspect_export import INSPECT_EXPORT_CASES  # noqa: E402
from input_cases_issue28 import ISSUE_28_CASES  # noqa: E402
from input_cases_pairing import PAIRING_CASES  # noqa: E402
from input_cases_redteam import REDTEAM_CASES  # noqa: E402
from input_cases_round4 import ROUND_4_CASES  # noqa: E402
from input_cases_values import VALUE_CASES  # noqa: E402

CASES += (FAIL_CLOSED_CASES + GOLD_CASES + ISSUE_28_CASES + HARNESS_CASES + HARNESS_44_CASES + ROUND_4_CASES
          + PAIRING_CASES + REDTEAM_CASES + INSPECT_EXPORT_CASES + VALUE_CASES)


@dataclass(frozen=True)
class Outcome:
    exit: int
    stdout: str
    stderr: str
    message: str  # the error line without its prefix, or the report's note for an accepted input
    kind: str = ""  # the kind the error line names; empty for an accepted input


def prepare(case: Case, work: Path) -> None:
    """Write the case's files and an earlier report (``existing.md``) into ``work``."""
    work.mkdir(parents=True, exist_ok=True)
    for name, content in case.files.items():
        if name.endswith("/"):
            (work / name).mkdir()
            continue
        if name.endswith("|"):  # a FIFO (named pipe) that nothing writes to
            os.mkfifo(work / name[:-1])
            continue
        data = content() if callable(content) else content
        (work / name).parent.mkdir(parents=True, exist_ok=True)  # a harness's folder of files
        (work / name).write_bytes(data.encode() if isinstance(data, str) else data)
    (work / EXISTING).write_bytes(OLD_TEXT)
    os.utime(work / EXISTING, (OLD_MTIME, OLD_MTIME))


def _deny_reading(target: Path, patch: pytest.MonkeyPatch) -> None:
    """chmod 000; and, since root reads anything, make open() refuse the file as the kernel would."""
    target.chmod(0)
    if os.geteuid() != 0:
        return
    real_open, denied = io.open, os.path.realpath(target)

    def guarded(file, *args, **kwargs):
        if isinstance(file, (str, os.PathLike)) and os.path.realpath(file) == denied:
            raise PermissionError(13, "Permission denied", os.fspath(file))
        return real_open(file, *args, **kwargs)

    patch.setattr(io, "open", guarded)
    patch.setattr(builtins, "open", guarded)


def run_case(case: Case, work: Path) -> Outcome:
    """Run ``releasegate report`` on the prepared case in ``work`` (in-process, or as a subprocess)."""
    args = ["report", *case.args]
    for output in case.outputs:
        args += ["-o", output]
    if case.subprocess:
        env = {**os.environ, "SOURCE_DATE_EPOCH": "1796000000", **case.env}
        env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")])
        done = subprocess.run([sys.executable, "-m", "releasegate", *args], cwd=work, env=env, check=False,
                              capture_output=True, text=True, timeout=300)
        exit_code, stdout, stderr = done.returncode, done.stdout, done.stderr
    else:
        from releasegate.cli import main

        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("SOURCE_DATE_EPOCH", "1796000000")
            for key, value in case.env.items():
                patch.setenv(key, value)
            if case.unreadable:
                _deny_reading(work / case.unreadable, patch)
            patch.chdir(work)
            result = CliRunner().invoke(main, args, catch_exceptions=False)
        exit_code, stdout, stderr = result.exit_code, result.stdout, result.stderr
    kind = LINE.match(stderr)
    return Outcome(exit_code, stdout, stderr, _message(case, work, exit_code, stderr), kind.group(1) if kind else "")


def _message(case: Case, work: Path, exit_code: int, stderr: str) -> str:
    if exit_code != 0:
        first = stderr.splitlines()[0] if stderr.strip() else ""
        return LINE.sub("", first, count=1)
    if not case.words:
        return "(accepted; no message)"
    report = json.loads((work / NEW).read_text(encoding="utf-8"))
    said = [*report["notes"], *(w for c in report["candidates"] for w in c["warnings"])]
    return next((text for text in said if case.words[0] in text), "(no note found)")


# --- the docs table ----------------------------------------------------------------------------------------

HEADER = "| problem | example | kind | message | exit status |\n|---|---|---|---|---:|\n"
START, END = "<!-- table:start -->", "<!-- table:end -->"


def code_cell(text: str) -> str:
    assert "`" not in text, text
    return "`" + text.replace("|", "\\|") + "`"


def table_row(case: Case, outcome: Outcome) -> str:
    kind = f"`{outcome.kind}`" if outcome.kind else "-"
    return f"| {case.problem} | {case.example} | {kind} | {code_cell(outcome.message)} | {case.exit} |"


def _cells(line: str) -> list[str]:
    cells = re.split(r"(?<!\\)\|", line.strip())[1:-1]
    return [c.strip() for c in cells]


def documented_rows(text: str | None = None) -> dict[str, tuple[str, str, str, str]]:
    """The docs table: problem -> (example, kind, message, exit status), as written."""
    text = DOC.read_text(encoding="utf-8") if text is None else text
    body = text.split(START, 1)[1].split(END, 1)[0]
    rows = {}
    for line in body.strip().splitlines()[2:]:
        problem, example, kind, message, status = _cells(line)
        rows[problem] = (example, kind, message, status)
    return rows


def write_docs(tmp: Path) -> None:
    """Run every case and put the table of the messages they produce into docs/input-errors.md."""
    lines = []
    for case in CASES:
        work = tmp / case.key
        prepare(case, work)
        lines.append(table_row(case, run_case(case, work)))
    text = DOC.read_text(encoding="utf-8")
    head, rest = text.split(START, 1)
    tail = rest.split(END, 1)[1]
    DOC.write_text(f"{head}{START}\n{HEADER}" + "\n".join(lines) + f"\n{END}{tail}", encoding="utf-8")


if __name__ == "__main__":  # pragma: no cover
    import tempfile

    with tempfile.TemporaryDirectory() as scratch:
        write_docs(Path(scratch))
    print(f"wrote {DOC}")
