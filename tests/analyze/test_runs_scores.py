"""Several runs per case and continuous scores, through the whole pipeline (CSV -> JSON and Markdown report):
the paired-mean path, the run axis beside the case axis, McNemar on majorities, and the words the report says.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import scipy.stats

from conftest import run_cli
from releasegate.analyze import items
from releasegate.stats.mcnemar import mcnemar_test
from releasegate.stats.power import minimum_detectable_difference

# From shared/reference/stat-vectors.json (statsmodels 0.15, scipy 1.17, R), entries continuous_paired and power.
VECTORS = {
    "continuous_paired": {
        "base": [0.7126, 0.6868, 0.764, 0.7105, 0.6464, 0.7362, 0.8304, 0.7947, 0.6296, 0.5735, 0.6377, 0.7041],
        "cand": [0.5663, 0.6459, 0.6717, 0.6439, 0.5892, 0.6904, 0.821, 0.8168, 0.5932, 0.6118, 0.5744, 0.6917],
        "d_cand_minus_base": [-0.1463, -0.0409, -0.0923, -0.0666, -0.0572, -0.0458, -0.0094, 0.0221, -0.0364,
                              0.0383, -0.0633, -0.0124],
        "mean_d": -0.042516666666666654,
        "sd_d": 0.049761336457742035,
        "paired_t": {"p_two_sided": 0.012980651512273214, "ci95": [-0.07413351145297699, -0.010899821880356361]},
        "signflip_exact_p_two_sided": 0.01220703125,
        "noninferiority_paired_t_margin_0.05": {"t": 0.5209471636403594, "p_one_sided": 0.30636466010347285},
    },
    "power": {"case2_mde": {"omega_sd_of_d": 0.3, "n": 400, "mde": 0.042023778271694526}},
}


def report(tmp_path: Path, frame: pd.DataFrame, *args: str) -> tuple[dict, str]:
    """Write the frame as CSV, run `releasegate report` on it and return (JSON, Markdown)."""
    source = tmp_path / "results.csv"
    frame.to_csv(source, index=False)
    out_json, out_md = tmp_path / "r.json", tmp_path / "r.md"
    result = run_cli("report", source, "--baseline", "base", *args, "-o", out_json, "-o", out_md)
    assert result.exit_code in (0,), result.output
    return json.loads(out_json.read_text()), out_md.read_text()


def long_frame(base: np.ndarray, cand: np.ndarray, value: str = "score", **columns) -> pd.DataFrame:
    """(runs, cases) arrays of the two releases -> one row per (release, case, run)."""
    base, cand = np.atleast_2d(base), np.atleast_2d(cand)
    runs, n = base.shape
    frames = []
    for release, values in (("base", base), ("cand", cand)):
        for run in range(runs):
            frame = pd.DataFrame({"release": release, "case_id": [f"q{i:03d}" for i in range(n)],
                                  value: values[run]})
            if runs > 1:
                frame["run"] = run
            for name, column in columns.items():
                frame[name] = column
            frames.append(frame)
    return pd.concat(frames, ignore_index=True)


# ------------------------------------------------------------------------------------------ continuous vectors


def test_continuous_vectors_through_the_pipeline(tmp_path):
    v = VECTORS["continuous_paired"]
    data, md = report(tmp_path, long_frame(np.array(v["base"]), np.array(v["cand"])))
    assert data["outcome_kind"] == "continuous"
    cand = data["candidates"][0]
    o = cand["overall"]
    assert o["method"] == "paired t"
    assert o["diff"] == pytest.approx(v["mean_d"], rel=1e-9)
    assert o["p_value"] == pytest.approx(v["paired_t"]["p_two_sided"], rel=1e-9)
    assert o["p_one_sided"] == pytest.approx(v["paired_t"]["p_two_sided"] / 2, rel=1e-9)
    assert [o["ci_low"], o["ci_high"]] == pytest.approx(v["paired_t"]["ci95"], rel=1e-9)
    # improved / worsened counts replace fixed / broke
    d = np.array(v["d_cand_minus_base"])
    assert (o["fixed"], o["broke"]) == (int((d > 0).sum()), int((d < 0).sum())) == (2, 10)
    axis = cand["item_axis"]
    assert axis["signflip_p_value"] == v["signflip_exact_p_two_sided"]
    assert axis["signflip_method"] == "exact, all 4,096 sign assignments"
    assert axis["sd_diff"] == pytest.approx(v["sd_d"], rel=1e-9)
    # Non-inferiority at margin 0.05: the paired t test of d > -0.05 (vectors) and the 90% interval's lower bound
    # tell the same story, and the rule fires.
    ni = v["noninferiority_paired_t_margin_0.05"]
    assert (o["diff"] + 0.05) / axis["se"] == pytest.approx(ni["t"], rel=1e-9)
    assert ni["p_one_sided"] > 0.05 and o["ni_low"] < -0.05
    assert o["ni_low"] == pytest.approx(v["mean_d"] - scipy.stats.t.ppf(0.95, 11) * axis["se"], rel=1e-9)
    rules = [r["rule"] for r in cand["reasons"]]
    assert rules == ["overall_regression", "not_non_inferior"]
    assert cand["headline"].startswith("DON'T SHIP cand: significant overall regression: overall -0.043")
    assert "one-sided paired t p = 0.006" in cand["headline"]
    assert "#### cand: 10 worsened (lower on cand than on base; largest drop first)" in md
    assert "2 improved cases on cand" in md


def test_release_rates_use_a_t_interval(tmp_path):
    v = VECTORS["continuous_paired"]
    data, _ = report(tmp_path, long_frame(np.array(v["base"]), np.array(v["cand"])))
    rate = data["releases"][0]["rate"]
    ref = scipy.stats.ttest_1samp(v["base"], 0).confidence_interval(0.95)
    assert [rate["ci_low"], rate["ci_high"]] == pytest.approx([ref.low, ref.high], rel=1e-9)


def test_power_uses_the_sd_of_the_differences(tmp_path):
    # Power vectors, case2_mde: sd of d 0.3, n 400. The gate is one-sided; the reference is two-sided.
    d = np.where(np.arange(400) % 2 == 0, 0.3, -0.3)  # population sd exactly 0.3, mean 0
    data, _ = report(tmp_path, long_frame(np.full(400, 0.5), 0.5 + d))
    power = data["candidates"][0]["power"]
    assert power["sd_of_difference"] == pytest.approx(0.3, rel=1e-12)
    assert power["mde"] == pytest.approx(minimum_detectable_difference(0.3, 400, 0.05, 0.8, True).mde, rel=1e-12)
    assert minimum_detectable_difference(power["sd_of_difference"], 400, one_sided=False).mde == pytest.approx(
        VECTORS["power"]["case2_mde"]["mde"], rel=1e-9)


def test_pass_threshold_turns_scores_into_the_binary_plan(tmp_path):
    v = VECTORS["continuous_paired"]
    data, _ = report(tmp_path, long_frame(np.array(v["base"]), np.array(v["cand"])), "--pass-threshold", "0.65")
    o = data["candidates"][0]["overall"]
    assert data["outcome_kind"] == "binary" and o["method"] == "McNemar exact"
    base, cand = np.array(v["base"]) >= 0.65, np.array(v["cand"]) >= 0.65
    fixed, broke = int((~base & cand).sum()), int((base & ~cand).sum())
    assert (o["fixed"], o["broke"]) == (fixed, broke)
    assert o["p_value"] == pytest.approx(mcnemar_test(fixed, broke).p_two_sided)
    assert "item_axis" not in data["candidates"][0]


def test_rounding_noise_is_not_a_change(tmp_path):
    # The same three scores in another run order: the means differ in the last bit at most, never a "worsened".
    scores = np.array([[0.1, 0.7], [0.2, 0.3], [0.3, 0.9]])
    frame = long_frame(scores, scores[::-1], category=["Safety", "Safety"])
    data, _ = report(tmp_path, frame, "--critical", "Safety")
    cand = data["candidates"][0]
    assert (cand["overall"]["fixed"], cand["overall"]["broke"]) == (0, 0)
    assert cand["verdict"] == "ship" and cand["overall"]["degenerate"]


def test_sign_flip_method_follows_the_number_of_changed_cases():
    policy = type("P", (), {"n_resamples": 2000, "seed": 1})()
    rng = np.random.default_rng(0)
    assert items.signflip(rng.normal(size=20), policy)[2:] == ("exact", 1_048_576)
    assert items.signflip(rng.normal(size=21), policy)[2:] == ("monte_carlo", 2000)
    assert items.signflip(rng.normal(size=2001), policy)[2] == "normal"
    # zeros are not changes: 30 cases of which 20 changed is still exact
    d = np.concatenate([rng.normal(size=20), np.zeros(10)])
    assert items.signflip(d, policy)[2] == "exact"


# ------------------------------------------------------------------------------------------ the run axis


def notebook_consistent_edge(seed: int = 7) -> tuple[np.ndarray, np.ndarray]:
    """The notebook's "axes disagree" situation, built so that it does disagree: 40 items whose edge varies
    from item to item (mean about +0.02, sd 0.12) while run noise is tiny (sd 0.01). The notebook's own code adds
    a constant +0.05 to every item, so its per-item gaps are all about +0.05 and its item axis is decisive too."""
    rng = np.random.default_rng(seed)
    level = rng.normal(0.6, 0.15, 40)
    edge = rng.normal(0.02, 0.12, 40)
    base = level + rng.normal(0.0, 0.01, (5, 40))
    cand = level + edge + rng.normal(0.0, 0.01, (5, 40))
    return base, cand


def test_notebook_consistent_edge_rerun_agrees_other_items_would_not(tmp_path):
    base, cand = notebook_consistent_edge()
    data, md = report(tmp_path, long_frame(base, cand))
    c = data["candidates"][0]
    runs = c["run_axis"]
    # the run axis: Welch t on per-run means, as scipy computes it
    ref = scipy.stats.ttest_ind(cand.mean(axis=1), base.mean(axis=1), equal_var=False)
    assert runs["run_p_value"] == pytest.approx(ref.pvalue, rel=1e-9) and runs["run_p_value"] < 0.001
    assert [r["baseline"] for r in runs["per_run"]] == pytest.approx(list(base.mean(axis=1)), rel=1e-12)
    assert [r["run"] for r in runs["per_run"]] == ["0", "1", "2", "3", "4"]
    # the item axis straddles 0
    o = c["overall"]
    assert o["ci_low"] < 0 < o["ci_high"] and o["p_value"] > 0.05
    assert runs["run_decisive"] and not runs["case_decisive"] and runs["disagree"]
    words = runs["agreement"]
    assert words.startswith("The two axes disagree. A rerun would very likely show the same gap: in every run "
                            "the candidate scores higher")
    assert "another set of cases could show no gap, or the opposite one" in words
    assert "The verdict follows the case axis" in words
    assert any(w.startswith("the two axes disagree: a rerun would keep the gap") for w in c["warnings"])
    # the Markdown report says the same, in the section on both axes
    assert "### Is the gap real? Reruns, cases and groups" in md
    assert "| Would a rerun agree? | the run: 5 runs of base, 5 of cand |" in md
    assert "The two axes disagree. A rerun would very likely show the same gap" in md


def test_notebook_own_example_is_decisive_on_both_axes(tmp_path):
    # The notebook's construction: the same +0.05 on every item -> both axes agree (its text says otherwise).
    rng = np.random.default_rng(1)
    level = rng.normal(size=40)
    a = level + rng.normal(scale=0.01, size=(5, 40)) + 0.05
    b = level + rng.normal(scale=0.01, size=(5, 40))
    data, _ = report(tmp_path, long_frame(b, a))
    runs = data["candidates"][0]["run_axis"]
    assert runs["run_decisive"] and runs["case_decisive"] and not runs["disagree"]
    assert runs["agreement"].startswith("Both axes agree")


def test_run_axis_case_axis_clear_but_reruns_noisy(tmp_path):
    # Every item gains 0.03 on average over its runs, but whole runs swing by +/-0.1: few runs cannot tell.
    rng = np.random.default_rng(3)
    level = rng.normal(0.5, 0.1, 200)
    swing_b, swing_c = rng.normal(0, 0.1, (3, 1)), rng.normal(0, 0.1, (3, 1))
    base = level + swing_b + rng.normal(0, 0.01, (3, 200))
    cand = level + 0.03 + swing_c + rng.normal(0, 0.01, (3, 200))
    data, _ = report(tmp_path, long_frame(base, cand))
    runs = data["candidates"][0]["run_axis"]
    if runs["run_decisive"]:  # the draw must give the intended situation; fail loudly if it does not
        pytest.fail(f"run axis unexpectedly decisive: {runs['run_p_value']}")
    assert runs["case_decisive"] and runs["disagree"]
    assert runs["agreement"].startswith("The two axes disagree. Across cases the gap is clear")


def test_binary_runs_majority_mcnemar_with_the_tie_rule(tmp_path):
    # 4 runs per case. q000: base 4/4, cand 2/4 (a tie: counts as fail) -> broke on the majority
    # q001: base 1/4, cand 3/4 -> fixed; q002: base 2/4 (fail), cand 2/4 (fail) -> neither; q003..: unchanged 4/4
    n = 40
    base = np.ones((4, n))
    cand = np.ones((4, n))
    cand[:2, 0] = 0
    base[:3, 1] = 0
    cand[:1, 1] = 0
    base[:2, 2] = 0
    cand[2:, 2] = 0
    data, md = report(tmp_path, long_frame(base, cand, value="passed"))
    c = data["candidates"][0]
    majority = c["run_axis"]["majority"]
    assert (majority["fixed"], majority["broke"]) == (1, 1)
    assert majority["p_value"] == mcnemar_test(1, 1).p_two_sided
    assert "exactly half counts as a fail" in majority["rule"]
    # the verdict's comparison: per-case pass rates, improved / worsened
    o = c["overall"]
    assert o["method"] == "paired t" and (o["fixed"], o["broke"]) == (1, 1)
    assert o["both_pass"] == n - 3 and o["both_fail"] == 0
    assert [b["case_id"] for b in c["broken_cases"]] == ["q000"]
    assert "Rule: a case passes when it passes in more than half of its runs" in md


def test_critical_case_worsened_over_runs_blocks_only_under_zero_tolerance(tmp_path):
    n = 30
    base, cand = np.ones((5, n)), np.ones((5, n))
    cand[0, 3] = 0  # one Fraud case fails once in five runs: its majority outcome is still a pass
    category = ["Fraud" if i < 10 else "Other" for i in range(n)]
    frame = long_frame(base, cand, value="passed", category=category)
    data, _ = report(tmp_path, frame, "--critical", "Fraud", "--critical-rule", "any")
    c = data["candidates"][0]
    assert c["verdict"] == "dont_ship" and c["reasons"][0]["rule"] == "critical_broken"
    assert c["reasons"][0]["message"] == "it worsened 1 of 10 Fraud cases (improved none), a critical category"
    assert c["broken_cases"][0] == {**c["broken_cases"][0], "case_id": "q003", "category": "Fraud",
                                    "baseline_outcome": 1.0, "candidate_outcome": 0.8, "critical": True}

    data, _ = report(tmp_path, frame, "--critical", "Fraud")  # the default: the majority-outcome test
    c = data["candidates"][0]
    check = next(k for k in c["checks"] if k["rule"] == "critical_broken")
    assert not check["fired"]
    test = c["critical"]["tests"][0]
    assert (test["method"], test["worse"], test["better"], test["p_regression"]) == (
        "exact McNemar on majority outcomes", 0, 0, 1.0)
    assert c["warnings"][0].startswith("Fraud (critical): 1 worsened case: q003; the critical test does not block")


def test_broken_cases_critical_first_then_largest_drop(tmp_path):
    base = np.full(6, 0.9)
    cand = np.array([0.8, 0.2, 0.85, 0.5, 0.9, 1.0])
    category = ["A", "A", "Safety", "B", "A", "A"]
    data, _ = report(tmp_path, long_frame(base, cand, category=category), "--critical", "Safety")
    listed = [b["case_id"] for b in data["candidates"][0]["broken_cases"]]
    assert listed == ["q002", "q001", "q003", "q000"]
    assert [f["case_id"] for f in data["candidates"][0]["fixed_cases"]] == ["q005"]


def test_unbalanced_runs_are_said(tmp_path):
    base, cand = notebook_consistent_edge()
    frame = long_frame(base, cand)
    # The rows are there without a score, and --missing drop drops them: the user's choice, said.
    frame.loc[(frame["release"] == "cand") & (frame["run"] == 4) & (frame["case_id"] < "q010"), "score"] = None
    data, _ = report(tmp_path, frame, "--missing", "drop")
    runs = data["candidates"][0]["run_axis"]
    assert (runs["runs_per_case_min"], runs["runs_per_case_max"]) == (4, 5)
    assert any("between 4 and 5 runs" in w for w in data["candidates"][0]["warnings"])


def test_single_run_on_one_side_leaves_the_run_axis_undefined(tmp_path):
    base, cand = notebook_consistent_edge()
    frame = long_frame(base, cand)
    frame = frame[(frame["release"] == "base") | (frame["run"] == 0)]  # a candidate run once: compared as it is
    data, _ = report(tmp_path, frame)
    runs = data["candidates"][0]["run_axis"]
    assert not runs["run_defined"] and runs["run_p_value"] is None
    assert runs["agreement"].startswith("The run axis cannot be tested: the candidate has a single run.")


def test_json_required_keys_on_the_paired_mean_path(tmp_path):
    base, cand = notebook_consistent_edge()
    data, _ = report(tmp_path, long_frame(base, cand, category=["x", "y"] * 20))
    assert next(iter(data)) == "schema_version"
    c = data["candidates"][0]
    for key in ("n", "baseline_rate", "candidate_rate", "diff", "ci_low", "ci_high", "fixed", "broke", "p_value",
                "p_one_sided", "p_adjusted"):
        assert key in c["overall"]
    for category in c["categories"]:
        assert category["method"] == "paired t" and not math.isnan(category["p_adjusted"])
    assert {"item_axis", "run_axis"} <= set(c)


def test_excluded_cases_leave_the_run_axis(tmp_path):
    base, cand = notebook_consistent_edge()
    frame = long_frame(base, cand)
    frame = frame[~((frame["release"] == "cand") & (frame["case_id"] == "q000"))]
    data, _ = report(tmp_path, frame, "--allow-missing")
    c = data["candidates"][0]
    assert c["excluded_cases"]["only_baseline"] == ["q000"] and c["overall"]["n"] == 39
    per_run_base = [r["baseline"] for r in c["run_axis"]["per_run"]]
    assert per_run_base == pytest.approx(list(base[:, 1:].mean(axis=1)), rel=1e-12)


def test_score_sentences_keep_the_sign_of_a_difference_that_rounds_to_zero():
    # A tiny negative difference would round to zero: the verdict text shows its first digit, -0.0001, never
    # +0.000 (a loss too small to show is still a loss) nor -0.000 (a negative zero); a gain prints with "+".
    from releasegate.model import Comparison, Rate
    from releasegate.wording.verdict import diff as _diff

    rate = Rate(10, 0.5, 0.4, 0.6)
    comp = Comparison(label="overall", n=10, baseline=rate, candidate=rate, diff=-0.0001, ci_low=-0.0002,
                      ci_high=0.0003, ni_low=-0.0002, ni_high=0.0002, fixed=0, broke=0, both_pass=5, both_fail=5,
                      p_value=1.0, p_midp=1.0, p_one_sided=0.5)
    text = _diff(comp, binary=False)
    assert text == "-0.0001 [-0.0002, +0.0003]"
