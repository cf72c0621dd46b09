"""A case's content compared whichever reader read it: an Inspect log's sample of two plain texts against a tidy
file's ``input`` and ``target`` columns (the same content, the same fingerprint), and content the two cannot say
alike (Inspect chat messages, promptfoo's vars) paired by id only, never called changed."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from conftest import run_cli
from releasegate.load import Source, load_results
from releasegate.validate.content import compare_content, content_of

LOG = next((Path(__file__).parents[1] / "fixtures" / "harness" / "issue44" / "inspect-0.3.285" /
            "changed-replaced").glob("*05-35-16*.eval"))


def _csv(tmp_path: Path, change: str | None = None) -> Path:
    table = load_results([Source(LOG, "r1")]).table[["case_id", "run", "passed", "input", "target"]]
    if change:
        table.loc[table["case_id"] == change, "input"] = "Say the word q3."
    path = tmp_path / "r2.csv"
    table.to_csv(path, index=False)
    return path


def test_the_same_content_from_a_log_and_a_csv_is_paired_by_content(tmp_path):
    out = tmp_path / "r.json"
    result = run_cli("report", f"r1={LOG}", f"r2={_csv(tmp_path)}", "--baseline", "r1", "-o", out)
    assert result.exit_code in (0, 1, 3), result.output
    assert "by id only" not in result.output
    assert "by id only" not in out.read_text()


def test_a_changed_input_in_the_csv_is_refused_or_named(tmp_path):
    path = _csv(tmp_path, change="s03")
    refused = run_cli("check", f"r1={LOG}", f"r2={path}", "--baseline", "r1")
    assert refused.exit_code == 2
    lines = [line for line in refused.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "'s03'" in lines[0] and "Say the word q3." in lines[0], refused.output
    allowed = run_cli("check", f"r1={LOG}", f"r2={path}", "--baseline", "r1", "--allow-changed")
    assert allowed.exit_code in (0, 1, 3) and "1 of 18 cases left out: content changed" in allowed.output


def test_kinds_a_tidy_file_cannot_say_are_not_compared_with_it():
    table = pd.DataFrame({"release": ["a", "b", "c", "d"], "case_id": ["x"] * 4,
                          "input": ["raw prompt", "Q", "Q", "other"], "target": [None, "A", "A", "A"],
                          "content_hash": ["h-promptfoo", "h-chat", None, None],
                          "content_kind": ["promptfoo", "inspect", None, None]})
    content = content_of(table)
    same, comparable = compare_content(table, content, np.array([0, 1, 2, 0]), np.array([2, 2, 3, 1]))
    # promptfoo and inspect chat vs tidy: not comparable; tidy vs tidy compared (and differ); two kinds: not compared
    assert comparable.tolist() == [False, False, True, False]
    assert same.tolist()[2] is False


def test_a_promptfoo_row_without_vars_keeps_its_raw_prompt_out_of_the_pairing():
    table = pd.DataFrame({"release": ["a", "b"], "case_id": ["x", "x"], "input": ["prompt one", "prompt two"],
                          "content_hash": [None, None], "content_kind": ["promptfoo", "promptfoo"]})
    assert content_of(table) is None


def test_a_samples_df_export_is_not_compared_with_a_tidy_files_input():
    """The export writes the input as Inspect renders the messages ("user:\\nSay the word w1.\\n")."""
    from releasegate.load.adapters.inspect_frame import read_samples_frame

    export = read_samples_frame(Path(__file__).parents[1] / "fixtures" / "harness" / "third" / "inspect-0.3.285" /
                                "samples-df" / "samples.csv")
    row = export.iloc[[0]].assign(release="a")
    tidy = pd.DataFrame({"release": ["b"], "case_id": [row["case_id"].iloc[0]], "input": ["Say the word w1."],
                         "target": [row["target"].iloc[0]]})
    table = pd.concat([row, tidy], ignore_index=True)
    same, comparable = compare_content(table, content_of(table), np.array([0]), np.array([1]))
    assert comparable.tolist() == [False]
