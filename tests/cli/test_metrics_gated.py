"""The metrics a run gates, from the command line and the API alike (issue 27 items 1, 4 and 5): several metrics
through ``releasegate.compare(..., metric=[...])``, the metric carried by the verdicts and the frames, a policy
table for a metric not gated refused, the suggestions of ``--metric``, and a hostile release name escaped in the
several-metric Markdown and job summary."""

from __future__ import annotations

import pandas as pd
import pytest

import releasegate
from conftest import run_cli
from metrics_support import METRICS, metric_args, three_metrics
from releasegate.errors import InputError

HOSTILE = "@octocat<img src=x onerror=alert(1)>"


def _frame(tmp_path) -> pd.DataFrame:
    return pd.read_csv(three_metrics(tmp_path))


def test_compare_gates_several_metrics_as_the_command_line_does(tmp_path):
    frame = _frame(tmp_path)
    note = releasegate.compare(frame, baseline="r1", metric=["correct", "safe"])
    assert note.metrics == ("correct", "safe")
    text = note.to_markdown()
    assert "## Release note: 2 metrics" in text and "# Metric: correct" in text and "# Metric: safe" in text
    (verdict,) = note.verdicts
    assert (verdict.ship, verdict.blocking) == (False, ("safe",))
    assert [v.metric for v in verdict.by_metric] == ["correct", "safe"]
    assert {r.metric for r in verdict.reasons} == {"safe"}
    # The same gate as --metric correct --metric safe on the file.
    path = three_metrics(tmp_path, name="same.csv")
    result = run_cli("check", path, "--baseline", "r1", "--metric", "correct", "--metric", "safe")
    assert result.output.splitlines()[0] == verdict.headline
    with pytest.raises(ValueError, match="read one with report.section"):
        note.analysis  # noqa: B018  (several metrics: each section holds its own)


def test_the_frames_carry_the_metric(tmp_path):
    note = releasegate.compare(_frame(tmp_path), baseline="r1", metric=list(METRICS))
    table = note.to_frame()
    assert list(table.columns[:3]) == ["candidate", "metric", "comparison"]
    assert list(dict.fromkeys(table["metric"])) == list(METRICS)
    assert len(table) == 3 * (1 + 4)  # per metric: overall and the 4 categories
    broken = note.cases("broken")
    assert set(broken["metric"]) == set(METRICS) and list(broken.columns[:2]) == ["candidate", "metric"]
    safe = note.cases("broken", metric="safe")
    assert set(safe["metric"]) == {"safe"} and len(safe) == 30
    assert "Release note" in note._repr_html_()


def test_one_metric_named_is_a_report_of_that_metric(tmp_path):
    note = releasegate.compare(_frame(tmp_path), baseline="r1", metric="safe")
    assert note.metrics == ("safe",) and not note.report.several
    assert note.analysis.candidates[0].overall.broke == 30
    assert set(note.to_frame()["metric"]) == {"safe"}
    # Without a metric named, the one metric is the outcome column.
    plain = releasegate.compare(_frame(tmp_path).rename(columns={"safe": "passed"}), baseline="r1")
    assert plain.metrics == ("passed",)


def test_a_policy_table_for_a_metric_not_gated_is_refused_in_the_cli_and_the_api(tmp_path):
    path = tmp_path / "results.csv"
    path.write_text("release,case_id,passed\n" + "".join(f"{r},c{i},1\n" for r in ("r1", "r2") for i in range(20)))
    policy = tmp_path / "policy.toml"
    policy.write_text("[metrics.nonexistent]\ncritical = true\n")
    result = run_cli("check", path, "--baseline", "r1", "--policy", policy)
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("releasegate: error[input]: policy [metrics.nonexistent]: no such metric")
    assert "--metric nonexistent" in lines[0]
    with pytest.raises(InputError, match=r"policy \[metrics.nonexistent\]: no such metric"):
        releasegate.compare(path, baseline="r1", policy=policy)
    with pytest.raises(InputError, match=r"policy \[metrics.nonexistent\]: no such metric"):
        releasegate.compare(pd.read_csv(path), baseline="r1", policy={"metrics": {"nonexistent": {"critical": True}}})


def test_metric_suggestions_offer_only_columns_that_can_be_metrics(tmp_path):
    path = tmp_path / "results.csv"
    rows = [f"{r},c{i},A,answer {i},{int(i % 5 != 0 or r == 'r1')},{i / 10}" for r in ("r1", "r2") for i in range(20)]
    path.write_text("release,case_id,category,output,passed,quality\n" + "\n".join(rows) + "\n")
    result = run_cli("check", path, "--baseline", "r1", "--metric", "pased")
    assert result.exit_code == 2
    assert ("metric 'pased' matches no column; closest match 'passed'; columns that could be metrics: passed, "
            "quality") in result.output
    result = run_cli("check", path, "--baseline", "r1", "--metric", "output")
    assert result.exit_code == 2 and "metric 'output' holds neither pass/fail values nor numbers" in result.output
    # passed can be gated by name (a metric like any other), alone or beside another column.
    result = run_cli("check", path, "--baseline", "r1", "--metric", "passed")
    # 4 of 20 cases broken: no regression test reaches significance, and 20 cases cannot show it no worse.
    assert result.exit_code == 3 and result.output.startswith("NOT PROVEN r2")
    result = run_cli("check", path, "--baseline", "r1", "--metric", "passed", "--metric", "quality", "--margin", "0.5")
    assert result.exit_code in (0, 1, 3) and "passed" in result.output


def test_a_hostile_release_name_is_escaped_in_the_several_metric_markdown_and_job_summary(tmp_path, monkeypatch):
    path = three_metrics(tmp_path)
    path.write_text(path.read_text().replace("\nr2,", f"\n{HOSTILE},"))
    note, summary = tmp_path / "note.md", tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    result = run_cli("check", path, "--baseline", "r1", *metric_args(), "-o", note)
    assert result.exit_code == 1, result.output
    for text in (note.read_text(encoding="utf-8"), summary.read_text(encoding="utf-8")):
        assert "| candidate | verdict |" in text  # the grid
        assert "<img" not in text and "&lt;img" in text
        assert "@octocat" not in text and "@&#8203;octocat" in text  # the mention defused


def test_each_input_is_detected_and_expanded_once_however_many_metrics(tmp_path, monkeypatch):
    import json
    from pathlib import Path

    from releasegate.load import adapters, directories

    log = json.loads((Path(__file__).resolve().parents[1] / "fixtures" / "inspect" /
                      "2025-05-12T20-28-13-04-00_popularity.json").read_text())
    log["status"] = "success"
    for sample, value in zip(log["samples"], "CII"):
        sample["scores"]["safe"] = {"value": value}
    (tmp_path / "live.json").write_text(json.dumps(log))
    log["samples"][0]["scores"]["safe"] = {"value": "I"}  # another run: the same bytes twice are refused
    (tmp_path / "new.json").write_text(json.dumps(log))
    calls = {"detect": 0, "expand": 0}

    def counting(name, function):
        def wrapper(*args, **kwargs):
            calls[name] += 1
            return function(*args, **kwargs)
        return wrapper

    monkeypatch.setattr(adapters, "detect_format", counting("detect", adapters.detect_format))
    monkeypatch.setattr(directories, "expand_sources", counting("expand", directories.expand_sources))
    result = run_cli("check", f"live={tmp_path / 'live.json'}", f"new={tmp_path / 'new.json'}", "--baseline", "live",
                     "--margin", "0.9", "--metric", "match", "--metric", "safe")
    assert result.exit_code in (0, 1, 3), result.output
    assert calls == {"detect": 2, "expand": 2}  # two files, two metrics: once each
