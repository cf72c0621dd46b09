"""Every row of docs/input-errors.md, run through the command line (SPEC section 3.2 and issue 7).

Each case (tests/validate/input_cases.py) builds its input in a fresh directory holding an earlier report. A refused
input must exit 2 with exactly one line on stderr that starts ``releasegate: error[<kind>]:`` with the case's kind, names the problem in
the case's words, matches the docs table word for word, shows no traceback, creates no output and leaves
the earlier report (content and modification time) and the directory listing as they were. An accepted
input (exit 0) must write its reports, and say what it did in a note when the case has one.
"""

from __future__ import annotations

import json
import os

import pytest
from input_cases import (
    CASES,
    EXISTING,
    NEW,
    OLD_MTIME,
    OLD_TEXT,
    PREFIX,
    code_cell,
    documented_rows,
    prepare,
    run_case,
)

DOCUMENTED = documented_rows()


def test_docs_table_lists_every_case_once():
    problems = [case.problem for case in CASES]
    assert len(problems) == len(set(problems)), "two cases share a problem text"
    assert set(DOCUMENTED) == set(problems), "regenerate: PYTHONPATH=src python tests/validate/input_cases.py"


def test_the_table_covers_spec_3_2_and_the_issue():
    keys = {case.key for case in CASES}
    spec = {"missing-file", "unreadable", "empty-file", "unknown-format", "missing-case-column", "duplicate-rows",
            "release-emptied", "unknown-baseline", "one-release", "not-boolean", "missing-outcome",
            "missing-fail", "missing-drop", "case-sets-differ", "allow-missing", "category-differs",
            "cluster-differs", "score-out-of-range", "policy-bad-toml", "policy-unknown-key"}
    issue = {"malformed-csv", "bom", "latin-1", "mixed-encoding-late", "json-not-records", "empty-release",
             "blank-case-id", "thousands-comma", "decimal-comma", "million-categories", "path-like-release",
             "output-missing-dir"}
    assert spec | issue <= keys


def _listing(work):
    return sorted(str(p.relative_to(work)) for p in work.rglob("*"))


@pytest.mark.parametrize("case", CASES, ids=[case.key for case in CASES])
def test_input_problem(case, tmp_path):
    work = tmp_path / "work"
    prepare(case, work)
    before = _listing(work)
    outcome = run_case(case, work)

    assert "Traceback" not in outcome.stdout + outcome.stderr
    assert outcome.exit == case.exit, outcome.stderr
    if case.exit == 2:
        lines = outcome.stderr.splitlines()
        assert len(lines) == 1, outcome.stderr
        assert lines[0].startswith(PREFIX)
        assert outcome.kind == case.kind, (outcome.kind, lines[0])
        assert "internal error" not in lines[0]
        for word in case.words:
            assert word in outcome.message, (word, outcome.message)
        assert outcome.stdout == ""
        assert (work / EXISTING).read_bytes() == OLD_TEXT
        assert os.stat(work / EXISTING).st_mtime == OLD_MTIME
        assert not (work / NEW).exists()
        assert _listing(work) == before, "a failed run left a file behind"
    else:
        report = json.loads((work / NEW).read_text(encoding="utf-8"))
        assert report["schema_version"]
        markdown = (work / EXISTING).read_text(encoding="utf-8")
        assert markdown.startswith("<!-- releasegate -->\n## Release note")
        for word in case.words:
            assert word in outcome.message, (word, outcome.message)
        for text in case.markdown:
            assert text in markdown, text
    documented = DOCUMENTED.get(case.problem)
    kind = f"`{outcome.kind}`" if outcome.kind else "-"
    assert documented == (case.example, kind, code_cell(outcome.message), str(case.exit)), (
        "docs/input-errors.md is stale: PYTHONPATH=src python tests/validate/input_cases.py")


def test_debug_shows_the_traceback(tmp_path):
    """--debug is the one way to see a traceback: the message alone is what CI logs show."""
    import subprocess
    import sys

    from input_cases import ROOT

    (tmp_path / "results.csv").write_text("release,case_id,passed\nr1,c1,1\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run([sys.executable, "-m", "releasegate", "report", "results.csv", "--baseline", "r1",
                           "-o", "r.md", "--debug"], cwd=tmp_path, env=env, capture_output=True, text=True,
                          check=False)
    assert done.returncode != 0
    assert "Traceback" in done.stderr and "need at least two releases" in done.stderr
    assert not (tmp_path / "r.md").exists()
