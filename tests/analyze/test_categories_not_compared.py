"""A category none of whose cases is compared (every one left out: missing on one side, or errored) has no row
of figures; the note says so among the candidate's warnings instead of dropping the category unseen."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import build_report
from releasegate.render.markdown import render_markdown

WARNING = "no case of category A was compared (every one was left out), so it has no row of figures"


def _write(tmp_path: Path, rows: list[tuple], header: str) -> Path:
    path = tmp_path / "results.csv"
    path.write_text(header + "\n" + "".join(",".join(map(str, r)) + "\n" for r in rows))
    return path


def _rows(left_out: str) -> tuple[list[tuple], str]:
    """Categories A, B and C of 30 cases each, the same outcomes on both releases; A's cases left out."""
    rows = []
    for i in range(90):
        category, passed = "ABC"[i // 30], int(i % 4 != 0)
        rows.append((f"c{i:03d}", "r1", passed, category, ""))
        if category == "A" and left_out == "missing":
            continue
        error = "timeout" if category == "A" and left_out == "errored" else ""
        rows.append((f"c{i:03d}", "r2", "" if error else passed, category, error))
    return rows, "case_id,release,passed,category,error"


@pytest.mark.parametrize("left_out", ["missing", "errored"])
def test_a_category_with_no_case_compared_is_named(tmp_path, left_out):
    path = _write(tmp_path, *_rows(left_out))
    flags = {"allow_missing": True} if left_out == "missing" else {"guardrails": {"max_error_rate_increase": 1.0}}
    report = build_report(path, baseline="r1", **flags)
    cand = report.analysis.candidates[0]
    assert [c.label for c in cand.categories] == ["B", "C"]
    assert cand.categories_not_compared == ("A",)
    assert WARNING in report.verdicts[0].warnings
    assert WARNING in render_markdown(report)


def test_no_warning_when_every_category_is_compared(tmp_path):
    rows, header = _rows("none")
    report = build_report(_write(tmp_path, rows[:-1], header), baseline="r1", allow_missing=True)
    cand = report.analysis.candidates[0]
    assert cand.exclusions.count == 1 and cand.categories_not_compared == ()
    assert not any("was compared" in w for w in report.verdicts[0].warnings)
