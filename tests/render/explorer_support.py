"""The notes the case explorer's tests read (tests/render/test_explorer.py, test_explorer_browser.py), each built
once per module under the tests' fixed time: the bank-assistant example and the red team's hostile texts
(tests/render/test_hostile_text.py)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from test_hostile_text import BASELINE, _write_results

from conftest import EPOCH, build_report

FRAUD_BROKEN_BY_R2 = ["EV264", "EV265", "EV274", "EV276", "EV283", "EV309"]


def bank_report():
    """The bundled example's Report and its input files."""
    from releasegate.demo import example_files

    files = example_files()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SOURCE_DATE_EPOCH", EPOCH)
        report = build_report(files["eval_results.csv"], files["eval_cases.csv"], files["releasegate.toml"])
    return report, files


def hostile_report(work: Path):
    """Every hostile text as a case id, category, input and output, the candidate breaking them all."""
    _write_results(work / "results.csv")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SOURCE_DATE_EPOCH", EPOCH)
        return build_report(work / "results.csv", baseline=BASELINE, command_line="")


def csv_rows(path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))
