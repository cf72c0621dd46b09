"""`releasegate verify`: a note reproduced from its inputs exits 0, a changed input or note exits 1 naming what
moved, a file that is not a readable note exits 2 with one line."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest

from conftest import run_cli

R2 = "r2-new-prompt"


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> Path:
    """The demo's inputs with a JSON note and a PDF/A-3b note of them, as `report` writes them."""
    from releasegate.demo import example_files

    folder = tmp_path_factory.mktemp("verify-demo")
    for name, path in example_files().items():
        shutil.copyfile(path, folder / name)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SOURCE_DATE_EPOCH", "1796000000")
        result = run_cli("report", "eval_results.csv", "--cases", "eval_cases.csv", "--policy", "releasegate.toml",
                         "-o", "note.json", "-o", "note.pdf", "--pdf-variant", "pdf/a-3b", cwd=folder)
    assert result.exit_code == 0, result.output
    return folder


def _flipped(demo: Path, to: Path) -> str:
    """The demo's results with one of r2's passing outcomes (on a case r1 passes too) made a failure."""
    rows = list(csv.DictReader(open(demo / "eval_results.csv", newline="", encoding="utf-8")))
    baseline = {r["case_id"]: r["passed"] for r in rows if r["release"] == "r1-live"}
    row = next(r for r in rows if r["release"] == R2 and r["passed"] == "1" and baseline[r["case_id"]] == "1")
    row["passed"] = "0"
    to.mkdir(exist_ok=True)
    with open(to / "eval_results.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    shutil.copyfile(demo / "eval_cases.csv", to / "eval_cases.csv")
    return row["case_id"]


@pytest.mark.parametrize("note", ["note.json", "note.pdf"])
def test_the_demo_note_is_reproduced(demo, note, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1900000000")  # another time of generation: not compared
    result = run_cli("verify", note, "eval_results.csv", "--cases", "eval_cases.csv", cwd=demo)
    assert result.exit_code == 0, result.output
    line = result.output.strip()
    assert line.startswith(f"reproduced: {note} follows from its inputs: 2 input(s)")
    assert "releasegate 0.1.0, the version that wrote the note" in line and "\n" not in line


def test_reproduced_from_another_folder_with_the_policy_file_given_again(demo, tmp_path):
    """The inputs' paths are not compared (their hashes are), and a policy file that gives the note's policy
    changes nothing."""
    shutil.copytree(demo, tmp_path / "moved")
    result = run_cli("verify", demo / "note.json", tmp_path / "moved" / "eval_results.csv", "--cases",
                     tmp_path / "moved" / "eval_cases.csv", "--policy", tmp_path / "moved" / "releasegate.toml")
    assert result.exit_code == 0, result.output


def test_one_flipped_outcome_names_the_hash_the_case_and_the_figures(demo, tmp_path):
    case = _flipped(demo, tmp_path / "flipped")
    result = run_cli("verify", demo / "note.pdf", "eval_results.csv", "--cases", "eval_cases.csv",
                     cwd=tmp_path / "flipped")
    assert result.exit_code == 1, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("differs: ") and "1 input," in lines[0]
    note = json.loads((demo / "note.json").read_text())
    old = note["inputs"][0]["sha256"]
    from releasegate.load.sources import sha256_of

    new = sha256_of(tmp_path / "flipped" / "eval_results.csv")
    assert lines[1] == f"input eval_results.csv: sha256 {old} in the note, {new} given"
    assert f"case {case}: in candidates[name={R2}].broken_cases of the rerun, not of the note" in result.output
    moved = {line.split(":")[0] for line in lines if line.startswith("figure ")}
    assert f"figure candidates[name={R2}].overall.broke" in moved
    assert f"figure candidates[name={R2}].overall.p_value" in moved
    assert f"figure releases[name={R2}].rate.value" in moved
    # r3 and the baseline did not move; neither the time nor the command line is a difference.
    assert not any("r3-small-model" in line or "generated_at" in line or "command_line" in line for line in lines)


def test_an_edited_note_differs_at_the_edited_figure_and_verdict(demo, tmp_path):
    note = json.loads((demo / "note.json").read_text())
    note["candidates"][1]["overall"]["p_value"] = 0.5
    note["candidates"][1]["verdict"] = "ship"
    note["candidates"][1]["broken_cases"].pop(0)
    gone = json.loads((demo / "note.json").read_text())["candidates"][1]["broken_cases"][0]["case_id"]
    (tmp_path / "edited.json").write_text(json.dumps(note, indent=2))
    result = run_cli("verify", tmp_path / "edited.json", demo / "eval_results.csv", "--cases",
                     demo / "eval_cases.csv")
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert lines[1] == "verdict candidates[name=r3-small-model].verdict: ship in the note, dont_ship in the rerun"
    assert f"case {gone}: in candidates[name=r3-small-model].broken_cases of the rerun, not of the note" in lines[2]
    assert any(line.startswith("figure candidates[name=r3-small-model].overall.p_value: 0.5 in the note, 0.00")
               for line in lines)
    assert len(lines) == 4


def test_a_flag_that_changes_the_policy_shows_as_differences(demo):
    result = run_cli("verify", "note.json", "eval_results.csv", "--cases", "eval_cases.csv", "--alpha", "0.1",
                     cwd=demo)
    assert result.exit_code == 1
    assert "figure policy.alpha: 0.05 in the note, 0.1 in the rerun" in result.output
    assert "figure parameters.alpha: 0.05 in the note, 0.1 in the rerun" in result.output


def test_an_older_schema_note_is_compared_on_what_it_wrote(demo, tmp_path):
    """A schema 1.0 note has no ``loading``: the defaults read the inputs, and keys added since are not
    counted as differences."""
    note = json.loads((demo / "note.json").read_text())
    del note["loading"]
    note["schema_version"] = "1.0"
    (tmp_path / "old.json").write_text(json.dumps(note))
    result = run_cli("verify", tmp_path / "old.json", "eval_results.csv", "--cases", "eval_cases.csv", cwd=demo)
    assert result.exit_code == 0, result.output
    assert "the note is of schema 1.0" in result.output


def test_a_missing_case_table_is_not_reproduced(demo):
    result = run_cli("verify", "note.json", "eval_results.csv", cwd=demo)
    assert result.exit_code == 2
    assert "note.json was made with a case table (eval_cases.csv, sha256 526d" in result.output
    assert result.output.endswith("give it with --cases\n")


def _bad(tmp_path: Path, name: str, content: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(content)
    return path


@pytest.mark.parametrize("name,content,message", [
    ("a.json", b"{not json", "is not a releasegate note: not JSON (Expecting property name"),
    ("b.json", b'{"title": "x"}', "is not a releasegate note: no schema_version"),
    ("c.json", b'{"schema_version": "2.0", "candidates": []}', "is a note of schema '2.0'; this releasegate reads "
     "schema 1.0 to 1.3"),
    ("d.json", b'{"schema_version": "1.1", "candidates": []}', "no tool.name \"releasegate\""),
    ("e.json", b"\xff\xfe", "not UTF-8 text"),
    ("f.pdf", b"%PDF-1.7\nnot really a pdf", "cannot read the PDF"),
])
def test_a_file_that_is_not_a_readable_note_is_bad_input(demo, tmp_path, name, content, message):
    result = run_cli("verify", _bad(tmp_path, name, content), demo / "eval_results.csv")
    assert result.exit_code == 2
    assert result.output.count("\n") == 1 and message in result.output, result.output


def test_a_pdf_without_the_attachment_is_bad_input(tmp_path):
    # A plain (not PDF/A-3b) note of a small input: the demo's would take seconds to typeset for the same refusal.
    lines = ["release,case_id,passed", *(f"{r},c{i},{int(i % 4 != 0 or r == 'a')}" for r in "ab" for i in range(30))]
    (tmp_path / "r.csv").write_text("\n".join(lines) + "\n")
    result = run_cli("report", "r.csv", "--baseline", "a", "--no-policy", "-o", "plain.pdf", cwd=tmp_path)
    assert result.exit_code == 0, result.output
    result = run_cli("verify", "plain.pdf", "r.csv", cwd=tmp_path)
    assert result.exit_code == 2
    assert "is a PDF without the note's JSON attached (analysis.json)" in result.output
    assert result.output.count("\n") == 1


def test_a_missing_note_is_bad_input(demo):
    result = run_cli("verify", "nowhere.json", "eval_results.csv", cwd=demo)
    assert result.exit_code == 2 and "note not found: nowhere.json" in result.output


def test_several_metrics_are_reproduced(tmp_path):
    from metrics_support import metric_args, three_metrics

    three_metrics(tmp_path)
    result = run_cli("report", "three.csv", "--baseline", "r1", *metric_args(), "-o", "m.json", cwd=tmp_path)
    assert result.exit_code == 0, result.output
    result = run_cli("verify", "m.json", "three.csv", cwd=tmp_path)
    assert result.exit_code == 0, result.output
    # The note records the metrics gated: verify needs no --metric, and one metric fewer is a difference.
    result = run_cli("verify", "m.json", "three.csv", "--metric", "correct", "--metric", "safe", cwd=tmp_path)
    assert result.exit_code == 1 and "format_ok" in result.output


def test_the_reading_of_the_inputs_comes_from_the_note(tmp_path):
    """A file read with --latency-unit s and renamed columns is reread the same way without the flags."""
    lines = ["rel,id,ok,latency_s"]
    for release in ("a", "b"):
        lines += [f"{release},c{i},{int(i % 4 != 0 or release == 'b')},{0.5 + i / 100}" for i in range(30)]
    (tmp_path / "r.csv").write_text("\n".join(lines) + "\n")
    result = run_cli("report", "r.csv", "--baseline", "a", "--release-col", "rel", "--case-col", "id",
                     "--passed-col", "ok", "--latency-col", "latency_s", "--latency-unit", "s", "-o", "n.json",
                     cwd=tmp_path)
    assert result.exit_code == 0, result.output
    assert json.loads((tmp_path / "n.json").read_text())["loading"]["latency_unit"] == "s"
    result = run_cli("verify", "n.json", "r.csv", cwd=tmp_path)
    assert result.exit_code == 0, result.output
    result = run_cli("verify", "n.json", "r.csv", "--latency-unit", "ms", cwd=tmp_path)
    assert result.exit_code == 1 and "text loading.latency_unit" in result.output


def test_a_note_with_gold_labels_is_verified_from_another_folder(tmp_path):
    """The gold file is an input like the others: its hash is compared, its path is not."""
    lines, gold = ["release,case_id,passed"], ["release,case_id,label"]
    for release in ("r1", "r2"):
        for i in range(120):
            judged = int(i % 5 != 0 or (release == "r2" and i % 10 == 0))
            lines.append(f"{release},c{i:03d},{judged}")
            if i % 2 == 0:
                gold.append(f"{release},c{i:03d},{judged if i % 12 else 1 - judged}")
    made, moved = tmp_path / "made", tmp_path / "moved"
    made.mkdir()
    (made / "results.csv").write_text("\n".join(lines) + "\n")
    (made / "gold.csv").write_text("\n".join(gold) + "\n")
    result = run_cli("report", "results.csv", "--baseline", "r1", "--gold", "gold.csv", "-o", "n.json", cwd=made)
    assert result.exit_code == 0, result.output
    shutil.copytree(made, moved)
    (moved / "gold.csv").rename(moved / "labels.csv")
    result = run_cli("verify", made / "n.json", "results.csv", cwd=moved)
    assert result.exit_code == 2 and "made with gold labels (gold.csv, sha256" in result.output
    result = run_cli("verify", made / "n.json", "results.csv", "--gold", "labels.csv", cwd=moved)
    assert result.exit_code == 0, result.output
    (moved / "labels.csv").write_text("\n".join(gold[:-1]) + "\n")  # one label fewer
    result = run_cli("verify", made / "n.json", "results.csv", "--gold", "labels.csv", cwd=moved)
    assert result.exit_code == 1 and "input gold.csv: sha256" in result.output


def test_a_data_column_named_like_a_provenance_key_is_compared(tmp_path):
    """Only the provenance's own places are left out: a case column called "tool" is compared like any other."""
    lines = ["release,case_id,passed,tool"]
    for release in ("a", "b"):
        lines += [f"{release},c{i},{int(i % 4 != 0 or (release == 'b' and i % 8 == 0))},t{i}" for i in range(40)]
    (tmp_path / "r.csv").write_text("\n".join(lines) + "\n")
    result = run_cli("report", "r.csv", "--baseline", "a", "--no-policy", "-o", "n.json", cwd=tmp_path)
    assert result.exit_code == 0, result.output
    note = json.loads((tmp_path / "n.json").read_text())
    case = note["candidates"][0]["fixed_cases"][0]
    case["metadata"]["tool"] = "edited"
    (tmp_path / "edited.json").write_text(json.dumps(note))
    result = run_cli("verify", "edited.json", "r.csv", cwd=tmp_path)
    assert result.exit_code == 1
    assert f"text candidates[name=b].fixed_cases[case_id={case['case_id']}].metadata.tool" in result.output


def test_a_policy_file_given_is_compared_by_its_hash(demo, tmp_path):
    """The same policy values from an edited file: the file's sha256 differs from the note's record, and says so."""
    edited = tmp_path / "releasegate.toml"
    edited.write_text((demo / "releasegate.toml").read_text() + "\n# reviewed\n")
    result = run_cli("verify", "note.json", "eval_results.csv", "--cases", "eval_cases.csv", "--policy", edited,
                     cwd=demo)
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert len(lines) == 2 and lines[1].startswith("text policy_file.sha256: ")


def test_without_policy_the_answer_says_the_notes_policy_went_unchecked(tmp_path, example):
    """Issue 45 item 6: a note verified without --policy stands on its own policy record, which nothing checks;
    the answer's line says so, and names a releasegate.toml beside the inputs whose sha256 differs."""
    import shutil

    from conftest import run_cli

    for name in ("eval_results.csv", "eval_cases.csv"):
        shutil.copy(example[name], tmp_path / name)
    inputs = (tmp_path / "eval_results.csv", "--cases", tmp_path / "eval_cases.csv")
    made = run_cli("report", *inputs, "--policy", example["releasegate.toml"], "-o", tmp_path / "note.json")
    assert made.exit_code == 0, made.output
    alone = run_cli("verify", tmp_path / "note.json", *inputs)
    assert alone.exit_code == 0 and alone.output.startswith("reproduced: ")
    assert alone.output.rstrip().endswith("the policy was taken from the note and not checked (give --policy FILE "
                                          "to check it)")
    (tmp_path / "releasegate.toml").write_text('baseline = "r1-live"\n')  # not the policy the note records
    beside = run_cli("verify", tmp_path / "note.json", *inputs)
    assert beside.exit_code == 0
    assert (f"the policy was taken from the note and not checked: {tmp_path / 'releasegate.toml'} beside the "
            "inputs differs from the note's record") in beside.output
    checked = run_cli("verify", tmp_path / "note.json", *inputs, "--policy", example["releasegate.toml"])
    assert checked.exit_code == 0 and "not checked" not in checked.output


@pytest.mark.parametrize("edit", [
    lambda cand: cand["broken_cases"][0].update(case_id="EV999"),
    lambda cand: cand["broken_cases"][0].update(candidate_outcome=1.0),
    lambda cand: cand["broken_cases"].pop(0),
    lambda cand: cand["cases_listed"].update(in_note_at_most=1),
], ids=["case id", "outcome", "case dropped", "count kept"])
def test_the_cases_a_note_keeps_beside_its_case_file_are_compared(tmp_path, example, monkeypatch, edit):
    """Past the bound a note keeps each listing's first cases and the case file holds them all: the ones a
    reader sees in the note are the ones compared, not only the file's."""
    from releasegate.render import json_cases

    monkeypatch.setattr(json_cases, "CASES_IN_NOTE", 5)
    monkeypatch.setattr(json_cases, "CASES_KEPT", 3)
    out = tmp_path / "note.json"
    given = (example["eval_results.csv"], "--cases", example["eval_cases.csv"])
    assert run_cli("report", *given, "--policy", example["releasegate.toml"], "-o", out).exit_code == 0
    assert run_cli("verify", out, *given).exit_code == 0
    note = json.loads(out.read_text())
    edit(note["candidates"][0])
    out.write_text(json.dumps(note))
    result = run_cli("verify", out, *given)
    assert result.exit_code == 1 and result.output.startswith("differs:"), result.output
