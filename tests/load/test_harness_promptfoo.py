"""Genuine promptfoo outputs (tests/fixtures/harness/promptfoo-<version>/, scripts/fixtures/make_promptfoo.sh).

0.123.1 writes results version 3, 0.55.0 version 2, of the same six tests. Expected counts come from the
files' own ``results.stats`` (successes, failures) and from the config (6 tests, 2 providers, --repeat 3).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import run_cli
from releasegate.errors import InputError
from releasegate.load.adapters.promptfoo import RELEASE_NAME_LIMIT, read_promptfoo, short_name

HARNESS = Path(__file__).parents[1] / "fixtures" / "harness"
V3, V2 = HARNESS / "promptfoo-0.123.1", HARNESS / "promptfoo-0.55.0"
KEYS = ["apple", "pear", "plum", "refuse", "river", "vars:627b7112389b"]  # 5 descriptions, 1 test without


@pytest.mark.parametrize("folder", [V3, V2])
def test_repeat_is_read_as_runs(folder):
    path = folder / "repeat3.json"
    frame = read_promptfoo(path)
    stats = json.loads(path.read_text())["results"]["stats"]
    assert len(frame) == 2 * 6 * 3 == stats["successes"] + stats["failures"]
    assert frame["passed"].sum() == stats["successes"]
    assert sorted(frame["release"].unique()) == ["echo", "shout"]  # the local provider's config label, in v2 too
    assert sorted(frame["case_id"].unique()) == KEYS
    counts = frame.groupby(["release", "case_id"])["run"].apply(sorted)
    assert all(runs == [1, 2, 3] for runs in counts)


def test_version_2_and_version_3_of_the_same_tests_pair():
    keys = ["release", "case_id", "run"]
    new = read_promptfoo(V3 / "repeat3.json").set_index(keys).sort_index()
    old = read_promptfoo(V2 / "repeat3.json").set_index(keys).sort_index()
    assert new.index.equals(old.index)  # every key shared, none lost
    assert new["passed"].equals(old["passed"])
    assert old.loc[("echo", "plum", 1), "category"] == "fruit"  # testCase metadata found in table.body


@pytest.mark.parametrize("folder", [V3, V2])
def test_prompt_by_provider_gives_one_release_per_pair(folder):
    frame = read_promptfoo(folder / "grid.json")
    releases = sorted(frame["release"].unique())
    assert len(releases) == 4 and all(len(r.split(" [")[1]) <= RELEASE_NAME_LIMIT + 1 for r in releases)
    assert {r.split(" [")[0] for r in releases} == {"echo", "shout"}
    assert frame.groupby("release").size().tolist() == [6] * 4
    assert frame.attrs["release_key"] == "provider label [prompt label]"
    by_prompt = read_promptfoo(folder / "grid.json", release_by="prompt")
    assert sorted(r.split(" [")[1] for r in by_prompt["release"].unique()) == ["echo]", "echo]", "shout]", "shout]"]
    assert by_prompt["passed"].sum() == frame["passed"].sum()


def test_jsonl_equals_json_for_the_grid():
    whole = read_promptfoo(V3 / "grid.json").sort_values(["release", "case_id"]).reset_index(drop=True)
    lines = read_promptfoo(V3 / "grid.jsonl").sort_values(["release", "case_id"]).reset_index(drop=True)
    assert whole[["release", "case_id", "passed", "score"]].equals(lines[["release", "case_id", "passed", "score"]])


def test_long_names_are_cut_and_kept_apart():
    long_a = "You are a careful assistant. " * 10
    long_b = long_a + "Be brief."
    assert short_name("plain") == "plain"
    a, b = short_name(long_a), short_name(long_b)
    assert len(a) <= RELEASE_NAME_LIMIT and len(b) <= RELEASE_NAME_LIMIT and a != b
    assert short_name("line one\nline two") != "line one\nline two" and "\n" not in short_name("line one\nline two")


def test_different_tests_under_one_key_are_refused(tmp_path):
    data = json.loads((V3 / "repeat3.json").read_text())
    copy = next(r for r in data["results"]["results"] if r["testCase"].get("description") == "pear")
    copy["vars"] = copy["testCase"]["vars"] = {"word": "quince"}
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(data))
    with pytest.raises(InputError, match="name different tests.*'pear'.*unique description"):
        read_promptfoo(path)


def test_two_multi_provider_runs_compare_by_name(tmp_path):
    out = tmp_path / "r.json"
    result = run_cli("report", f"old={V2 / 'repeat3.json'}", f"new={V3 / 'repeat3.json'}", "--baseline", "old/shout",
                     "-o", out)
    assert result.exit_code in (0, 1, 3), result.output
    report = json.loads(out.read_text())
    assert sorted(c["name"] for c in report["candidates"]) == ["new/echo", "new/shout", "old/echo"]
    assert all(c["overall"]["n"] == 6 for c in report["candidates"])
    assert [i["harness"] for i in report["inputs"]] == ["promptfoo, results version 2",
                                                         "promptfoo 0.123.1, results version 3"]
    assert [i["release_key"] for i in report["inputs"]] == ["NAME/provider label"] * 2
    # unnamed, the same provider from two files is refused with the NAME= hint
    result = run_cli("report", V2 / "repeat3.json", V3 / "repeat3.json", "--baseline", "shout", "-o", out)
    assert result.exit_code == 2 and "both hold release 'shout'" in result.output and "base=" in result.output


def test_a_repeat_file_reports_its_runs(tmp_path):
    out = tmp_path / "r.json"
    result = run_cli("report", V3 / "repeat3.json", "--baseline", "echo", "-o", out)
    assert result.exit_code in (0, 1, 3), result.output
    candidate = json.loads(out.read_text())["candidates"][0]
    assert candidate["name"] == "shout" and candidate["overall"]["n"] == 6
    assert (candidate["run_axis"]["runs_baseline"], candidate["run_axis"]["runs_candidate"]) == (3, 3)
