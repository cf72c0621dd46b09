"""The JSON note's case listings past the bound (render/json_cases.py): the whole listings in a Parquet file
beside the note, named and hashed in it; `verify` reads them back; the note keeps every figure."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import run_cli
from releasegate.audit.notes import read_note
from releasegate.render import json_cases


def _report(example: dict[str, Path], out: Path, *extra) -> object:
    return run_cli("report", example["eval_results.csv"], "--cases", example["eval_cases.csv"],
                   "--policy", example["releasegate.toml"], "-o", out, *extra)


def test_under_the_bound_the_note_lists_every_case(tmp_path: Path, example) -> None:
    out = tmp_path / "note.json"
    assert _report(example, out).exit_code == 0
    note = json.loads(out.read_text())
    assert note["cases_file"] is None and not json_cases.case_file_path(out).exists()
    r2 = note["candidates"][0]
    assert r2["cases_listed"] == {"broken_cases": len(r2["broken_cases"]), "fixed_cases": 12,
                                  "only_baseline": 0, "only_candidate": 0, "in_note_at_most": None}
    assert len(r2["fixed_cases"]) == 12


@pytest.fixture
def bounded(tmp_path: Path, example, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    monkeypatch.setattr(json_cases, "CASES_IN_NOTE", 5)
    monkeypatch.setattr(json_cases, "CASES_KEPT", 3)
    full, out = tmp_path / "full.json", tmp_path / "note.json"
    with monkeypatch.context() as patch:
        patch.setattr(json_cases, "CASES_IN_NOTE", 10**9)
        _report(example, full)
    assert _report(example, out).exit_code == 0
    return full, out


def test_past_the_bound_the_listings_are_in_the_case_file(bounded) -> None:
    full, out = bounded
    note, whole = json.loads(out.read_text()), json.loads(full.read_text())
    side = out.with_name("note.cases.parquet")
    record = note["cases_file"]
    assert record["path"] == side.name and record["format"] == "parquet" and record["listed_in_note"] == 3
    import hashlib

    assert record["sha256"] == hashlib.sha256(side.read_bytes()).hexdigest()
    for cand, all_of in zip(note["candidates"], whole["candidates"]):
        assert cand["broken_cases"] == all_of["broken_cases"][:3]  # the first cases of each listing stay
        assert cand["cases_listed"]["broken_cases"] == len(all_of["broken_cases"])
        assert cand["cases_listed"]["in_note_at_most"] == 3
        assert cand["overall"] == all_of["overall"] and cand["categories"] == all_of["categories"]
    assert record["rows"] == sum(len(c["broken_cases"]) + len(c["fixed_cases"]) for c in whole["candidates"])
    # Every case is reachable: the note read back with its case file is the note without the bound.
    expanded = read_note(out).with_cases()
    whole["cases_file"], expanded["generated_at"], whole["generated_at"] = None, "", ""
    expanded["command_line"] = whole["command_line"] = ""
    assert expanded == whole


def test_the_case_file_is_readable_as_a_table(bounded) -> None:
    import pandas as pd

    _, out = bounded
    table = pd.read_parquet(out.with_name("note.cases.parquet"))
    fraud = table[(table["candidate"] == "r2-new-prompt") & (table["listing"] == "broken_cases")
                  & (table["category"] == "Fraud")]
    assert sorted(fraud["case_id"]) == ["EV264", "EV265", "EV274", "EV276", "EV283", "EV309"]
    assert "metadata.output" in table.columns


def test_verify_reads_the_case_file_and_refuses_a_changed_one(bounded, example) -> None:
    _, out = bounded
    given = (example["eval_results.csv"], "--cases", example["eval_cases.csv"])
    assert run_cli("verify", out, *given).exit_code == 0
    side = out.with_name("note.cases.parquet")
    side.write_bytes(side.read_bytes()[:-1] + b"x")
    result = run_cli("verify", out, *given)
    assert result.exit_code == 2 and "not the case file note.json was written with" in result.output
    side.unlink()
    result = run_cli("verify", out, *given)
    assert result.exit_code == 2 and "keep the case file beside the note" in result.output


def test_verify_holds_for_a_note_of_any_name(tmp_path: Path, example, monkeypatch: pytest.MonkeyPatch) -> None:
    """The case file is named after its note (release.json -> release.cases.parquet); the rerun's, after the note
    verify writes for itself. The name is where the file was written, not a figure: a note named otherwise than
    note.json is reproduced, and a changed figure still differs."""
    monkeypatch.setattr(json_cases, "CASES_IN_NOTE", 5)
    monkeypatch.setattr(json_cases, "CASES_KEPT", 3)
    out = tmp_path / "release-r2.json"
    assert _report(example, out).exit_code == 0
    assert json.loads(out.read_text())["cases_file"]["path"] == "release-r2.cases.parquet"
    given = (example["eval_results.csv"], "--cases", example["eval_cases.csv"])
    result = run_cli("verify", out, *given)
    assert result.exit_code == 0, result.output
    note = json.loads(out.read_text())
    note["candidates"][0]["cases_listed"]["broken_cases"] += 1
    out.write_text(json.dumps(note))
    result = run_cli("verify", out, *given)
    assert result.exit_code == 1 and "cases_listed.broken_cases" in result.output, result.output


def test_verify_names_a_case_past_the_kept_ones_that_no_longer_broke(bounded, example, tmp_path: Path) -> None:
    """The whole listings are compared from both case files: a case listed only in the note's case file that the
    rerun no longer lists is named, though the note's own first cases are the same."""
    full, out = bounded
    broken = json.loads(full.read_text())["candidates"][0]
    gone = broken["broken_cases"][-1]["case_id"]
    assert gone not in [c["case_id"] for c in json.loads(out.read_text())["candidates"][0]["broken_cases"]]
    import pandas as pd

    results = pd.read_csv(example["eval_results.csv"], dtype={"case_id": str})
    results.loc[(results["case_id"] == gone) & (results["release"] == broken["name"]), "passed"] = 1
    edited = tmp_path / "eval_results.csv"
    results.to_csv(edited, index=False)
    result = run_cli("verify", out, edited, "--cases", example["eval_cases.csv"])
    assert result.exit_code == 1
    assert f"case {gone}: in candidates[name={broken['name']}].broken_cases of the note, not of the rerun" in (
        result.output), result.output


def test_the_case_file_may_not_be_an_input(tmp_path: Path, example) -> None:
    victim = tmp_path / "note.cases.parquet"
    victim.write_bytes((example["eval_results.csv"]).read_bytes())
    result = run_cli("report", f"r={victim}", "-o", tmp_path / "note.json")
    assert result.exit_code == 2


def test_excluded_cases_go_to_the_case_file_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(json_cases, "CASES_IN_NOTE", 3)
    monkeypatch.setattr(json_cases, "CASES_KEPT", 1)
    rows = ["release,case_id,passed,category,output"]
    rows += [f"r1,c{i},{i % 2},{'A' if i % 3 else 'B'},old {i}" for i in range(12)]
    rows += [f"r2,c{i},{1 - i % 2},{'A' if i % 3 else 'B'},new {i}" for i in range(2, 14)]
    path = tmp_path / "r.csv"
    path.write_text("\n".join(rows) + "\n")
    out = tmp_path / "note.json"
    assert run_cli("report", path, "--baseline", "r1", "--allow-missing", "-o", out).exit_code == 0
    note = json.loads(out.read_text())
    cand = note["candidates"][0]
    assert cand["excluded_cases"] == {"only_baseline": ["c0"], "only_candidate": ["c12"]}
    assert cand["cases_listed"]["only_baseline"] == 2 and cand["cases_listed"]["only_candidate"] == 2
    whole = read_note(out).with_cases()["candidates"][0]
    assert whole["excluded_cases"] == {"only_baseline": ["c0", "c1"], "only_candidate": ["c12", "c13"]}
    assert len(whole["broken_cases"]) == cand["cases_listed"]["broken_cases"]
    assert all(c["metadata"]["output"].startswith("new") for c in whole["broken_cases"])
    assert run_cli("verify", out, path, "--allow-missing").exit_code == 0


def test_a_directory_where_the_case_file_goes_is_refused_and_no_output_changes(tmp_path: Path, example,
                                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """The case file's rename used to fail after the Markdown before it had been replaced: exit 2, half written."""
    monkeypatch.setattr(json_cases, "CASES_IN_NOTE", 5)
    (tmp_path / "note.cases.parquet").mkdir()
    (tmp_path / "note.md").write_text("old\n")
    result = run_cli("report", example["eval_results.csv"], "--cases", example["eval_cases.csv"], "--policy",
                     example["releasegate.toml"], "-o", tmp_path / "note.md", "-o", tmp_path / "note.json")
    assert result.exit_code == 2
    assert result.output.endswith("is a directory: " f"{tmp_path / 'note.cases.parquet'} (the case file a JSON note "
                                  "may write)\n")
    assert (tmp_path / "note.md").read_text() == "old\n" and not (tmp_path / "note.json").exists()


def test_a_comment_where_the_case_file_goes_is_refused(tmp_path: Path, example, monkeypatch: pytest.MonkeyPatch) -> None:
    """Both used to be written to one path, the comment last: the note named a case file that was the comment."""
    monkeypatch.setattr(json_cases, "CASES_IN_NOTE", 5)
    result = _report(example, tmp_path / "note.json", "--comment", tmp_path / "note.cases.parquet")
    assert result.exit_code == 2
    assert result.output.endswith(f"output {tmp_path / 'note.cases.parquet'} is given twice (also the case file a "
                                  "JSON note may write)\n")
    assert not (tmp_path / "note.json").exists() and not (tmp_path / "note.cases.parquet").exists()
