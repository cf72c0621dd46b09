"""Churn measured from a baseline rerun or the baseline's runs (issue 21 item 3), through the pipeline and
the command line: the section in every format, the critical test with the rerun, the fragile warnings, and
what cannot be measured refused."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from conftest import build_report, run_cli
from releasegate.stats.churn import churn_net_range


def _write(tmp_path, releases: dict[str, np.ndarray], categories=None, runs=None):
    rows = []
    for name, outcome in releases.items():
        for i, v in enumerate(outcome):
            row = {"case_id": f"c{i:03d}", "release": name, "passed": int(v)}
            if categories is not None:
                row["category"] = categories[i]
            if runs is not None:
                row["run"] = runs[name][i]
            rows.append(row)
    path = tmp_path / "results.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def _suite(n=400, fail=40):
    base = np.ones(n, dtype=int)
    base[:fail] = 0
    return base


def test_rerun_is_not_a_candidate_and_churn_is_measured_per_category(tmp_path):
    base = _suite()
    rerun = base.copy()
    rerun[:20] = 1         # 20 failing cases pass on the rerun
    rerun[100:120] = 0     # 20 passing cases fail on it
    cats = ["A" if i < 200 else "B" for i in range(400)]
    path = _write(tmp_path, {"live": base, "again": rerun, "cand": base.copy()}, cats)
    report = build_report(path, baseline="live", baseline_rerun="again")
    a = report.analysis
    assert [c.name for c in a.candidates] == ["cand"]
    assert [r.name for r in a.releases] == ["live", "cand"]
    churn = a.candidates[0].sections.churn
    assert churn.source == "rerun" and churn.rerun == "again"
    assert churn.share == pytest.approx(40 / 400)
    assert [(g.label, g.cases, g.share) for g in churn.by_category] == [("A", 200, 0.2), ("B", 200, 0.0)]
    assert churn.fragile == ()  # nothing changed: the candidate ships and lost nothing


def test_the_critical_test_uses_the_rerun_and_the_lesson_case_still_blocks(tmp_path):
    # The lesson's Fraud: 45 passing cases of 50, 6 broken, none fixed. Without a rerun the exact unconditional
    # p = 0.0076733 (critical_test = "unconditional"; R, tests/stats/test_stats_unconditional.py); with a rerun
    # that agrees with the baseline the exchangeability test gives (1/3)^6.
    base = np.r_[np.ones(45, int), np.zeros(5, int), np.ones(350, int)]
    cand = base.copy()
    cand[:6] = 0
    cats = ["Fraud"] * 50 + ["Other"] * 350
    path = _write(tmp_path, {"live": base, "again": base.copy(), "cand": cand}, cats)
    plain = build_report(_write(tmp_path, {"live": base, "cand": cand}, cats), baseline="live",
                         critical=("Fraud",), critical_test="unconditional")
    test = plain.analysis.candidates[0].sections.critical.tests[0]
    assert test.p_regression == pytest.approx(0.007673338916, rel=1e-9) and test.blocks
    assert plain.analysis.candidates[0].sections.churn is None
    path = _write(tmp_path, {"live": base, "again": base.copy(), "cand": cand}, cats)
    with_rerun = build_report(path, baseline="live", baseline_rerun="again", critical=("Fraud",),
                              critical_test="unconditional")
    test = with_rerun.analysis.candidates[0].sections.critical.tests[0]
    # Both tests must show it (issue 34 item 7): the member's p is the larger, the unconditional test's here.
    assert "exchangeability" in test.method and test.rerun_p == pytest.approx(3.0 ** -6, rel=1e-12)
    assert test.p_regression == pytest.approx(0.007673338916, rel=1e-9) and test.blocks
    assert not with_rerun.verdicts[0].ship


def test_a_rerun_that_shows_the_baseline_flaky_where_it_broke_removes_the_block(tmp_path):
    # The same six broken Fraud cases, but the rerun fails them too: the baseline's own churn explains them,
    # the exchangeability test does not show a regression, and the block goes (a rerun never adds one).
    base = np.r_[np.ones(45, int), np.zeros(5, int), np.ones(350, int)]
    cand = base.copy()
    cand[:6] = 0
    again = base.copy()
    again[:6] = 0
    cats = ["Fraud"] * 50 + ["Other"] * 350
    report = build_report(_write(tmp_path, {"live": base, "again": again, "cand": cand}, cats), baseline="live",
                          baseline_rerun="again", critical=("Fraud",))
    test = report.analysis.candidates[0].sections.critical.tests[0]
    # Each of the six has one pass of three, the baseline's: P(Bin(6, 2/3) >= 6) = (2/3)^6.
    assert test.rerun_p == pytest.approx((2 / 3) ** 6) and test.p_regression == test.rerun_p and not test.blocks
    assert report.analysis.candidates[0].sections.critical.tests[0].p_adjusted > 0.05


def test_a_block_within_churn_is_flagged_fragile_in_every_format(tmp_path):
    base = _suite()
    rerun = base.copy()
    rerun[:20] = 1
    rerun[100:120] = 0  # churn 0.10
    high = churn_net_range(400, 0.10).high
    cand = base.copy()
    cand[200:200 + high] = 0  # broke = high, fixed 0: the exact McNemar blocks, churn alone gives as much
    path = _write(tmp_path, {"live": base, "again": rerun, "cand": cand})
    out = {s: tmp_path / f"r.{s}" for s in ("json", "md", "html")}
    result = run_cli("report", path, "--baseline", "live", "--baseline-rerun", "again", "--no-policy",
                     *[x for p in out.values() for x in ("-o", p)])
    assert result.exit_code == 0, result.output
    data = json.loads(out["json"].read_text())
    churn = data["candidates"][0]["churn"]
    assert churn["share"] == pytest.approx(0.10) and churn["source"] == "rerun"
    assert [f["label"] for f in churn["fragile"]] == ["overall"] and churn["fragile"][0]["blocks"]
    assert any("Fragile one-run verdict" in w for w in data["candidates"][0]["warnings"])
    for suffix in ("md", "html"):
        text = out[suffix].read_text()
        assert "changes outcome on 10.0% of cases between two runs" in text
        assert "Fragile one-run verdict" in text
    # One break fewer than churn alone gives is still fragile; far beyond it is not.
    cand2 = base.copy()
    cand2[200:200 + 3 * high] = 0
    strong = build_report(_write(tmp_path, {"live": base, "again": rerun, "cand": cand2}), baseline="live",
                          baseline_rerun="again")
    assert strong.analysis.candidates[0].sections.churn.fragile == ()


def test_a_pass_that_lost_more_than_churn_gives_is_flagged(tmp_path):
    # Category k0 (40 of 400 cases, ten categories) loses 3 cases, none fixed: exact p = 1/8, it does not
    # block, yet churn at 2.5% gives a net loss of at most 2 on 40 cases.
    n = 400
    base = np.ones(n, int)
    rerun = base.copy()
    rerun[300:310] = 0  # churn 10 / 400
    cats = [f"k{i // 40}" for i in range(n)]
    cand = base.copy()
    cand[:3] = 0
    report = build_report(_write(tmp_path, {"live": base, "again": rerun, "cand": cand}, cats), baseline="live",
                          baseline_rerun="again")
    cand_analysis = report.analysis.candidates[0]
    k0 = next(c for c in cand_analysis.categories if c.label == "k0")
    assert k0.p_adjusted >= 0.05
    fragile = {f.label: f for f in cand_analysis.sections.churn.fragile}
    assert churn_net_range(40, 10 / 400).high < 3
    assert "k0" in fragile and not fragile["k0"].blocks


def test_several_baseline_runs_give_the_churn_without_a_rerun(tmp_path):
    rows = []
    for i in range(40):
        for run in range(3):
            live = 1 if (i >= 4 or run == 0) else 0  # cases 0-3 pass once in three runs
            rows.append({"case_id": f"c{i}", "release": "live", "run": run, "passed": live})
            rows.append({"case_id": f"c{i}", "release": "cand", "run": run, "passed": live})
    path = tmp_path / "runs.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    churn = build_report(path, baseline="live").analysis.candidates[0].sections.churn
    # k = 1 of R = 3: 2 * 1 * 2 / (3 * 2) = 2/3 on 4 cases of 40.
    assert churn.source == "runs" and churn.share == pytest.approx(4 * (2 / 3) / 40)
    assert (churn.runs_min, churn.runs_max) == (3, 3) and not churn.one_run and churn.fragile == ()


@pytest.mark.parametrize(("args", "needle"), [
    (("--baseline-rerun", "nope", "--candidate", "cand"), "unknown baseline_rerun 'nope'"),
    (("--baseline-rerun", "live", "--candidate", "cand"), "is also baseline"),
    (("--baseline-rerun", "cand", "--candidate", "cand"), "is also a candidate"),
    (("--baseline-rerun", "short"), "lacks 1 of the baseline's 400 cases"),
])
def test_what_cannot_be_measured_is_refused_in_one_line(tmp_path, args, needle):
    base = _suite()
    path = _write(tmp_path, {"live": base, "cand": base.copy(), "short": base.copy()})
    table = pd.read_csv(path)
    table = table[~((table["release"] == "short") & (table["case_id"] == "c000"))]
    table.to_csv(path, index=False)
    out = tmp_path / "r.json"
    result = run_cli("check", path, "--baseline", "live", "--no-policy", *args, "-o", out)
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0] and "Traceback" not in result.output
    assert not out.exists()


def test_a_rerun_that_asked_other_questions_under_the_same_ids_is_refused(tmp_path):
    # The rerun's c000-c004 are other questions: their churn would compare two questions, so it is refused in one
    # line, as a rerun lacking a case is, and --allow-changed (for candidates) does not let it through.
    rows = [{"case_id": f"c{i:03d}", "release": r, "passed": int(i % 9 != 0),
             "input": f"question {i}" + (" (replaced)" if r == "again" and i < 5 else "")}
            for r in ("live", "again", "cand") for i in range(200)]
    path = tmp_path / "results.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    for extra in ((), ("--allow-changed",)):
        result = run_cli("check", path, "--baseline", "live", "--baseline-rerun", "again", *extra)
        assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
        assert ("baseline_rerun 'again' has other content than 'live' under the same id for 5 case(s) (e.g. 'c000': "
                "'question 0' in 'live', 'question 0 (replaced)' in 'again')") in result.output
    same = pd.DataFrame([dict(r, input=r["input"].replace(" (replaced)", "")) for r in rows])
    same.to_csv(path, index=False)
    assert run_cli("check", path, "--baseline", "live", "--baseline-rerun", "again").exit_code == 0
