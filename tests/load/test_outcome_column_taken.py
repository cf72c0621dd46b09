"""A column named ``passed`` (or ``score``) is the outcome when no outcome column is named; naming it for another
role (``--run-col passed``) leaves none. The refusal says so in one line, never "no outcome column" (there is one);
mappings that leave an outcome column (``--category-col cluster``, a ``score`` column beside) are read."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from conftest import run_cli
from releasegate.errors import ColumnError
from releasegate.load.frame import load_frame

ROWS = ["release,case_id,passed,cluster,score",
        "r1,c1,1,a,0.9", "r1,c2,0,b,0.2", "r1,c3,1,a,0.8", "r1,c4,1,b,0.7",
        "r2,c1,1,a,0.9", "r2,c2,1,b,0.8", "r2,c3,1,a,0.8", "r2,c4,0,b,0.1"]


def _file(tmp_path, drop_score: bool = True):
    path = tmp_path / "results.csv"
    rows = [r.rsplit(",", 1)[0] for r in ROWS] if drop_score else ROWS
    path.write_text("\n".join(rows) + "\n")
    return path


@pytest.mark.parametrize("flag, word", [("--run-col", "the run axis"), ("--category-col", "the category"),
                                        ("--cluster-col", "the cluster"), ("--case-col", "the case id")])
def test_the_outcome_column_named_for_another_role_is_refused_naming_what_happened(tmp_path, flag, word):
    out = tmp_path / "note.json"
    result = run_cli("report", _file(tmp_path), "--baseline", "r1", "--no-policy", flag, "passed", "-o", out)
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.startswith("releasegate: error")]
    assert len(lines) == 1 and "no outcome column" not in lines[0], result.output
    assert f"column 'passed' is the outcome column, but {flag} passed" in lines[0] and word in lines[0]
    assert not out.exists()


def test_the_same_from_a_notebook_frame():
    frame = pd.DataFrame([r.split(",") for r in ROWS[1:]], columns=ROWS[0].split(",")).drop(columns="score")
    with pytest.raises(ColumnError, match="'passed' is the outcome column, but --run-col passed"):
        load_frame(frame, columns={"run": "passed"})


def test_a_role_naming_another_canonical_column_is_read(tmp_path):
    out = tmp_path / "note.json"
    result = run_cli("report", _file(tmp_path), "--baseline", "r1", "--no-policy", "--category-col", "cluster",
                     "-o", out)
    assert result.exit_code == 0, result.output
    categories = {c["category"] for c in json.loads(out.read_text())["candidates"][0]["categories"]}
    assert categories == {"a", "b"}


def test_an_outcome_left_free_or_named_is_read(tmp_path):
    # A file whose "passed" column holds each case's topic and whose outcome is its score: the topic as the
    # category, the score left as the outcome, is a mapping that reads.
    path, out = tmp_path / "results.csv", tmp_path / "note.json"
    path.write_text("release,case_id,passed,score\n" + "".join(
        f"{r},c{k},{'xy'[k % 2]},{0.5 + 0.1 * ((k + (r == 'r2')) % 3)}\n" for r in ("r1", "r2") for k in range(8)))
    result = run_cli("report", path, "--baseline", "r1", "--no-policy", "--category-col", "passed", "-o", out)
    assert result.exit_code == 0, result.output
    note = json.loads(out.read_text())["candidates"][0]
    assert {c["category"] for c in note["categories"]} == {"x", "y"} and note["overall"]["method"] == "paired t"
    # The outcome named: no outcome column is implied, so the passed column is free to be another role's.
    result = run_cli("report", path, "--baseline", "r1", "--no-policy", "--score-col", "score",
                     "--category-col", "passed", "-o", out)
    assert result.exit_code == 0, result.output
