"""A harness's output folder named as one input is read for its harness files only: a table kept in it (an export
of the same logs, a hand-made CSV) is not read, and the note says which, instead of passing over it unsaid."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from conftest import run_cli
from releasegate.load import AdapterOptions, Source, load_results

HARNESS = Path(__file__).parents[1] / "fixtures" / "harness"
OPTIONS = AdapterOptions(values={"scorer": "includes"})


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "eval-set"
    shutil.copytree(HARNESS / "inspect-0.3.285" / "eval-set", folder)
    return folder


def _notes_of(folder: Path) -> list[str]:
    return [n for n in load_results([Source(folder)], options=OPTIONS).notes if "not read" in n]


def test_a_folder_of_logs_alone_says_nothing(tmp_path: Path) -> None:
    assert _notes_of(_folder(tmp_path)) == []


def test_a_table_beside_the_logs_is_named(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    (folder / "samples.csv").write_text("id,epoch,score_includes\n1,1,C\n")
    (folder / "notes.txt").write_text("not a table")  # other files are none of the comparison's business
    (note,) = _notes_of(folder)
    assert note == (f"{folder}: read as a harness's output folder, for its harness files only; 1 table in it was "
                    "not read (samples.csv): to compare a table, name it on its own, not beside the harness files "
                    "it may repeat")


def test_tables_in_a_folder_inside_are_named_and_counted(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    (folder / "exports").mkdir()
    for name in ("a.csv", "b.parquet", "c.tsv", "d.jsonl"):
        (folder / "exports" / name).write_text("x\n")
    (note,) = _notes_of(folder)
    assert "4 tables in it were not read (exports/a.csv, exports/b.parquet, exports/c.tsv and 1 more)" in note


def test_the_note_reaches_the_report(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    (folder / "samples.csv").write_text("id,epoch,score_includes\n1,1,C\n")
    out = tmp_path / "note.json"
    models = sorted({h["eval"]["model"] for h in json.loads((folder / "logs.json").read_text()).values()})
    result = run_cli("report", str(folder), "--scorer", "includes", "--baseline", models[0], "-o", str(out))
    assert result.exit_code == 0, result.output
    assert "1 table in it was not read (samples.csv)" in out.read_text()
    # report's own lines name it beside the verdicts, as check's do (tests/cli/test_exclusions_named.py).
    assert f"inputs: {folder}: 1 table not read (samples.csv)" in result.stdout, result.stdout
