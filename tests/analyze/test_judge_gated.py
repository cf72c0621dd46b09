"""The rules read the corrected figures (issue 35 item 3): with gold labels and judge_correction = "ppi" (the
default) the overall comparison the rules read is the PPI++ paired difference, its one-sided p from
estimate / se and its non-inferiority bound at 1 - 2 alpha from the same se, a continuous member of the error
budget; the judge's own comparison stands beside it (``judged``, the judge section's raw figures, the JSON).
"none" gives the judge's own figures as before. A corrected figure that does not exist never reads as SHIP."""

from __future__ import annotations

import importlib.util
import json
import math
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

from conftest import build_report, run_cli
from releasegate.analyze import parameters_of
from releasegate.analyze.candidate import plan_arrays
from releasegate.analyze.judge import corrected_figures, section_from_arrays
from releasegate.decide import decide_candidate
from releasegate.errors import InputError
from releasegate.kinds import OutcomeKind
from releasegate.model import Analysis, CandidateAnalysis, CandidateSections, Decision, Exclusions
from releasegate.policy import Policy, make_policy

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_judge_pipeline import _write  # noqa: E402

STATS = Path(__file__).resolve().parents[1] / "stats"


def _ppi_py():
    """ppi_py's frozen values (scripts/ppi_py_reference.py), and the suite they were computed on."""
    spec = importlib.util.spec_from_file_location("ppi_py_values", STATS / "ppi_py_values.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sys.path.insert(0, str(STATS))
    from test_stats_ppi import _sample, _suite

    return module, _suite, _sample


def _plan(fb, fc, gb, gc, policy: Policy, **kwargs):
    corrected = corrected_figures(fb, fc, (gb, gc), policy)
    gated = policy.judge_correction == "ppi"
    result = plan_arrays(fb, fc, policy, mcnemar=True, rates=True, corrected=corrected if gated else None, **kwargs)
    return result, corrected


def _decide(fb, fc, gb, gc, policy: Policy):
    """The verdict on arrays, wired as analyze_candidate wires a candidate with gold labels."""
    result, corrected = _plan(fb, fc, gb, gc, policy)
    judged = result.overall if result.judged is None else result.judged
    section = section_from_arrays(("r1", "r2"), (fb, fc), (gb, gc), fb, fc, (gb, gc), judged, policy,
                                  corrected=corrected, gated=policy.judge_correction == "ppi")
    cand = CandidateAnalysis("r2", result.overall, result.categories, (), (), Exclusions(), result.power,
                             CandidateSections(judge=section, budget=result.budget), judged=result.judged)
    analysis = Analysis("r1", OutcomeKind.BINARY, int(fb.size), (), (cand,), parameters_of(policy), False, False,
                        False)
    return decide_candidate(cand, analysis, policy), cand


@pytest.mark.parametrize("seed, n", [(1, 50), (4, 150), (9, 150)])
def test_the_corrected_overall_figure_is_ppi_py_with_its_normal_tests(seed, n):
    """The interval is ppi_py's (frozen); the one-sided p and the non-inferiority bound are scipy's normal
    functions on the se that interval implies, computed here from the frozen values alone."""
    values, suite, sample = _ppi_py()
    rng, yb, yc, fb, fc = suite(seed)
    lab = sample(rng, yb.size, n)
    gb, gc = np.where(lab, yb, np.nan), np.where(lab, yc, np.nan)
    policy = Policy()
    result, _ = _plan(fb, fc, gb, gc, policy)
    o = result.overall
    estimate, low, high = values.PAIRED[(seed, n)]
    assert (o.diff, o.ci_low, o.ci_high) == pytest.approx((estimate, low, high), abs=1e-12)
    se = (high - low) / (2 * norm.ppf(0.975))
    assert o.p_one_sided == pytest.approx(norm.cdf(estimate / se), rel=1e-9)
    assert o.p_value == pytest.approx(2 * norm.sf(abs(estimate) / se), rel=1e-9)
    assert (o.ni_low, o.ni_high) == pytest.approx((estimate - norm.ppf(0.95) * se, estimate + norm.ppf(0.95) * se),
                                                  abs=1e-12)
    assert o.method == "PPI++ corrected (normal)" and o.trials is None
    # Alone in the budget (no category, no error column) its adjusted p is its own; a continuous member.
    assert o.p_adjusted == pytest.approx(o.p_one_sided)
    assert result.budget.members[0].trials is None and result.budget.members[0].p_one_sided == o.p_one_sided
    # The judge's own comparison is kept beside it, untouched by the budget.
    assert result.judged.method == "McNemar exact" and math.isnan(result.judged.p_adjusted)
    # The power is the normal formula on the same se at the budget's level.
    assert result.power.mde == pytest.approx((norm.ppf(1 - result.power.level) + norm.ppf(0.8)) * se, rel=1e-9)


def test_the_corrected_member_shares_the_budget_with_the_categories():
    """With categories the corrected overall test is one continuous member beside the categories' exact
    tests: under weighted Holm (a correction scipy-free to check by hand: the overall weighs 1, the three
    categories share 1) its adjusted p is the step-down's."""
    values, suite, sample = _ppi_py()
    rng, yb, yc, fb, fc = suite(4)
    lab = sample(rng, yb.size, 150)
    gb, gc = np.where(lab, yb, np.nan), np.where(lab, yc, np.nan)
    codes = np.arange(fb.size) % 3
    policy = Policy(correction="holm")
    result, _ = _plan(fb, fc, gb, gc, policy, category_codes=codes, category_labels=["a", "b", "c"])
    p = np.array([result.overall.p_one_sided, *(c.p_one_sided for c in result.categories)])
    w = np.array([1.0, 1 / 3, 1 / 3, 1 / 3])
    order = np.argsort(p / w, kind="stable")
    remaining = np.cumsum(w[order][::-1])[::-1]
    adjusted = np.maximum.accumulate(np.minimum(1.0, p[order] * remaining / w[order]))
    expected = np.empty_like(p)
    expected[order] = adjusted
    assert result.overall.p_adjusted == pytest.approx(expected[0])
    assert [c.p_adjusted for c in result.categories] == pytest.approx(list(expected[1:]))


def _unequal_suite(seed: int, n: int, labels: int):
    """The issue's example: true 0.80 / 0.75 (paired), the judge TPR 0.9 on both, FPR 0.1 on r1's answers and
    0.4 on r2's; ``labels`` paired gold labels at random."""
    rng = np.random.default_rng(seed)
    u = rng.random(n)
    yb = (u < 0.80).astype(float)
    yc = ((u < 0.70) | ((u >= 0.80) & (u < 0.85))).astype(float)
    fb = np.where(yb == 1, rng.random(n) < 0.9, rng.random(n) < 0.1).astype(float)
    fc = np.where(yc == 1, rng.random(n) < 0.9, rng.random(n) < 0.4).astype(float)
    lab = np.zeros(n, bool)
    lab[rng.choice(n, labels, replace=False)] = True
    return fb, fc, np.where(lab, yb, np.nan), np.where(lab, yc, np.nan)


def test_raw_shows_a_gain_the_corrected_figure_shows_the_regression_and_blocks_it():
    """2,000 cases, 1,000 paired labels: the raw judge shows r2 better; the corrected difference shows the real
    5-point regression significantly, so overall_regression says DON'T SHIP. Read raw, nothing but the judge
    gate holds it."""
    fb, fc, gb, gc = _unequal_suite(3, 2000, 1000)
    verdict, cand = _decide(fb, fc, gb, gc, Policy())
    assert cand.judged.diff > 0.02 and cand.judged.p_one_sided > 0.5  # the judge: a gain
    assert cand.overall.ci_high < 0 and cand.overall.p_adjusted < 0.05  # corrected: the regression
    assert verdict.decision is Decision.DONT_SHIP
    assert [r.rule for r in verdict.reasons][0] == "overall_regression"
    assert "PPI++ corrected" in verdict.reasons[0].message
    raw, raw_cand = _decide(fb, fc, gb, gc, Policy(judge_correction="none"))
    assert raw_cand.judged is None and raw_cand.overall.method == "McNemar exact"
    assert raw_cand.overall.diff == cand.judged.diff and raw_cand.overall.p_adjusted > 0.5
    assert [r.rule for r in raw.reasons] == ["judge_unreliable"] and raw.decision is Decision.NOT_PROVEN


def _issue_example_files(tmp_path):
    """The issue's example at 150 paired labels of 400 cases, written as a results file and a gold file."""
    fb, fc, gb, gc = _unequal_suite(10, 400, 150)
    rows = [{"release": r, "case_id": f"c{i:03d}", "passed": int(v)} for r, f in (("r1", fb), ("r2", fc))
            for i, v in enumerate(f)]
    gold = [{"release": r, "case_id": f"c{i:03d}", "label": int(v)} for r, g in (("r1", gb), ("r2", gc))
            for i, v in enumerate(g) if v == v]
    res, gold_path = _write(tmp_path, pd.DataFrame(rows), pd.DataFrame(gold))
    return res, gold_path


def test_the_issue_example_through_the_pipeline_both_ways(tmp_path):
    """The issue's example at 150 paired labels of 400 cases, through the command line: not SHIP with the
    corrected figure read (too wide to show r2 no worse), and the JSON says which figure the rules read."""
    res, gold_path = _issue_example_files(tmp_path)
    notes = {}
    for reading in ("ppi", "none"):
        (tmp_path / f"{reading}.toml").write_text(f'judge_correction = "{reading}"\n')
        out = tmp_path / f"{reading}.json"
        result = run_cli("report", res, "--baseline", "r1", "--gold", gold_path, "--policy",
                         tmp_path / f"{reading}.toml", "-o", out, "-o", tmp_path / f"{reading}.md")
        assert result.exit_code == 0, result.output
        notes[reading] = json.loads(out.read_text())
    ppi, raw = notes["ppi"]["candidates"][0], notes["none"]["candidates"][0]
    assert ppi["verdict"] != "ship" and ppi["judge"]["gated"] == "corrected"
    assert ppi["overall"]["method"] == "PPI++ corrected (normal)"
    assert ppi["judged"]["method"] == "McNemar exact" and ppi["judged"]["diff"] > 0
    assert ppi["overall"]["diff"] == pytest.approx(ppi["judge"]["corrected"]["estimate"])
    assert ppi["overall"]["p_one_sided"] == pytest.approx(ppi["judge"]["test"]["p_regression"])
    assert ppi["judge"]["raw_diff"] == ppi["judged"]["diff"]
    assert ppi["judge"]["raw_p_one_sided"] == pytest.approx(ppi["judged"]["p_one_sided"])
    assert raw["judge"]["gated"] == "raw" and "judged" not in raw and raw["overall"]["method"] == "McNemar exact"
    assert notes["ppi"]["policy"]["judge_correction"] == "ppi"
    # The Markdown says which figures the verdict read, in the judge section and under the summary.
    md = (tmp_path / "ppi.md").read_text()
    assert "corrected (PPI++, read by the rules)" in md
    assert 'The verdict read the corrected difference (judge\\_correction = "ppi")' in md
    assert "the rules read the difference corrected by the gold labels for r2" in md
    md_raw = (tmp_path / "none.md").read_text()
    assert "(raw, read by the rules)" in md_raw and "The verdict read the judge's own difference" in md_raw


def _agreeing_suite(n: int = 1000):
    """A judge that agrees with every human label, on releases whose judged outcomes barely differ: the gold
    sample holds 20 cases passing on both releases and 20 failing on both, so every labelled per-case
    difference is 0 and the corrected difference's standard error is 0 (degenerate)."""
    rng = np.random.default_rng(2)
    fb = (rng.random(n) < 0.8).astype(float)
    fc = fb.copy()
    flip = rng.choice(n, 10, replace=False)
    fc[flip] = 1 - fc[flip]
    gb, gc = np.full(n, np.nan), np.full(n, np.nan)
    same = np.flatnonzero(fb == fc)
    picks = np.concatenate([same[fb[same] == 1][:20], same[fb[same] == 0][:20]])
    gb[picks], gc[picks] = fb[picks], fc[picks]
    return fb, fc, gb, gc


@pytest.mark.parametrize("margin", [0.05, 0.0])
def test_a_degenerate_corrected_figure_never_reads_as_ship(margin):
    fb, fc, gb, gc = _agreeing_suite()
    verdict, cand = _decide(fb, fc, gb, gc, Policy(margin=margin))
    section = cand.sections.judge
    assert section.corrected.degenerate and not section.test.defined
    assert math.isnan(cand.overall.p_one_sided) and math.isnan(cand.overall.ni_low)
    assert verdict.decision is Decision.NOT_PROVEN
    fired = [r.rule for r in verdict.reasons]
    assert "judge_unreliable" in fired and ("not_non_inferior" in fired) == (margin > 0)
    gate = next(c for c in verdict.checks if c.rule == "judge_unreliable")
    corrected = next(f for f in gate.figures if f.method == "PPI++ corrected difference")
    assert corrected.fired and corrected.unmeasured == "degenerate"
    # The judge's own figures on the same data: the judge agrees with the humans, and the release ships.
    raw, _ = _decide(fb, fc, gb, gc, Policy(margin=margin, judge_correction="none"))
    assert raw.decision is Decision.SHIP


def test_an_undefined_corrected_figure_never_reads_as_ship():
    """One gold-labelled case per release: no corrected figure (fewer than MIN_LABELLED); the gate fires
    and nothing reads as SHIP, with the margin off too."""
    fb, fc, _, _ = _agreeing_suite()
    gb, gc = np.full(fb.size, np.nan), np.full(fb.size, np.nan)
    gb[0], gc[0] = fb[0], fc[0]
    for margin in (0.05, 0.0):
        verdict, cand = _decide(fb, fc, gb, gc, Policy(margin=margin))
        assert not cand.sections.judge.corrected.defined and math.isnan(cand.overall.diff)
        assert verdict.decision is not Decision.SHIP
        gate = next(c for c in verdict.checks if c.rule == "judge_unreliable")
        assert next(f for f in gate.figures if f.method == "PPI++ corrected difference").fired
        assert math.isnan(cand.power.mde) and cand.power.undetectable == "undefined"


def test_a_degenerate_corrected_figure_through_the_pipeline_is_not_proven(tmp_path):
    fb, fc, gb, gc = _agreeing_suite()
    rows = [{"release": r, "case_id": f"c{i:04d}", "passed": int(v)} for r, f in (("r1", fb), ("r2", fc))
            for i, v in enumerate(f)]
    gold = [{"release": r, "case_id": f"c{i:04d}", "label": int(v)} for r, g in (("r1", gb), ("r2", gc))
            for i, v in enumerate(g) if v == v]
    res, gold_path = _write(tmp_path, pd.DataFrame(rows), pd.DataFrame(gold))
    report = build_report(res, baseline="r1", gold=str(gold_path))
    verdict = report.verdicts[0]
    assert verdict.decision is Decision.NOT_PROVEN
    reason = next(r for r in verdict.reasons if r.rule == "judge_unreliable")
    assert "cannot be measured" in reason.message and "no spread" in reason.message
    out = tmp_path / "note.md"
    assert run_cli("report", res, "--baseline", "r1", "--gold", gold_path, "-o", out, "-o",
                   tmp_path / "note.json", "-o", tmp_path / "note.html").exit_code == 0
    assert "which cannot be measured here, so the verdict cannot be SHIP" in out.read_text()
    gate = run_cli("check", res, "--baseline", "r1", "--gold", gold_path)
    assert gate.exit_code == 3
    assert build_report(res, baseline="r1", gold=str(gold_path), judge_correction="none").verdicts[0].decision \
        is Decision.SHIP


def test_gold_labels_that_show_the_judge_no_error_are_not_proven_with_a_label_dropped(tmp_path):
    """The agreeing suite's gold file less one row: per release now, and its standard error is no longer 0
    (the judge-only cases' sampling), but no label shows the judge wrong, so the interval counts none of its
    error. It was SHIP (-0.2 points [-0.9, +0.4]) where the whole file is NOT PROVEN; now both are, and say why."""
    fb, fc, gb, gc = _agreeing_suite()
    rows = [{"release": r, "case_id": f"c{i:04d}", "passed": int(v)} for r, f in (("r1", fb), ("r2", fc))
            for i, v in enumerate(f)]
    gold = [{"release": r, "case_id": f"c{i:04d}", "label": int(v)} for r, g in (("r1", gb), ("r2", gc))
            for i, v in enumerate(g) if v == v]
    res, gold_path = _write(tmp_path, pd.DataFrame(rows), pd.DataFrame(gold[1:]))
    gate = run_cli("check", res, "--baseline", "r1", "--gold", gold_path)
    assert gate.exit_code == 3, gate.output
    out = tmp_path / "note.json"
    assert run_cli("report", res, "--baseline", "r1", "--gold", gold_path, "-o", out).exit_code == 0
    cand = json.loads(out.read_text())["candidates"][0]
    corrected = cand["judge"]["corrected"]
    assert corrected["design"] == "per_release" and corrected["se"] > 0 and corrected["degenerate"]
    assert cand["verdict"] == "not_proven"
    reason = next(r for r in cand["reasons"] if r["rule"] == "judge_unreliable")
    assert "the gold labels show no error of the judge's" in reason["message"]
    # One label that shows the judge wrong gives the figure back to the rules.
    gold[5]["label"] = 1 - gold[5]["label"]
    res, gold_path = _write(tmp_path, pd.DataFrame(rows), pd.DataFrame(gold[1:]))
    assert run_cli("report", res, "--baseline", "r1", "--gold", gold_path, "-o", out).exit_code == 0
    assert not json.loads(out.read_text())["candidates"][0]["judge"]["corrected"]["degenerate"]


def test_the_policy_key_is_checked():
    assert Policy().judge_correction == "ppi"
    assert make_policy({"judge_correction": "none"}).judge_correction == "none"
    with pytest.raises(InputError, match="unknown judge_correction 'raw'; expected one of ppi, none"):
        make_policy({"judge_correction": "raw"})
    with pytest.raises(InputError, match="judge_correction must be text"):
        make_policy({"judge_correction": 1})
    # Absent from the provenance without gold labels, as the other judge keys are.
    assert "judge_correction" not in Policy().as_dict()
    assert Policy(gold="g.csv").as_dict()["judge_correction"] == "ppi"


def test_categories_keep_the_judges_own_tests_and_the_note_says_so(tmp_path):
    fb, fc, gb, gc = _unequal_suite(5, 600, 300)
    cats = ["a", "b", "c"]
    rows = [{"release": r, "case_id": f"c{i:03d}", "passed": int(v), "category": cats[i % 3]}
            for r, f in (("r1", fb), ("r2", fc)) for i, v in enumerate(f)]
    gold = [{"release": r, "case_id": f"c{i:03d}", "label": int(v)} for r, g in (("r1", gb), ("r2", gc))
            for i, v in enumerate(g) if v == v]
    res, gold_path = _write(tmp_path, pd.DataFrame(rows), pd.DataFrame(gold))
    report = build_report(res, baseline="r1", gold=str(gold_path))
    cand = report.analysis.candidates[0]
    assert cand.overall.method == "PPI++ corrected (normal)"
    assert [c.method for c in cand.categories] == ["McNemar exact"] * 3
    members = cand.sections.budget.members
    assert members[0].trials is None and all(m.trials == c.fixed + c.broke for m, c in zip(members[1:], cand.categories))
    out = tmp_path / "note.md"
    assert run_cli("report", res, "--baseline", "r1", "--gold", gold_path, "-o", out).exit_code == 0
    assert "The categories and critical categories are tested on the judge's verdicts" in out.read_text()


def test_the_overall_chart_names_the_corrected_difference(tmp_path):
    """The overall difference chart plots what the rules read: with gold labels the corrected difference, its row
    named so, beside a summary table of the judge's own figures."""
    from releasegate.render.charts_overall import overall_chart

    res, gold_path = _issue_example_files(tmp_path)
    labels = {}
    for reading in ("ppi", "none"):
        analysis = build_report(res, baseline="r1", gold=str(gold_path),
                                judge_correction=reading).sections[0].analysis
        labels[reading] = json.dumps(overall_chart(analysis).spec, default=str)
    assert "r2 (corrected): " in labels["ppi"] and "r2 (corrected)" not in labels["none"]
