"""Issue 34 items 4-6 through the pipeline: one verdict and one set of fired rules whatever the coding (one run,
two identical runs, singleton clusters), no p in the JSON the verdict does not use without saying so, errors
that block by default, and the one error budget's members in the analysis."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from conftest import build_report, run_cli

CATEGORIES = [f"k{j}" for j in range(9)]


def _pair(n: int, broke: list[int], fixed: list[int], seed: int = 0) -> pd.DataFrame:
    """One run of two releases: baseline passes 90%; the given cases broke / fixed; categories in blocks."""
    rng = np.random.default_rng(seed)
    base = (rng.random(n) < 0.9).astype(int)
    order = rng.permutation(n)
    passing, failing = [i for i in order if base[i] == 1], [i for i in order if base[i] == 0]
    cand = base.copy()
    cand[passing[:len(broke)]] = 0
    cand[failing[:len(fixed)]] = 1
    cats = [CATEGORIES[(i * 9) // n] for i in range(n)]
    ids = [f"c{i:04d}" for i in range(n)]
    return pd.DataFrame({"release": ["r1"] * n + ["r2"] * n, "case_id": ids * 2, "category": cats * 2,
                         "passed": np.r_[base, cand]})


def _codings(tmp_path, table: pd.DataFrame, name: str) -> dict:
    """The same rows as one run, as two identical runs, and with a cluster column of one case each."""
    one = tmp_path / f"{name}-one.csv"
    table.to_csv(one, index=False)
    runs = tmp_path / f"{name}-runs.csv"
    pd.concat([table.assign(run=0), table.assign(run=1)]).to_csv(runs, index=False)
    clusters = tmp_path / f"{name}-clusters.csv"
    table.assign(cluster=table["case_id"]).to_csv(clusters, index=False)
    return {"one run": one, "two identical runs": runs, "singleton clusters": clusters}


def _fired(report) -> tuple:
    v = report.verdicts[0]
    return v.ship, tuple(c.rule for c in v.checks if c.fired)


def test_the_issue_s_constructed_dataset_has_one_verdict_in_every_coding(tmp_path):
    # 1,000 cases, 9 categories, 30 broke / 14 fixed: DON'T SHIP as one run and two identical runs, and, before
    # issue 34, SHIP as singleton clusters (plain Holm: the overall p 0.0113 times 10).
    table = _pair(1000, list(range(30)), list(range(14)))
    reports = {k: build_report(p, baseline="r1", n_resamples=200) for k, p in _codings(tmp_path, table, "c").items()}
    fired = {k: _fired(r) for k, r in reports.items()}
    assert len(set(fired.values())) == 1, fired
    assert fired["one run"][0] is False and "overall_regression" in fired["one run"][1]
    overall = {k: r.analysis.candidates[0].overall for k, r in reports.items()}
    p = overall["one run"].p_adjusted
    assert all(o.p_adjusted == pytest.approx(p, rel=1e-12) for o in overall.values())
    assert all(o.ni_low == pytest.approx(overall["one run"].ni_low, rel=1e-12) for o in overall.values())
    clusters = reports["singleton clusters"].analysis.candidates[0].sections.clusters
    assert clusters.verdict_test == "singleton" and overall["singleton clusters"].method == "McNemar exact"


@pytest.mark.parametrize("seed", range(12))
def test_random_datasets_keep_their_rules_in_every_coding(tmp_path, seed):
    rng = np.random.default_rng(100 + seed)
    n = int(rng.integers(150, 400))
    b, f = int(rng.integers(0, 25)), int(rng.integers(0, 12))
    table = _pair(n, list(range(b)), list(range(f)), seed)
    fired = {k: _fired(build_report(p, baseline="r1", n_resamples=200))
             for k, p in _codings(tmp_path, table, f"r{seed}").items()}
    assert len(set(fired.values())) == 1, fired


def test_a_cr2_p_without_a_standard_error_is_null_and_the_json_names_the_p_values_no_rule_reads(tmp_path):
    # Two groups whose every case changed the same way: CR2's standard error is 0, which is no certainty.
    rows = []
    for i in range(40):
        group = "g0" if i < 20 else "g1"
        rows += [("r1", f"c{i}", group, 1), ("r2", f"c{i}", group, 0 if i % 10 == 0 else 1)]
    path = tmp_path / "two.csv"
    pd.DataFrame(rows, columns=["release", "case_id", "cluster", "passed"]).to_csv(path, index=False)
    out = tmp_path / "two.json"
    result = run_cli("report", path, "--baseline", "r1", "--no-policy", "-o", out)
    assert result.exit_code == 0, result.output
    clusters = json.loads(out.read_text())["candidates"][0]["clusters"]
    assert clusters["n_clusters"] == 2
    assert clusters["cr2_p_one_sided"] is None and clusters["cr2_p_value"] is None and clusters["cr2_t"] is None
    assert "cr2_p_one_sided" in clusters["comparison_only"] and "verdict_p_one_sided" not in clusters["comparison_only"]
    assert clusters["verdict_p_one_sided"] is not None and clusters["verdict_p_one_sided"] >= 0.25  # 2 groups


def test_a_candidate_that_errored_on_79_of_200_cases_does_not_ship(tmp_path):
    rng = np.random.default_rng(4)
    passed = (rng.random(200) < 0.9).astype(int)
    rows = [("r1", f"c{i}", passed[i], "") for i in range(200)]
    rows += [("r2", f"c{i}", passed[i], "TimeoutError: no answer in 30 s" if i < 79 else "") for i in range(200)]
    path = tmp_path / "errors.csv"
    pd.DataFrame(rows, columns=["release", "case_id", "passed", "error"]).to_csv(path, index=False)
    out = tmp_path / "errors.json"
    result = run_cli("check", path, "--baseline", "r1", "--no-policy", "-o", out)
    assert result.exit_code == 1, result.output
    cand = json.loads(out.read_text())["candidates"][0]
    guardrail = next(c for c in cand["checks"] if c["rule"] == "guardrail")
    assert guardrail["fired"] and "error_rate_increase +39.5 points" in guardrail["detail"]
    assert cand["errors"]["error_rate"]["p_adjusted"] < 1e-20
    kinds = [m["kinds"] for m in cand["budget"]["members"]]
    assert ["error_rate"] in kinds and cand["budget"]["method"] == "weighted discrete Holm"
    # The same rows without the errors ship: the pass/fail comparison alone shows nothing.
    clean = tmp_path / "clean.csv"
    pd.DataFrame(rows, columns=["release", "case_id", "passed", "error"]).assign(error="").to_csv(clean, index=False)
    assert run_cli("check", clean, "--baseline", "r1", "--no-policy").exit_code == 0


def test_the_error_limit_can_be_raised_and_a_small_significant_rise_below_it_passes(tmp_path):
    # 4,000 cases, the candidate errors on 60 more than the baseline's 40: significant, but 1.5 points < 2.
    rows = [("r1", f"c{i}", 1, "boom" if i < 40 else "") for i in range(4000)]
    rows += [("r2", f"c{i}", 1, "boom" if i < 100 else "") for i in range(4000)]
    path = tmp_path / "small.csv"
    pd.DataFrame(rows, columns=["release", "case_id", "passed", "error"]).to_csv(path, index=False)
    report = build_report(path, baseline="r1", margin=0.0)
    errors = report.analysis.candidates[0].sections.errors
    assert errors.p_adjusted < 0.05 and errors.rate.increase == pytest.approx(0.015)
    assert report.verdicts[0].ship
    strict = build_report(path, baseline="r1", margin=0.0, guardrails={"max_error_rate_increase": 0.01})
    assert not strict.verdicts[0].ship


def test_the_budget_is_on_the_analysis_with_the_critical_weight(example_report):
    r2 = next(c for c in example_report.analysis.candidates if c.name == "r2-new-prompt")
    budget = r2.sections.budget
    fraud = next(m for m in budget.members if m.label == "Fraud")
    # The categories share one weight (1/9 each); Fraud's member adds the critical weight.
    assert fraud.kinds == ("category", "critical") and fraud.weight == pytest.approx(1 / 9 + budget.critical_weight)
    # The exact conditional test's p (6 broke, none fixed: 1/64), with its attainable p-values (6 trials).
    assert fraud.trials == 6 and fraud.p_one_sided == pytest.approx(1 / 64, abs=1e-15)
    critical = r2.sections.critical.tests[0]
    assert critical.p_adjusted == fraud.p_adjusted < 0.05 and critical.blocks
    assert sum(m.weight for m in budget.members) == pytest.approx(1 + 1 + 2 * budget.critical_weight)


def test_a_previous_note_about_none_of_these_candidates_is_refused(tmp_path):
    """--previous with another comparison's note (candidates good and bad, this one cand) was taken silently:
    the comparison read as a first look, the note given counting for nothing."""
    rows = ["release,case_id,passed"] + [f"{r},c{i},{int(i % 6 != 0)}" for r in ("base", "good", "bad")
                                         for i in range(200)]
    first = tmp_path / "first.csv"
    first.write_text("\n".join(rows) + "\n")
    assert run_cli("report", first, "--baseline", "base", "-o", tmp_path / "first.json").exit_code == 0
    later = tmp_path / "later.csv"
    later.write_text("\n".join("cand," + r[5:] if r.startswith("good,") else r for r in rows
                               if not r.startswith("bad,")) + "\n")
    result = run_cli("check", later, "--baseline", "base", "--previous", tmp_path / "first.json")
    assert result.exit_code == 2, result.output
    assert "that note judged bad, good, none of the candidates compared here (cand)" in result.output, result.output
