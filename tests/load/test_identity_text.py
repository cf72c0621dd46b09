"""Identity columns are text (issue 15, item 1): a category, case or release named ``NA``, ``N/A``, ``None``,
``null`` or ``nan`` keeps its name; only a truly empty cell is missing, and it is never merged with them."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import run_cli
from releasegate.load import Source, load_results
from releasegate.load.identity import as_text, may_need_strip
from releasegate.load.tidy import read_tidy

NA_WORDS = ("NA", "N/A", "None", "null", "nan", "NaN", "NULL", "<NA>", "#N/A")


def test_na_words_stay_names_in_every_identity_column(tmp_path):
    rows = ["release,case_id,passed,category,cluster"]
    for k, word in enumerate(NA_WORDS):
        rows.append(f"{word},{word},1,{word},{word}")
        rows.append(f"r{k},c{k},0,,")
    path = tmp_path / "r.csv"
    path.write_text("\n".join(rows) + "\n")
    frame = read_tidy(path)
    named = frame.iloc[::2]
    for column in ("release", "case_id", "category", "cluster"):
        assert named[column].tolist() == list(NA_WORDS), column
    # A truly empty cell is missing, not one of the names above.
    assert frame.iloc[1::2]["category"].isna().all()
    assert frame.iloc[1::2]["cluster"].isna().all()


def test_other_columns_keep_the_usual_missing_words(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text("release,case_id,passed,latency_ms,notes\nr1,NA,1,NA,n/a\nr1,c2,0,12.5,ok\n")
    frame = read_tidy(path)
    assert frame["case_id"].tolist() == ["NA", "c2"]
    assert math.isnan(frame["latency_ms"][0]) and frame["latency_ms"][1] == 12.5
    assert frame["notes"].isna().tolist() == [True, False]


def test_numeric_looking_identity_values_stay_text(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text("release,case_id,passed,category\n1,007,1,10\n2,007,0,NA\n")
    frame = read_tidy(path)
    assert frame["case_id"].tolist() == ["007", "007"]
    assert frame["release"].tolist() == ["1", "2"]
    assert frame["category"].tolist() == ["10", "NA"]


def test_a_renamed_identity_column_is_text_too(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text("release,id,passed,topic\nr1,NA,1,None\nr1,c2,1,\n")
    loaded = load_results([Source(path)], columns={"case_id": "id", "category": "topic"})
    assert loaded.table["case_id"].tolist() == ["NA", "c2"]
    assert loaded.table["category"][0] == "None" and loaded.table["category"].isna()[1]


def test_case_table_keeps_na_names(tmp_path):
    results, cases = tmp_path / "r.csv", tmp_path / "cases.csv"
    results.write_text("release,case_id,passed\nr1,NA,1\nr1,null,1\nr2,NA,0\nr2,null,1\n")
    cases.write_text("case_id,category\nNA,None\nnull,\n")
    loaded = load_results([Source(results)], cases=cases)
    table = loaded.table.set_index(["release", "case_id"])
    assert table.loc[("r1", "NA"), "category"] == "None"
    assert table["category"].isna().sum() == 2  # "null"'s empty category, in both releases


def test_a_case_table_attribute_holding_json_objects_is_kept_as_their_text(tmp_path):
    # A JSON object in one row of an attribute the results lack (not a role): kept as its text, as the results'
    # own metadata is, never a dict that pairing cannot compare.
    results, cases = tmp_path / "r.csv", tmp_path / "cases.jsonl"
    results.write_text("release,case_id,passed\nr1,c1,1\nr1,c2,0\nr2,c1,1\nr2,c2,1\n")
    cases.write_text('{"case_id": "c1", "difficulty": "easy"}\n{"case_id": "c2", "difficulty": {}}\n')
    loaded = load_results([Source(results)], cases=cases)
    assert sorted(loaded.table["difficulty"].unique()) == ["easy", "{}"]
    result = run_cli("check", results, "--cases", cases, "--baseline", "r1", "--no-policy", "--no-step-summary")
    assert result.exit_code in (0, 3) and "error" not in result.output, result.output


@pytest.mark.parametrize("word", ["NA", "null", "None"])
def test_release_and_case_named_like_missing_are_compared(tmp_path, word):
    path = tmp_path / "r.csv"
    path.write_text(f"release,case_id,passed\n{word},{word},1\n{word},c2,1\nr2,{word},0\nr2,c2,1\n")
    out = tmp_path / "r.json"
    result = run_cli("report", path, "--baseline", word, "-o", out)
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text())
    assert report["baseline"] == word
    assert [c["case_id"] for c in report["candidates"][0]["broken_cases"]] == [word]


def test_empty_category_is_not_merged_with_na(tmp_path):
    path = tmp_path / "r.csv"
    rows = ["release,case_id,passed,category", "r1,c1,1,NA", "r1,c2,1,", "r2,c1,0,NA", "r2,c2,1,"]
    path.write_text("\n".join(rows) + "\n")
    out = tmp_path / "r.json"
    result = run_cli("report", path, "--baseline", "r1", "-o", out)
    assert result.exit_code == 0, result.output
    categories = {c["category"]: c for c in json.loads(out.read_text())["candidates"][0]["categories"]}
    assert set(categories) == {"NA", "(none)"}
    assert categories["NA"]["broke"] == 1 and categories["(none)"]["broke"] == 0


def test_example_with_fraud_named_na_does_not_ship(tmp_path, example):
    """The bundled example's r2 breaks 6 Fraud cases: named NA, the category must still block it.

    No policy file: its latency guardrail would block r2 on its own, and this must fail only on the name.
    """
    cases = tmp_path / "eval_cases.csv"
    text = example["eval_cases.csv"].read_text(encoding="utf-8")
    assert text.count(",Fraud,") > 0
    cases.write_text(text.replace(",Fraud,", ",NA,"), encoding="utf-8")
    out = tmp_path / "r.json"
    result = run_cli("check", example["eval_results.csv"], "--cases", cases, "--baseline", "r1-live",
                     "--candidate", "r2-new-prompt", "--critical", "NA", "--no-policy", "-o", out)
    assert result.exit_code == 1, result.output
    candidate = json.loads(out.read_text())["candidates"][0]
    assert candidate["verdict"] == "dont_ship"
    # The critical test blocks first; discrete Holm also finds the category's 6-0 drop significant.
    assert candidate["reasons"][0]["rule"] == "critical_broken"
    na = [c for c in candidate["categories"] if c["category"] == "NA"]
    assert na and na[0]["critical"] and na[0]["broke"] == 6


# --- may_need_strip: the look at the Arrow buffers that lets a clean column skip str.strip -----------------

def _arrow_text(values) -> pd.Series:
    return pd.Series(values, dtype=pd.StringDtype("pyarrow"))


@pytest.mark.parametrize("values", [["C1", "C2"], ["a b", "x"], ["", "C1"], [None, "C1"], ["", None], ["C1"] * 3])
def test_a_column_with_clean_edges_needs_no_strip(values):
    assert not may_need_strip(_arrow_text(values))


@pytest.mark.parametrize("values", [[" C1", "C2"], ["C1", "C2\t"], ["C1\n"], ["C1\u00a0"], ["\u3000C1"],
                                    ["C1\x1f"], ["ü"], [None, "C1 "]])
def test_a_space_a_control_byte_or_a_non_ascii_edge_asks_for_the_strip(values):
    assert may_need_strip(_arrow_text(values))


def test_a_slice_is_judged_on_its_own_values():
    column = _arrow_text([" dirty", "C1", "C2", "C3 "])
    assert not may_need_strip(column.iloc[1:3])
    assert may_need_strip(column.iloc[2:])
    chunked = pd.concat([_arrow_text(["C1", "C2"]), _arrow_text(["C3", " C4"])], ignore_index=True)
    assert may_need_strip(chunked) and not may_need_strip(chunked.iloc[:3])


def test_object_columns_are_always_stripped():
    assert may_need_strip(pd.Series(["C1", "C2"], dtype=object))


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(st.none() | st.text(alphabet=st.sampled_from(["a", "7", " ", "\t", "\n", "\u00a0", "\u2003", "é",
                                                                  "\x1c", "-"]), max_size=5), min_size=1,
                max_size=12))
def test_as_text_is_the_stripped_text_with_or_without_the_shortcut(values):
    column = _arrow_text(values)
    expected = column.str.strip()
    got = as_text(column)
    assert got.isna().tolist() == expected.isna().tolist()
    assert got.dropna().tolist() == expected.dropna().tolist()
