"""The notebook API: releasegate.compare(...) runs the CLI's pipeline on DataFrames, paths and policies."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pandas as pd
import pytest

import releasegate
from conftest import run_cli
from releasegate.errors import InputError
from releasegate.policy import Policy


def _cli_outputs(tmp_path: Path, example, *extra: str) -> tuple[str, dict]:
    md, js = tmp_path / "cli.md", tmp_path / "cli.json"
    args = [example["eval_results.csv"], "--cases", example["eval_cases.csv"], "--policy", example["releasegate.toml"]]
    result = run_cli("report", *args, *extra, "-o", md, "-o", js)
    assert result.exit_code == 0, result.output
    return md.read_text(encoding="utf-8"), json.loads(js.read_text(encoding="utf-8"))


def _without_command(text: str) -> str:
    # The provenance records how the report was asked for: a command line for the CLI, the call for the API.
    return "\n".join(line for line in text.splitlines() if not line.startswith("Command: "))


def _verdicts(comparison) -> dict[str, tuple[bool, list[str]]]:
    return {v.candidate: (v.ship, [r.rule for r in v.reasons]) for v in comparison.verdicts}


def test_path_in_matches_the_cli(tmp_path, example):
    md, cli_json = _cli_outputs(tmp_path, example)
    result = releasegate.compare(str(example["eval_results.csv"]), cases=example["eval_cases.csv"],
                                 policy=example["releasegate.toml"])
    assert not result.ship
    assert _without_command(result.to_markdown()) == _without_command(md)
    api_json = json.loads(result.to_json())
    assert api_json["command_line"].startswith("releasegate.compare(")
    for data in (api_json, cli_json):
        data.pop("command_line")
    assert api_json == cli_json


def test_dataframe_in_gives_the_same_analysis(example):
    from_path = releasegate.compare(example["eval_results.csv"], cases=example["eval_cases.csv"],
                                    policy=example["releasegate.toml"])
    frame = pd.read_csv(example["eval_results.csv"])
    from_frame = releasegate.compare(frame, cases=example["eval_cases.csv"], policy=example["releasegate.toml"])
    assert from_frame.analysis == from_path.analysis
    assert _verdicts(from_frame) == _verdicts(from_path)
    record = from_frame.report.provenance.inputs[0]
    assert record.path == "<DataFrame>" and record.rows == len(frame) and record.format == "dataframe"
    assert record.sha256 == hashlib.sha256(frame.to_csv(index=False).encode("utf-8")).hexdigest()


def test_cases_as_a_dataframe_give_the_same_note_as_the_file(example):
    """compare(..., cases=DataFrame): the same analysis and verdicts as the case table's file, the frame recorded
    by its content's hash; integer case ids match the results' text ones, as a file's do."""
    from_file = releasegate.compare(example["eval_results.csv"], cases=example["eval_cases.csv"],
                                    policy=example["releasegate.toml"])
    cases = pd.read_csv(example["eval_cases.csv"])
    from_frame = releasegate.compare(example["eval_results.csv"], cases=cases, policy=example["releasegate.toml"])
    assert from_frame.analysis == from_file.analysis and _verdicts(from_frame) == _verdicts(from_file)
    record = from_frame.report.provenance.inputs[-1]
    assert (record.path, record.rows, record.format) == ("<DataFrame of cases>", 400, "cases")
    assert record.sha256 == hashlib.sha256(cases.to_csv(index=False).encode("utf-8")).hexdigest()
    results, numbered = pd.read_csv(example["eval_results.csv"]), cases.copy()
    results["case_id"] = results["case_id"].str[2:].astype(int)
    numbered["case_id"] = numbered["case_id"].str[2:].astype(int)
    both = releasegate.compare(results, cases=numbered, policy=example["releasegate.toml"])
    assert _verdicts(both) == _verdicts(from_file)


def test_one_input_per_release_as_frames_or_named_paths(tmp_path, example):
    whole = pd.read_csv(example["eval_results.csv"])
    cases = pd.read_csv(example["eval_cases.csv"])
    merged = whole.merge(cases, on="case_id")
    frames = {name: part.drop(columns="release") for name, part in merged.groupby("release", sort=False)}
    by_frames = releasegate.compare(frames, baseline="r1-live")
    paths = []
    for name, part in frames.items():
        path = tmp_path / f"{name}.csv"
        part.to_csv(path, index=False)
        paths.append(f"{name}={path}")
    by_paths = releasegate.compare(paths, baseline="r1-live")
    # Compared as JSON: NaN fields (no prices, so no cost) never compare equal as floats.
    as_json = [json.loads(x.to_json()) for x in (by_frames, by_paths)]
    assert as_json[0]["candidates"] == as_json[1]["candidates"]
    assert as_json[0]["releases"] == as_json[1]["releases"]
    assert [r.release for r in by_paths.report.provenance.inputs] == list(frames)
    # Without a policy nothing is critical; under the default discrete Holm r2's Fraud category (6 broke, none
    # fixed) is a significant category regression on its own (Holm would let r2 ship).
    assert _verdicts(by_frames)["r2-new-prompt"] == (False, ["category_regression"])
    assert by_frames.analysis.candidates[0].overall.fixed == 12
    assert by_frames.analysis.candidates[0].overall.broke == 6


def test_policy_as_dict_toml_or_policy_object(example):
    results, cases = example["eval_results.csv"], example["eval_cases.csv"]
    from_toml = releasegate.compare(results, cases=cases, policy=example["releasegate.toml"])
    as_dict = {"baseline": "r1-live", "critical": ["Fraud", "Safety"], "title": "bank-assistant",
               "correction": "discrete-holm", "guardrails": {"max_latency_p95_ratio": 1.25}}
    from_dict = releasegate.compare(results, cases=cases, policy=as_dict)
    from_object = releasegate.compare(results, cases=cases,
                                      policy=Policy(baseline="r1-live", critical=("Fraud", "Safety"), correction="discrete-holm",
                                                    guardrails={"max_latency_p95_ratio": 1.25}))
    assert _verdicts(from_toml) == _verdicts(from_dict) == _verdicts(from_object)
    assert _verdicts(from_toml)["r2-new-prompt"] == (False, ["critical_broken", "category_regression", "guardrail"])
    # Keyword overrides win over the policy, as flags do (under Holm the Fraud category alone does not block).
    relaxed = releasegate.compare(results, cases=cases, policy=example["releasegate.toml"], critical=("Safety",),
                                  candidates="r2-new-prompt", guardrails={"max_latency_p95_ratio": 1.5},
                                  correction="holm")
    assert _verdicts(relaxed) == {"r2-new-prompt": (True, [])}
    no_margin = releasegate.compare(results, cases=cases, policy=as_dict, margin=0)
    check = next(c for c in no_margin.verdict("r3-small-model").checks if c.rule == "not_non_inferior")
    from releasegate.decide.rules import detail

    assert not check.fired and not check.applies and "margin = 0" in detail(check, no_margin.analysis)


def test_bad_input_raises_input_error(tmp_path, example):
    with pytest.raises(InputError, match="unknown policy key"):
        releasegate.compare(example["eval_results.csv"], policy={"baseline": "r1-live", "alpah": 0.1})
    with pytest.raises(InputError, match="unknown baseline"):
        releasegate.compare(example["eval_results.csv"], baseline="r0")
    with pytest.raises(InputError, match="results must be"):
        releasegate.compare(42, baseline="r1-live")
    with pytest.raises(InputError, match="cases must be a file path or a DataFrame, got int"):
        releasegate.compare(example["eval_results.csv"], baseline="r1-live", cases=7)
    with pytest.raises(InputError, match="result case_id\\(s\\) are not in the case table <DataFrame of cases>"):
        releasegate.compare(example["eval_results.csv"], baseline="r1-live", cases=pd.DataFrame({"case_id": [1]}))
    with pytest.raises(InputError, match="the case table has no rows"):
        releasegate.compare(example["eval_results.csv"], baseline="r1-live", cases=pd.DataFrame({"case_id": []}))
    with pytest.raises(InputError, match="file not found"):
        releasegate.compare(tmp_path / "missing.csv", baseline="r1-live")
    frame = pd.read_csv(example["eval_results.csv"]).rename(columns={"case_id": "id"})
    with pytest.raises(InputError, match="missing required column 'case_id'"):
        releasegate.compare(frame, baseline="r1-live")
    assert releasegate.compare(frame, baseline="r1-live", columns={"case_id": "id"}).analysis.n_cases == 400


def test_repr_html_shows_verdicts_and_escapes_data():
    hostile = "<script>alert(1)</script>"
    rows = []
    for k in range(40):
        base = 1
        cand = 0 if k < 10 else 1
        rows.append({"release": "live", "case_id": f"c{k}<b>", "passed": base, "category": hostile, "input": hostile})
        rows.append({"release": "new & <i>shiny</i>", "case_id": f"c{k}<b>", "passed": cand, "category": hostile,
                     "input": hostile})
    result = releasegate.compare(pd.DataFrame(rows), baseline="live", critical=[hostile])
    html = result._repr_html_()
    assert "DON&#39;T SHIP" in html and "new &amp; &lt;i&gt;shiny&lt;/i&gt;" in html
    assert "<script>" not in html and "<i>shiny" not in html and "c0<b>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert html.count('class="dont"') == 1
    assert "critical_broken" in html


def test_to_frame_and_save(tmp_path, example):
    result = releasegate.compare(example["eval_results.csv"], cases=example["eval_cases.csv"],
                                 policy=example["releasegate.toml"])
    table = result.to_frame()
    n_categories = len(result.analysis.candidates[0].categories)
    assert len(table) == 2 * (1 + n_categories)
    fraud = table[(table["candidate"] == "r2-new-prompt") & (table["comparison"] == "Fraud")].iloc[0]
    assert (fraud["broke"], fraud["fixed"], bool(fraud["critical"])) == (6, 0, True)
    written = result.save(tmp_path / "n.md", tmp_path / "n.json")
    assert written[0].read_text(encoding="utf-8") == result.to_markdown()
    assert json.loads(written[1].read_text(encoding="utf-8"))["schema_version"]
    assert "r2-new-prompt" in repr(result) and "DON'T SHIP" in repr(result)
    with pytest.raises(KeyError):
        result.verdict("r9")


def test_to_html_and_to_pdf(tmp_path):
    pytest.importorskip("releasegate.render.html")
    pytest.importorskip("releasegate.render.pdf")
    # A small frame: the notebook's way to HTML and PDF, typeset in a second rather than the example's seven pages.
    frame = pd.DataFrame([{"release": r, "case_id": f"c{i}", "category": "AB"[i % 2],
                           "passed": int(i % 4 != 0 or r == "live")} for r in ("live", "r2-new-prompt")
                          for i in range(40)])
    result = releasegate.compare(frame, baseline="live")
    html = result.to_html()
    assert "r2-new-prompt" in html and "<html" in html.lower()
    path = result.to_pdf(tmp_path / "note.pdf")
    assert path.read_bytes().startswith(b"%PDF")
