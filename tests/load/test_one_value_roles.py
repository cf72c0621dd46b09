"""A role's values and names are one each: a category or cluster holding a JSON list or object is refused naming
its case and column (a number is read as its text, as CSV gives it), from a case table, a results file or a
notebook's DataFrame; two roles naming one column are refused saying so, whichever path the table takes."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from conftest import run_cli
from releasegate.errors import InputError

ROWS = "release,case_id,passed\n" + "".join(f"{r},c{i},{int(i != 2 or r == 'r1')}\n" for r in ("r1", "r2")
                                             for i in (1, 2, 3))


def test_a_case_tables_list_or_object_category_is_refused_and_a_number_read_as_its_text(tmp_path):
    (tmp_path / "results.csv").write_text(ROWS)
    cases = [{"case_id": "c1", "category": 5}, {"case_id": "c2", "category": "b"}, {"case_id": "c3", "category": 5}]
    (tmp_path / "cases.json").write_text(json.dumps(cases))
    out = tmp_path / "note.json"
    result = run_cli("report", tmp_path / "results.csv", "--cases", tmp_path / "cases.json", "--baseline", "r1",
                     "-o", out)
    assert result.exit_code == 0, result.output
    assert sorted(c["category"] for c in json.loads(out.read_text())["candidates"][0]["categories"]) == ["5", "b"]
    for value, kind in (([1, 2], "list ([1, 2])"), ({"a": 1}, 'object ({"a": 1})')):
        cases[2]["category"] = value
        (tmp_path / "cases.json").write_text(json.dumps(cases))
        result = run_cli("check", tmp_path / "results.csv", "--cases", tmp_path / "cases.json", "--baseline", "r1")
        assert result.exit_code == 2
        assert f"cases.json: 'category' of case 'c3' holds a JSON {kind}, not one value (1 row(s) do)" in result.output
    # Under the user's own name for the role, and with the case under its own.
    (tmp_path / "ids.csv").write_text(ROWS.replace("case_id", "id"))
    (tmp_path / "ids.json").write_text(json.dumps([{"id": "c1", "topic": "a"}, {"id": "c2", "topic": ["x"]},
                                                   {"id": "c3", "topic": "a"}]))
    result = run_cli("check", tmp_path / "ids.csv", "--cases", tmp_path / "ids.json", "--baseline", "r1",
                     "--case-col", "id", "--category-col", "topic")
    assert result.exit_code == 2 and "'topic' of case 'c2' holds a JSON list" in result.output


def test_a_notebook_frames_list_category_is_refused():
    import releasegate

    frame = pd.DataFrame({"release": ["r1", "r1", "r2", "r2"], "case_id": ["a", "b", "a", "b"],
                          "passed": [1, 0, 1, 1], "category": ["x", ["y"], "x", ["y"]]})
    with pytest.raises(InputError, match=r"<DataFrame>: 'category' of case 'b' holds a JSON list"):
        releasegate.compare(frame, baseline="r1")


@pytest.mark.parametrize("flags, words", [
    (("--release-col", "release", "--case-col", "release"),
     "column 'release' is named for 2 roles, case_id and release"),
    (("--passed-col", "passed", "--score-col", "passed"), "column 'passed' is named for 2 roles, passed and score"),
    (("--case-col", "passed", "--passed-col", "passed"), "column 'passed' is named for 2 roles, case_id and passed"),
])
def test_two_roles_naming_one_column_are_refused_saying_so(tmp_path, flags, words):
    """A role named by its own name counts: read as the other role, this one would be missing (a misleading
    "missing required column"), or the pass/fail column read as scores."""
    (tmp_path / "results.csv").write_text(ROWS)
    result = run_cli("check", tmp_path / "results.csv", "--baseline", "r1", *flags)
    assert result.exit_code == 2 and words in result.output and "missing required" not in result.output


def test_two_roles_naming_one_column_of_a_frame_or_a_case_table_are_refused_saying_so(tmp_path):
    import releasegate

    frame = pd.read_csv(pd.io.common.StringIO(ROWS)).rename(columns={"case_id": "id"})
    with pytest.raises(InputError, match="column 'id' is named for 2 roles, case_id and passed"):
        releasegate.compare(frame, baseline="r1", columns={"case_id": "id", "passed": "id"})
    cases = pd.DataFrame({"id": ["c1", "c2", "c3"], "topic": ["a", "a", "b"]})
    with pytest.raises(InputError, match="column 'topic' is named for 2 roles, category and cluster"):
        releasegate.compare(frame, baseline="r1", cases=cases,
                            columns={"case_id": "id", "category": "topic", "cluster": "topic"})
