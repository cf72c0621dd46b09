"""Several metrics gated at once (issue 16, part 2): ``--metric`` names tidy outcome columns; one verdict per
candidate from every metric's rules; the headline names the metric(s) that block; each metric's figures are a
single-metric run's, with its adjusted p-values multiplied by the number of metrics (the correction across
metrics, docs/operating-characteristics.md)."""

from __future__ import annotations

import dataclasses
import json

import pytest

from conftest import build_report, run_cli
from metrics_support import METRICS, metric_args, three_metrics
from releasegate.render.markdown import GITHUB_COMMENT_LIMIT


def test_only_safe_regresses_so_the_verdict_names_safe(tmp_path):
    path = three_metrics(tmp_path)
    result = run_cli("check", path, "--baseline", "r1", *metric_args())
    assert result.exit_code == 1
    headline = result.output.splitlines()[0]
    assert headline.startswith("DON'T SHIP r2: safe blocks (significant overall regression")
    assert headline.endswith("correct and format_ok pass.")


def test_each_metric_equals_its_single_metric_run(tmp_path):
    path = three_metrics(tmp_path)
    from releasegate.load import parse_source
    from releasegate.pipeline import run
    from releasegate.policy import make_policy

    report = run([parse_source(str(path))], make_policy(baseline="r1"), metrics=METRICS)
    assert report.metrics == METRICS
    for metric in METRICS:
        single = build_report(path, baseline="r1", columns={"passed": metric})
        mine = report.section(metric).analysis.candidates[0]
        theirs = single.analysis.candidates[0]
        # Every figure is the single-metric run's; only the adjusted p carries the correction across 3 metrics.
        for attr in ("diff", "ci_low", "ci_high", "ni_low", "ni_high", "p_value", "p_one_sided", "fixed", "broke"):
            assert getattr(mine.overall, attr) == getattr(theirs.overall, attr), (metric, attr)
        assert mine.overall.p_adjusted == pytest.approx(min(1.0, 3 * theirs.overall.p_adjusted))
        assert len(mine.categories) == len(theirs.categories) == 4
        for a, b in zip(mine.categories, theirs.categories):
            assert a == dataclasses.replace(b, p_adjusted=a.p_adjusted, p_value_adjusted=a.p_value_adjusted)
            assert a.p_adjusted == pytest.approx(min(1.0, 3 * b.p_adjusted))
            assert a.p_value_adjusted == pytest.approx(min(1.0, 3 * b.p_value_adjusted))
        # The single-metric run shows the other metrics' columns beside its cases as metadata; the gate does not.
        def bare(changes):
            return [dataclasses.replace(c, metadata=(), baseline_texts=()) for c in changes]

        assert bare(mine.broken_cases) == bare(theirs.broken_cases) and bare(mine.fixed_cases) == bare(theirs.fixed_cases)
    verdict = report.verdicts[0]
    assert (verdict.ship, verdict.blocking) == (False, ("safe",))


def test_the_json_holds_the_grid_and_each_metric(tmp_path):
    out = tmp_path / "note.json"
    run_cli("check", three_metrics(tmp_path), "--baseline", "r1", *metric_args(), "-o", out)
    data = json.loads(out.read_text())
    assert data["kind"] == "several_metrics" and data["metrics_gated"] == list(METRICS)
    cand = data["candidates"][0]
    assert (cand["verdict"], cand["blocking_metrics"]) == ("dont_ship", ["safe"])
    assert cand["metrics"]["safe"]["verdict"] == "dont_ship" and cand["metrics"]["correct"]["verdict"] == "ship"
    assert cand["metrics"]["safe"]["diff"] == data["metrics"]["safe"]["candidates"][0]["overall"]["diff"]
    assert set(data["metrics"]) == set(METRICS)


def test_the_markdown_shows_the_grid_first_and_fits_a_comment(tmp_path):
    out = tmp_path / "note.md"
    run_cli("report", three_metrics(tmp_path, n=6000, safe_broken=2000, name="big.csv"), "--baseline", "r1",
            *metric_args(), "-o", out)
    text = out.read_text()
    assert len(text) <= GITHUB_COMMENT_LIMIT
    grid = text.split("\n\n")[1]
    # The metric names are escaped as every value of the note is (GitHub shows format\_ok as format_ok).
    assert grid.startswith("| candidate | verdict | correct | safe | format\\_ok |")
    assert "| r2 | ❌ **DON'T SHIP** | " in text
    assert all(f"# Metric: {m.replace('_', chr(92) + '_')}" in text for m in METRICS)
    assert "cut to keep this comment under GitHub's size limit" in text


def test_a_metric_policy_applies_to_that_metric_only(tmp_path):
    policy = tmp_path / "policy.toml"
    policy.write_text('baseline = "r1"\n[metrics.correct]\nmargin = 0.001\n')
    from releasegate.load import parse_source
    from releasegate.pipeline import run
    from releasegate.policy import load_policy_file, make_policy

    report = run([parse_source(str(three_metrics(tmp_path)))], make_policy(load_policy_file(policy)), metrics=METRICS)
    assert report.section("correct").verdicts[0].ship is False  # a 0.1-point margin cannot be shown
    assert {r.rule for r in report.section("correct").verdicts[0].reasons} == {"not_non_inferior"}
    assert report.section("format_ok").verdicts[0].ship is True
    assert {(r.metric, r.rule) for r in report.verdicts[0].reasons} >= {("correct", "not_non_inferior")}
    assert report.verdicts[0].blocking == ("correct", "safe")


def test_a_harmless_release_ships_on_every_metric(tmp_path):
    result = run_cli("check", three_metrics(tmp_path, safe_broken=0), "--baseline", "r1", *metric_args())
    assert result.output.startswith("SHIP r2: all 3 metrics pass (correct: ")
    assert result.exit_code == 0


def test_the_job_summary_holds_the_grid(tmp_path, monkeypatch):
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    result = run_cli("check", three_metrics(tmp_path), "--baseline", "r1", *metric_args())
    assert result.exit_code == 1
    text = summary.read_text()
    assert "| candidate | verdict | correct | safe | format\\_ok |" in text and "DON'T SHIP r2: safe blocks" in text


def test_a_long_layout_with_a_metric_column_is_the_same_gate(tmp_path):
    wide = three_metrics(tmp_path)
    lines = wide.read_text().splitlines()
    long = ["release,case_id,category,metric,passed"]
    for line in lines[1:]:
        release, case, category, *values = line.split(",")
        long += [f"{release},{case},{category},{m},{v}" for m, v in zip(METRICS, values)]
    path = tmp_path / "long.csv"
    path.write_text("\n".join(long) + "\n")
    a, b = tmp_path / "wide.json", tmp_path / "long.json"
    run_cli("check", wide, "--baseline", "r1", *metric_args(), "-o", a)
    result = run_cli("check", path, "--baseline", "r1", *metric_args(), "-o", b)
    assert result.output.startswith("DON'T SHIP r2: safe blocks")
    grid_a, grid_b = (json.loads(p.read_text())["candidates"] for p in (a, b))
    assert grid_a == grid_b


@pytest.mark.parametrize("mode", ["block", "warn"])
def test_a_not_proven_metric_is_said_not_proven_not_blocking(tmp_path, mode):
    """A metric with 30 cases cannot show the candidate no worse: the verdict is NOT PROVEN, and with
    not_proven = "warn" the gate passes; the headline said "b blocks (... the gate passes ...)"."""
    rows = ["release,case_id,a,b"]
    rows += [f"{r},c{i},{int(i % 9 != 0)},{int(i % 9 != 0) if i < 30 else ''}" for r in ("r1", "r2") for i in range(300)]
    path = tmp_path / "results.csv"
    path.write_text("\n".join(rows) + "\n")
    result = run_cli("check", path, "--baseline", "r1", "--metric", "a", "--metric", "b", "--missing", "drop",
                     "--not-proven", mode)
    assert result.exit_code == (3 if mode == "block" else 0), result.output
    first = result.output.splitlines()[0]
    assert first.startswith("NOT PROVEN r2: b is not proven (") and "blocks" not in first, first
