"""With --allow-missing the summary reads every rate over the cases compared, as the difference is, and counts
the unpaired cases apart (issue 18, item 6): the rates and the difference never mix bases."""

from __future__ import annotations

import json
import re

from conftest import run_cli


def _write(tmp_path):
    rows = ["release,case_id,passed"]
    # full: every case of c0..c59 passes and 40% of the shared c60..c119 (70% over its own 120 cases)
    rows += [f"full,c{i},{int(i < 60 or i % 5 < 2)}" for i in range(120)]
    rows += [f"limited,c{i},{int(i % 2 == 0)}" for i in range(60, 120)]  # 50% over its 60
    path = tmp_path / "r.csv"
    path.write_text("\n".join(rows) + "\n")
    return path


def test_summary_rates_are_over_the_compared_cases(tmp_path):
    path = _write(tmp_path)
    md, js = tmp_path / "a.md", tmp_path / "a.json"
    result = run_cli("report", path, "--baseline", "full", "--allow-missing", "--no-policy", "-o", md, "-o", js)
    assert result.exit_code == 0, result.output
    overall = json.loads(js.read_text())["candidates"][0]["overall"]
    text = md.read_text()
    rows = {m[0]: m[1] for m in re.findall(r"^\| (full \(baseline\)|limited) \| ([\d.]+)%", text, re.MULTILINE)}
    # Both rates are the paired comparison's, whose difference the same row shows.
    assert float(rows["full (baseline)"]) == round(overall["baseline_rate"] * 100, 1)
    assert float(rows["limited"]) == round(overall["candidate_rate"] * 100, 1)
    assert round(overall["candidate_rate"] - overall["baseline_rate"], 12) == round(overall["diff"], 12)
    assert overall["baseline_rate"] == 0.4  # not 0.7, the baseline over its own 120 cases
    assert "on their 60 shared cases (60 of 120 cases left out: missing on limited)" in text


def test_without_unpaired_cases_the_summary_says_nothing_more(tmp_path, example):
    md = tmp_path / "a.md"
    run_cli("report", example["eval_results.csv"], "--cases", example["eval_cases.csv"], "--baseline", "r1-live",
            "--no-policy", "-o", md)
    assert "Rates are over the cases compared" not in md.read_text()
