"""Grouped cases through the whole pipeline (CSV -> JSON, Markdown and the HTML partial): the clustered interval
and p replace the naive ones in the verdict, the naive ones stay visible, few groups are warned about, the
design effect enters the power figure, and the reading-comprehension example is reproduced by its script."""

from __future__ import annotations

import importlib.util
import json
import math
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from conftest import ROOT, build_report, run_cli
from releasegate.stats.clusters import cluster_bootstrap_interval, cluster_signflip_test, durkalski_test
from releasegate.stats.power import minimum_detectable_difference

# shared/reference/stat-vectors.json, clustered_se: 24 cases in 6 clusters of sizes 3,5,4,2,6,4 (binary).
CLUSTER = [0, 0, 0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 4, 4, 4, 4, 4, 4, 5, 5, 5, 5]
BASE = [1, 1, 1, 1, 1, 0, 1, 0, 0, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1]
CAND = [0, 0, 0, 1, 1, 0, 1, 0, 1, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1, 1, 1, 1, 1]
REF = {
    "se_naive_iid": 0.125,
    "se_cluster_CR1": 0.2086975982133,
    "se_cluster_CR2": 0.20993799874578298,
    "CR2_bell_mccaffrey_df": 4.454390451832906,
    "CR2_p_two_sided": 0.5805119092066212,
    "CR2_ci95": [-0.685164143214502, 0.43516414321450203],
    "durkalski_chi2": 0.391304347826087,
    "durkalski_p": 0.5316145768816123,
    "signflip_p_two_sided": 0.75,
    "signflip_p_one_sided": 0.375,
}


def frame_of(base, cand, cluster, value="passed", runs=1, **columns) -> pd.DataFrame:
    n = len(base)
    rows = []
    for release, values in (("base", base), ("cand", cand)):
        for run_index in range(runs):
            frame = pd.DataFrame({"release": release, "case_id": [f"c{i:03d}" for i in range(n)],
                                  value: values, "passage": [f"p{g}" for g in cluster]})
            if runs > 1:
                frame["run"] = run_index
            for name, column in columns.items():
                frame[name] = column
            rows.append(frame)
    return pd.concat(rows, ignore_index=True)


def report(tmp_path: Path, frame: pd.DataFrame, *args: str) -> tuple[dict, str]:
    source = tmp_path / "results.csv"
    frame.to_csv(source, index=False)
    out_json, out_md = tmp_path / "r.json", tmp_path / "r.md"
    result = run_cli("report", source, "--baseline", "base", "--cluster-col", "passage", *args,
                     "-o", out_json, "-o", out_md)
    assert result.exit_code == 0, result.output
    return json.loads(out_json.read_text()), out_md.read_text()


# ------------------------------------------------------------------------------------------ reference vectors


def test_clustered_vectors_binary_through_the_pipeline(tmp_path):
    data, md = report(tmp_path, frame_of(BASE, CAND, CLUSTER))
    c = data["candidates"][0]
    k = c["clusters"]
    assert (k["n_clusters"], k["n_cases"], k["cluster_column"]) == (6, 24, "passage")
    assert k["naive_se"] == pytest.approx(REF["se_naive_iid"], rel=1e-12)
    assert k["cr1_se"] == pytest.approx(REF["se_cluster_CR1"], rel=1e-9)
    assert k["cr2_se"] == pytest.approx(REF["se_cluster_CR2"], rel=1e-9)
    assert k["cr2_df"] == pytest.approx(REF["CR2_bell_mccaffrey_df"], rel=1e-9)
    assert k["cr2_p_value"] == pytest.approx(REF["CR2_p_two_sided"], rel=1e-9)
    assert [k["cr2_ci_low"], k["cr2_ci_high"]] == pytest.approx(REF["CR2_ci95"], rel=1e-9)
    assert k["durkalski_chi2"] == pytest.approx(REF["durkalski_chi2"], rel=1e-12)
    assert k["durkalski_p_value"] == pytest.approx(REF["durkalski_p"], rel=1e-9)
    assert (k["signflip_p_value"], k["signflip_p_one_sided"], k["signflip_exact"]) == (0.75, 0.375, True)
    assert (k["smallest_p_two_sided"], k["smallest_p_one_sided"]) == (2.0**-5, 2.0**-6)
    # The verdict's comparison carries the clustered figures from one method, the sign-flip at 6 groups (its
    # interval is checked against exact enumeration in test_clustered_one_method); the naive McNemar ones and
    # the bootstrap stay in the extra.
    o = c["overall"]
    boot = cluster_bootstrap_interval(np.subtract(CAND, BASE), CLUSTER, 10_000, 20240501)
    # The JSON writes 12 significant digits (docs/json.md).
    assert [k["bootstrap_ci_low"], k["bootstrap_ci_high"]] == pytest.approx([boot.low, boot.high], rel=1e-11)
    assert o["method"] == "cluster sign-flip" and k["verdict_test"] == "signflip"
    assert (o["p_value"], o["p_one_sided"]) == (0.75, 0.375)
    assert (k["verdict_p_value"], k["verdict_p_one_sided"]) == (0.75, 0.375)
    assert (o["fixed"], o["broke"]) == (3, 6)
    assert k["naive_method"] == "McNemar exact" and k["naive_p_value"] == pytest.approx(0.5078125)
    assert k["naive_ci_high"] - k["naive_ci_low"] < o["ci_high"] - o["ci_low"]
    assert "(cluster sign-flip p = 0.750, not significant)" in c["headline"]
    assert any(w.startswith("only 6 groups (passage): grouped intervals are unreliable below 20 groups, and no "
                            "test that respects the grouping can reach p below 0.031") for w in c["warnings"])
    assert "| Durkalski clustered McNemar | | 0.532 | 0.266 |" in md
    assert "| **the verdict's:** cluster sign-flip test (p) and its inversion (interval) |" in md
    assert "| c000 | " in md and "| p0 |" in md  # broken cases show their group


def test_clustered_vectors_with_runs_use_the_same_sign_flip(tmp_path):
    # The same cases answered twice, identically: the outcomes of one run, read as one run (6 groups: the
    # sign-flip), with CR2 and Durkalski's clustered McNemar shown beside them as one run shows them.
    data, _ = report(tmp_path, frame_of(BASE, CAND, CLUSTER, runs=2))
    o, k = data["candidates"][0]["overall"], data["candidates"][0]["clusters"]
    assert o["method"] == "cluster sign-flip" and k["verdict_test"] == "signflip"
    assert (o["p_value"], o["p_one_sided"]) == (0.75, 0.375)
    assert k["cr2_p_value"] == pytest.approx(REF["CR2_p_two_sided"], rel=1e-9)
    majority = data["candidates"][0]["run_axis"]["majority"]
    broke = np.array(BASE) & ~np.array(CAND, dtype=bool)
    fixed = ~np.array(BASE, dtype=bool) & np.array(CAND, dtype=bool)
    assert k["durkalski_p_value"] == pytest.approx(durkalski_test(broke, fixed, CLUSTER).p_two_sided)
    assert majority["durkalski_p_value"] == pytest.approx(durkalski_test(broke, fixed, CLUSTER).p_two_sided)


def test_category_comparisons_are_clustered_too(tmp_path):
    category = ["A" if g < 3 else "B" for g in CLUSTER]
    data, _ = report(tmp_path, frame_of(BASE, CAND, CLUSTER, category=category))
    by_label = {k["category"]: k for k in data["candidates"][0]["categories"]}
    base, cand, cluster = np.array(BASE), np.array(CAND), np.array(CLUSTER)
    for label, inside in (("A", cluster < 3), ("B", cluster >= 3)):
        ref = cluster_signflip_test(np.subtract(cand, base)[inside], cluster[inside])
        assert by_label[label]["p_value"] == pytest.approx(ref.p_two_sided)
        assert by_label[label]["p_one_sided"] == pytest.approx(ref.p_regression)
        assert by_label[label]["method"] == "cluster sign-flip"
    few = data["candidates"][0]["clusters"]["few_cluster_categories"]
    assert few == [["A", 3], ["B", 3]]
    assert any("categories with too few passage groups to show a regression on their own" in w
               for w in data["candidates"][0]["warnings"])


# ------------------------------------------------------------------------------------------ the notebook


def notebook_grouped_items(seed: int = 5) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The notebook's grouped items, built so that the gap varies by group: 40 items in 5 groups of 8, the
    candidate's gain per group 0.45, 0.05, 0.30, -0.15, 0.10 (mean 0.15), small item and run noise, 5 runs.
    (In the notebook's own code the group effect is shared by both systems, so it cancels from the paired
    difference and the grouping changes nothing.)"""
    rng = np.random.default_rng(seed)
    group = np.repeat(np.arange(5), 8)
    level = rng.normal(0.5, 0.1, 5)[group]
    gain = np.array([0.45, 0.05, 0.30, -0.15, 0.10])[group] + rng.normal(0, 0.03, 40)
    base = level + rng.normal(0, 0.02, (5, 40))
    cand = level + gain + rng.normal(0, 0.02, (5, 40))
    return base, cand, group


def test_notebook_grouped_items_clustered_interval_is_much_wider(tmp_path):
    base, cand, group = notebook_grouped_items()
    frames = []
    for run_index in range(5):
        for release, values in (("base", base), ("cand", cand)):
            frames.append(pd.DataFrame({"release": release, "case_id": [f"q{i:02d}" for i in range(40)],
                                        "run": run_index, "passage": [f"g{g}" for g in group],
                                        "score": values[run_index]}))
    data, md = report(tmp_path, pd.concat(frames, ignore_index=True))
    c = data["candidates"][0]
    k, o = c["clusters"], c["overall"]
    # ignoring the grouping the gain looks proven; counting the 5 groups it is not: no sign-flip p can go
    # below 2^-5 one-sided, so the 95% interval is unbounded (JSON null), and the bootstrap is wide too
    assert k["naive_ci_low"] > 0 and o["ci_low"] is None and o["ci_high"] is None
    assert k["bootstrap_ci_low"] < 0 < k["bootstrap_ci_high"]
    assert (k["bootstrap_ci_high"] - k["bootstrap_ci_low"]) > 2.5 * (k["naive_ci_high"] - k["naive_ci_low"])
    assert k["design_effect"] > 5 and k["effective_n"] < 8
    assert o["method"] == "cluster sign-flip" and o["p_value"] > 0.05 > k["naive_p_value"]
    assert any(w.startswith("only 5 groups (passage)") and "0.062" in w for w in c["warnings"])
    assert k["explanation"].startswith("The 40 cases come in 5 groups (by passage), 8 cases each.")
    assert "Counting whole groups, 5 groups bound nothing: the grouped interval is [-inf, +inf]" in k["explanation"]
    assert "The verdict uses the grouped one." in md
    assert "**Grouped cases (passage).**" in md
    assert "With 5 groups no test that respects them can reach p below 0.062 two-sided" in md
    # the run axis is decisive, the grouped case axis is not: the report says the axes disagree
    assert c["run_axis"]["disagree"] and "another set of passage groups could show no gap" in c["run_axis"]["agreement"]


def test_design_effect_enters_the_minimum_detectable_difference(tmp_path):
    base, cand, group = notebook_grouped_items()
    frames = [pd.DataFrame({"release": r, "case_id": [f"q{i:02d}" for i in range(40)], "passage": group,
                            "score": v.mean(axis=0)}) for r, v in (("base", base), ("cand", cand))]
    data, _ = report(tmp_path, pd.concat(frames, ignore_index=True))
    c = data["candidates"][0]
    power, deff = c["power"], c["clusters"]["design_effect"]
    assert power["design_effect"] == deff > 1
    plain = minimum_detectable_difference(power["sd_of_difference"], 40, 0.05, 0.8, True)
    assert power["mde"] == pytest.approx(plain.mde * math.sqrt(deff), rel=1e-12)


def test_one_group_gives_no_clustered_inference(tmp_path):
    data, _ = report(tmp_path, frame_of(BASE, CAND, [0] * 24))
    c = data["candidates"][0]
    assert c["overall"]["p_value"] == 1.0 and c["overall"]["p_one_sided"] == 1.0
    assert (c["overall"]["ci_low"], c["overall"]["ci_high"]) == (-1.0, 1.0)
    assert c["verdict"] == "not_proven" and [r["rule"] for r in c["reasons"]] == ["not_non_inferior"]
    assert any("all cases are in one passage group" in w for w in c["warnings"])


def test_grouping_that_decides_a_rule_is_said(tmp_path):
    # 40 groups of 10: the candidate is as good on average, but the change is shared within groups.
    rng = np.random.default_rng(2)
    group = np.repeat(np.arange(40), 10)
    base = rng.normal(0.6, 0.05, 400)
    cand = base + rng.normal(0.0, 0.09, 40)[group] + rng.normal(0, 0.01, 400)
    cand += 0.0 - (cand - base).mean()
    data, _ = report(tmp_path, frame_of(base, cand, group, value="score"), "--margin", "0.015")
    c = data["candidates"][0]
    naive_ni = c["clusters"]["naive_ci_low"]
    assert naive_ni > -0.015 > c["overall"]["ni_low"]
    assert any(w.startswith("the grouping decides the non-inferiority rule") for w in c["warnings"])


# ------------------------------------------------------------------------------------------ HTML partial


class _Tags(HTMLParser):
    VOID = frozenset({"br", "img", "meta", "link", "hr", "input"})

    def __init__(self):
        super().__init__()
        self.stack, self.errors, self.text = [], [], []

    def handle_starttag(self, tag, attrs):
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if not self.stack or self.stack.pop() != tag:
            self.errors.append(tag)

    def handle_data(self, data):
        self.text.append(data)


def test_html_partial_is_balanced_and_escaped(tmp_path):
    from releasegate.render.context import build_context
    from releasegate.render.views import fields_of
    from releasegate.render.filters import environment

    base, cand, group = notebook_grouped_items()
    frames = []
    for run_index in range(5):
        for release, values in (("base", base), ("cand<b>", cand)):
            frames.append(pd.DataFrame({"release": release, "case_id": [f"q{i:02d}" for i in range(40)],
                                        "run": run_index, "cluster": group, "score": values[run_index]}))
    source = tmp_path / "r.csv"
    pd.concat(frames).to_csv(source, index=False)
    result = build_report(source, command_line="", baseline="base")
    html = environment("html").get_template("extras/axes.html").render(
        fields_of(build_context(result.sections[0], result.provenance)))
    parser = _Tags()
    parser.feed(html)
    assert not parser.errors and not parser.stack
    assert "cand&lt;b&gt; vs base" in html and "<b>" not in html
    text = " ".join(parser.text)
    assert "Would a rerun agree?" in text and "the verdict's:" in text
    from releasegate.wording.sections import cluster_explanation

    assert cluster_explanation(result.analysis.candidates[0].sections.clusters).split(".")[0] in text


# ------------------------------------------------------------------------------------------ the example


def _example_script():
    spec = importlib.util.spec_from_file_location("make_rc", ROOT / "scripts" / "make_reading_comprehension.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_reading_comprehension_example_is_reproduced_by_its_script(tmp_path):
    script = _example_script()
    target = tmp_path / "rc"
    script.write_inputs(target)
    script.write_reports(target)
    example = ROOT / "examples" / "reading-comprehension"
    for name in ("results.csv", "releasegate.toml", "report.md", "report.json"):
        assert (target / name).read_bytes() == (example / name).read_bytes(), name


def test_reading_comprehension_example_story():
    data = json.loads((ROOT / "examples" / "reading-comprehension" / "report.json").read_text())
    by_name = {c["name"]: c for c in data["candidates"]}
    r2, r3 = by_name["r2-rerank"], by_name["r3-distilled"]
    assert r2["verdict"] == "ship" and r2["run_axis"]["run_decisive"] and r2["run_axis"]["case_decisive"]
    assert r3["verdict"] == "not_proven" and [r["rule"] for r in r3["reasons"]] == ["not_non_inferior"]
    # counting passages, not questions, is what blocks r3
    assert r3["clusters"]["naive_ci_low"] < 0 and r3["clusters"]["n_clusters"] == 40
    assert any(w.startswith("the grouping decides the non-inferiority rule") for w in r3["warnings"])
    assert r3["run_axis"]["majority"]["rule"].startswith("a case passes when it passes in more than half")
