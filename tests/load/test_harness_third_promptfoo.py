"""Genuine promptfoo 0.123.1 and 0.118.0 outputs of a scripted local provider
(tests/fixtures/harness/third/promptfoo-<version>/, scripts/fixtures/make_promptfoo_third.sh): a single run beside
a --repeat run, the CSV export, provider errors beside assertion failures (issue 31 items 7 and 11, issue 28
item 4, issue 34 item 4); and several Inspect scorers' provenance (issue 31 item 6).

Expected figures are promptfoo's own: results.stats (successes, failures, errors) of each file.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import run_cli
from releasegate.errors import InputError
from releasegate.load import Source, load_results

HARNESS = Path(__file__).parents[1] / "fixtures" / "harness"
VERSIONS = sorted(p.name for p in (HARNESS / "third").glob("promptfoo-*"))


def _stats(path: Path) -> dict:
    return json.loads(path.read_text())["results"]["stats"]


@pytest.mark.parametrize("version", VERSIONS)
def test_single_run_compares_with_a_repeat_run(tmp_path, version):
    folder = HARNESS / "third" / version
    single, repeat = _stats(folder / "single.json"), _stats(folder / "repeat3.json")
    out = tmp_path / "r.json"
    result = run_cli("report", folder / "single.json", folder / "repeat3.json", "--baseline", "base", "-o", out)
    assert result.exit_code in (0, 1, 3), result.output
    report = json.loads(out.read_text())
    overall = report["candidates"][0]["overall"]
    assert overall["baseline_rate"] == pytest.approx(single["successes"] / (single["successes"] + single["failures"]))
    assert overall["candidate_rate"] == pytest.approx(repeat["successes"] / (repeat["successes"] + repeat["failures"]))
    assert (overall["n"], overall["fixed"], overall["broke"]) == (10, 2, 1)  # pear, kiwi fixed; lime broken
    table = load_results([Source(folder / "single.json"), Source(folder / "repeat3.json")]).table
    assert set(table.loc[table["release"] == "base", "run"]) == {1}  # one run is run 1
    assert set(table.loc[table["release"] == "cand", "run"]) == {1, 2, 3}


@pytest.mark.parametrize("version", VERSIONS)
def test_csv_export_is_refused_with_what_to_pass(version):
    with pytest.raises(InputError) as info:
        load_results([Source(HARNESS / "third" / version / "both.csv")])
    assert "promptfoo's CSV export" in str(info.value) and "-o results.json" in str(info.value)


@pytest.mark.parametrize("version", VERSIONS)
def test_provider_error_is_an_error_and_a_failed_assertion_a_failure(version):
    """promptfoo puts the grader's reason in `error` for a failed assertion (failureReason 1) and the provider's
    error there too (failureReason 2): only the second is an errored case."""
    path = HARNESS / "third" / version / "errors.json"
    stats = _stats(path)
    table = load_results([Source(path)]).table
    errored = table["error"].notna()
    assert int(errored.sum()) == stats["errors"] == 1
    assert table.loc[errored, "case_id"].tolist() == ["t10"] and table.loc[errored, "passed"].isna().all()
    failed = table[~errored & (table["passed"] == 0)]
    assert len(failed) == stats["failures"]
    assert failed["reason"].str.startswith("Expected output").all()


def test_success_as_a_string_is_refused(tmp_path):
    data = json.loads((HARNESS / "third" / VERSIONS[-1] / "single.json").read_text())
    data["results"]["results"][1]["success"] = "false"
    data["results"]["results"][2]["success"] = "true"
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(data))
    table = load_results([Source(edited)]).table  # "true"/"false" strings read as what they say
    assert table["passed"].iloc[1] == 0.0
    data["results"]["results"][1]["success"] = "no way"
    edited.write_text(json.dumps(data))
    with pytest.raises(InputError, match="'success' is \"no way\", not true or false"):
        load_results([Source(edited)])


def test_each_scorer_section_names_its_own_scorer(tmp_path):
    logs = sorted((HARNESS / "inspect-0.3.285" / "single").glob("*.eval"))
    out = tmp_path / "m.json"
    result = run_cli("report", f"a={logs[0]}", f"b={logs[1]}", "--metric", "match", "--metric", "includes",
                     "--baseline", "a", "-o", out)
    assert result.exit_code in (0, 1, 3), result.output
    report = json.loads(out.read_text())
    scorers = [{i["scorer"] for i in report["metrics"][name]["inputs"]} for name in ("match", "includes")]
    assert scorers == [{"match"}, {"includes"}]


# ---------------------------------------------------------------- OpenAI evals (issue 31 item 11)

EVALS = HARNESS / "third" / "evals-3.0.1"


def test_openai_evals_records_read_with_their_own_accuracy(tmp_path):
    from releasegate.load.adapters import detect_format

    reports = [json.loads(line)["final_report"] for p in ("base.jsonl", "cand.jsonl")
               for line in (EVALS / p).read_text().splitlines()[1:2]]
    assert detect_format(EVALS / "base.jsonl") == "openai-evals"
    out = tmp_path / "e.json"
    result = run_cli("report", EVALS / "base.jsonl", EVALS / "cand.jsonl", "--baseline", "scripted-base", "-o", out)
    assert result.exit_code in (0, 1, 3), result.output
    report = json.loads(out.read_text())
    overall = report["candidates"][0]["overall"]
    assert (overall["baseline_rate"], overall["candidate_rate"]) == (reports[0]["accuracy"], reports[1]["accuracy"])
    assert (overall["n"], overall["fixed"], overall["broke"]) == (10, 2, 1)
    assert {i["format"] for i in report["inputs"]} == {"openai-evals"}
    assert sorted(c["case_id"] for c in report["candidates"][0]["broken_cases"]) == ["words.dev.5"]


def test_blank_case_ids_counted_per_release():
    """Read as a tidy table, the spec and final_report lines have no sample_id: 2 in each release, not 4 in r1."""
    result = run_cli("check", f"r1={EVALS / 'base.jsonl'}", f"r2={EVALS / 'cand.jsonl'}", "--baseline", "r1",
                     "--format", "tidy", "--case-col", "sample_id", "--passed-col", "data.correct")
    assert result.exit_code == 2
    assert "4 row(s) have a blank case_id (2 in 'r1', 2 in 'r2')" in result.output
