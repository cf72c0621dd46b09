"""`report --archive DIR`: the note's JSON and PDF/A-3b in a new dated folder, never over anything."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from conftest import run_cli
from releasegate.audit.archive import folder_name


@pytest.fixture(scope="module")
def archived(tmp_path_factory) -> tuple[Path, object]:
    from releasegate.demo import example_files

    folder = tmp_path_factory.mktemp("archive")
    for name, path in example_files().items():
        shutil.copyfile(path, folder / name)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SOURCE_DATE_EPOCH", "1796000000")
        result = run_cli("report", "eval_results.csv", "--cases", "eval_cases.csv", "--policy", "releasegate.toml",
                         "-o", "note.md", "--archive", "archive", cwd=folder)
    return folder, result


def test_the_note_is_written_into_a_dated_folder(archived):
    folder, result = archived
    assert result.exit_code == 0, result.output
    dated = folder / "archive" / "2026-11-30T005320Z-bank-assistant"  # SOURCE_DATE_EPOCH 1796000000, UTC
    assert sorted(p.name for p in dated.iterdir()) == ["note.json", "note.pdf"]
    assert (folder / "note.md").is_file()
    assert f"wrote {Path('archive') / dated.name / 'note.pdf'}" in result.output
    from pypdf import PdfReader

    attached = PdfReader(dated / "note.pdf").attachments["analysis.json"][0]
    assert attached == (dated / "note.json").read_bytes()  # the PDF carries the JSON beside it, byte for byte


def test_the_archived_note_verifies(archived):
    folder, _ = archived
    dated = next((folder / "archive").iterdir())
    for name in ("note.json", "note.pdf"):
        result = run_cli("verify", dated / name, "eval_results.csv", "--cases", "eval_cases.csv", cwd=folder)
        assert result.exit_code == 0, result.output


def test_a_second_note_of_the_same_second_gets_its_own_folder(archived, tmp_path):
    folder, _ = archived
    result = run_cli("report", "eval_results.csv", "--cases", "eval_cases.csv", "--policy", "releasegate.toml",
                     "--candidate", "r3-small-model", "--archive", "archive", cwd=folder)
    assert result.exit_code == 0, result.output
    names = sorted(p.name for p in (folder / "archive").iterdir())
    assert names == ["2026-11-30T005320Z-bank-assistant", "2026-11-30T005320Z-bank-assistant-2"]


def test_the_folder_name_is_safe_and_sorts_by_time():
    assert folder_name("2026-11-30T00:53:20Z", "bank assistant / Q4 ../x") == "2026-11-30T005320Z-bank-assistant-Q4-..-x"
    assert folder_name("2026-11-30T00:53:20Z", "///") == "2026-11-30T005320Z-note"
    assert len(folder_name("2026-11-30T00:53:20Z", "x" * 300)) == len("2026-11-30T005320Z-") + 60


@pytest.mark.parametrize("args,message", [
    ((), "give an output with -o PATH"),
    (("--archive", "results.csv"), "--archive results.csv: not a directory"),
    (("--archive", "no/such/archive"), "its parent folder no/such does not exist"),
])
def test_bad_archive_requests_are_refused_before_any_work(tmp_path, args, message):
    (tmp_path / "results.csv").write_text("release,case_id,passed\na,1,1\nb,1,1\n")
    result = run_cli("report", "results.csv", "--baseline", "a", *args, cwd=tmp_path)
    assert result.exit_code == 2 and message in result.output and result.output.count("\n") == 1, result.output


def test_a_several_metric_note_is_archived_under_its_own_title(tmp_path):
    from metrics_support import metric_args, three_metrics

    three_metrics(tmp_path)
    result = run_cli("report", "three.csv", "--baseline", "r1", *metric_args(), "--archive", "archive", cwd=tmp_path)
    assert result.exit_code == 0, result.output
    (dated,) = (tmp_path / "archive").iterdir()
    assert dated.name == "2026-11-30T005320Z-three"
    result = run_cli("verify", dated / "note.pdf", "three.csv", cwd=tmp_path)
    assert result.exit_code == 0, result.output
