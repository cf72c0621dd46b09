"""A release's figure named for what it is in every format: pass/fail outcomes over several runs give each
case its share of passing runs and a release its pass rate over runs, never a "mean score"; scores give a mean
score. The tables' headers, the run axis's sentences, the pull-request comment's before/after column, the
notebook view and the charts' titles and axes, on a pass/fail-with-runs input and a scores input."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import releasegate
from releasegate.render import render
from releasegate.render.charts import build_charts
from releasegate.render.chart_look import unit_words
from releasegate.render.comment import render_comment
from releasegate.render.notebook import render_notebook


def _table(kind: str) -> pd.DataFrame:
    rng = np.random.default_rng(1)
    rows = []
    for release, p in (("r1", 0.8), ("r2", 0.7)):
        for run in range(3 if kind == "runs" else 1):
            for i in range(60):
                row = {"release": release, "case_id": f"c{i:02d}", "category": "AB"[i % 2]}
                if kind == "runs":
                    row |= {"run": run, "passed": int(rng.random() < p)}
                else:
                    row["score"] = round(float(np.clip(rng.normal(p, 0.2), 0, 1)), 3)
                rows.append(row)
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def reports():
    return {kind: releasegate.compare(_table(kind), baseline="r1").report for kind in ("runs", "scores")}


def _formats(report) -> dict[str, str]:
    return {".md": render(report, ".md").decode(), ".html": render(report, ".html").decode(),
            ".json": render(report, ".json").decode(), "comment": render_comment(report),
            "notebook": render_notebook(report),
            "charts": json.dumps([[c.title, c.caption, c.spec] for c in build_charts(report.analysis)])}


def test_pass_fail_over_runs_is_a_pass_rate_in_every_format(reports):
    report = reports["runs"]
    assert report.analysis.has_runs and not report.analysis.mcnemar_path
    texts = _formats(report)
    for name, text in texts.items():
        assert "mean score" not in text.lower(), name
        assert "score units" not in text, name
    assert "| release | pass rate [95% CI] |" in texts[".md"]
    assert "pass rate <span class=\"ci\">[95% CI]</span>" in texts[".html"]
    assert "so the pass rate moves from run to run" in texts[".md"]
    agreement = json.loads(texts[".json"])["candidates"][0]["run_axis"]["agreement"]
    assert "the pass rate moves from run to run" in agreement
    assert "| case | category | pass rate before → after |" in texts["comment"]
    assert "<th>pass rate [95% CI]</th>" in texts["notebook"]
    units = unit_words(report.analysis)
    assert (units["rate"], units["diff_unit"]) == ("pass rate", "as a share")


def test_scores_are_a_mean_score(reports):
    report = reports["scores"]
    texts = _formats(report)
    assert "| release | mean score [95% CI] |" in texts[".md"]
    assert "mean score <span class=\"ci\">[95% CI]</span>" in texts[".html"]
    assert "| case | category | score before → after |" in texts["comment"]
    assert "<th>mean score [95% CI]</th>" in texts["notebook"]
    assert "pass rate" not in texts["charts"]
    units = unit_words(report.analysis)
    assert (units["rate"], units["diff_unit"]) == ("mean score", "score units")
