"""``releasegate plan RESULTS --gold FILE [--gold-width W]`` (issue 35 item 5): how many gold labels per release
give the corrected difference a target width, from the judge's agreement measured; the same figures as the
statistics' own function on the section's moments; the stratified allocation beside it; refusals."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from conftest import build_report, run_cli
from releasegate.stats.ppi import gold_labels_for_width

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "analyze"))
from test_judge_pipeline import _suite, _write  # noqa: E402


def _files(tmp_path, labels=150):
    results, gold, rng = _suite(3)
    gold = gold[gold["case_id"].isin(set(rng.choice(sorted(gold["case_id"].unique()), labels, replace=False)))]
    return _write(tmp_path, results, gold)


def test_plan_answers_how_many_gold_labels_a_width_needs(tmp_path):
    res, gold = _files(tmp_path)
    out = tmp_path / "plan.json"
    result = run_cli("plan", res, "--baseline", "r1", "--gold", gold, "--gold-width", "0.12", "-o", out)
    assert result.exit_code == 0, result.output
    section = build_report(res, baseline="r1", gold=str(gold)).analysis.candidates[0].sections.judge
    p = section.plan
    expected = gold_labels_for_width(p.var_gold, p.var_judge, p.cov, p.n_cases, p.labelled, 0.12)
    assert f"{expected.needed} gold-labelled cases per release" in result.output
    assert "stratified by whether the judge changed the case" in result.output
    written = json.loads(out.read_text())["gold_plans"][0]
    assert written["plan"]["needed"] == expected.needed and written["candidate"] == "r2"
    assert written["allocation"]["strata"] == ["changed by the judge", "unchanged by the judge"]
    assert 0 < written["allocation"]["design_effect"] <= 1.1
    assert written["stratified_needed"] <= expected.needed + 20
    # Without --gold-width the target is the margin (5 points): out of reach on 400 cases here.
    default = run_cli("plan", res, "--baseline", "r1", "--gold", gold)
    assert default.exit_code == 0 and "out of reach" in default.output


def test_plan_gold_refusals(tmp_path):
    res, gold = _files(tmp_path)
    alone = run_cli("plan", res, "--baseline", "r1", "--gold-width", "0.1")
    assert alone.exit_code == 2 and "--gold FILE" in alone.output
    bad = run_cli("plan", res, "--baseline", "r1", "--gold", gold, "--gold-width", "0")
    assert bad.exit_code == 2 and "--gold-width" in bad.output
    onto = run_cli("plan", res, "--baseline", "r1", "--gold", gold, "-o", gold.with_suffix(".json"))
    assert onto.exit_code == 0
    clobber = run_cli("plan", res, "--baseline", "r1", "--gold", gold, "-o", res)
    assert clobber.exit_code == 2
