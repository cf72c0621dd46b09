"""The judge section through the pipeline (issue 35): results whose outcomes are a judge's verdicts plus a gold
file of human labels give each candidate a judge section whose figures are the statistics' own on the same
arrays, in both designs (paired, per release), with runs, with errored cells; it serialises into the JSON,
every key documented in docs/json.md; without gold labels there is no section."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from conftest import build_report, run_cli
from releasegate.stats.judge_agreement import judge_agreement, judge_difference
from releasegate.stats.ppi import ppi_mean, ppi_paired_difference

N = 400


def _suite(seed: int = 3, runs: int = 1):
    """True outcomes 0.80 / 0.75 (paired) and the issue's judge: TPR 0.9, FPR 0.1 on r1, 0.4 on r2."""
    rng = np.random.default_rng(seed)
    u = rng.random(N)
    truth = {"r1": (u < 0.80).astype(int), "r2": ((u < 0.70) | ((u >= 0.80) & (u < 0.85))).astype(int)}
    rows, gold = [], []
    for release, fpr in (("r1", 0.1), ("r2", 0.4)):
        for run in range(1, runs + 1):
            y = truth[release] if run == 1 else np.where(rng.random(N) < 0.9, truth[release], 1 - truth[release])
            judged = np.where(y == 1, rng.random(N) < 0.9, rng.random(N) < fpr).astype(int)
            for i in range(N):
                row = {"release": release, "case_id": f"c{i:03d}", "passed": int(judged[i])}
                label = {"release": release, "case_id": f"c{i:03d}", "label": int(y[i])}
                if runs > 1:
                    row["run"] = label["run"] = run
                rows.append(row)
                gold.append(label)
    return pd.DataFrame(rows), pd.DataFrame(gold), rng


def _write(tmp_path: Path, results: pd.DataFrame, gold: pd.DataFrame) -> tuple[Path, Path]:
    results.to_csv(tmp_path / "results.csv", index=False)
    gold.to_csv(tmp_path / "gold.csv", index=False)
    return tmp_path / "results.csv", tmp_path / "gold.csv"


def _arrays(results: pd.DataFrame, gold: pd.DataFrame, release: str) -> tuple[np.ndarray, np.ndarray]:
    judged = results[results["release"] == release].set_index("case_id")["passed"].sort_index()
    labels = gold[gold["release"] == release].set_index("case_id")["label"].reindex(judged.index)
    return judged.to_numpy(float), labels.to_numpy(float)


def test_paired_gold_sample_gives_the_statistics_figures(tmp_path):
    results, gold, rng = _suite()
    sample = set(rng.choice(sorted(gold["case_id"].unique()), 150, replace=False))
    gold = gold[gold["case_id"].isin(sample)]
    res_path, gold_path = _write(tmp_path, results, gold)
    report = build_report(res_path, baseline="r1", gold=str(gold_path))
    section = report.analysis.candidates[0].sections.judge
    assert section is not None and section.units == "cases" and section.gold_unused == 0
    fb, gb = _arrays(results, gold, "r1")
    fc, gc = _arrays(results, gold, "r2")
    expected = ppi_paired_difference(fb, fc, gb, gc)
    assert section.corrected == expected and section.corrected.design == "paired"
    assert section.corrected.paired_cases == 150 and section.corrected.n_cases == N
    lab = np.isfinite(gb)
    assert section.baseline.agreement == judge_agreement(gb[lab], fb[lab])
    assert section.candidate.corrected == ppi_mean(gc[lab], fc[lab], fc[~lab])
    assert section.difference == judge_difference(gb, fb, gc, fc)
    # The raw figures are the plan's own comparison on the judge's verdicts, kept beside the corrected overall
    # figure the rules read (tests/analyze/test_judge_gated.py).
    overall = report.analysis.candidates[0].judged
    assert overall is not None and overall.method == "McNemar exact" and section.gated == "corrected"
    assert (section.raw_diff, section.raw_ci_low, section.raw_ci_high) == (overall.diff, overall.ci_low, overall.ci_high)
    assert section.baseline.raw_rate == overall.baseline.value and section.raw_p_one_sided == overall.p_one_sided
    plan = section.plan
    assert plan is not None and plan.labelled == 150 and plan.target_width == 0.05
    # The judge's FPR differs between the releases' outputs (0.1 against 0.4 simulated).
    assert section.difference.fpr.estimate > 0.1


def test_gold_labels_sampled_per_release(tmp_path):
    results, gold, rng = _suite(4)
    ids = sorted(gold["case_id"].unique())
    picks = {r: set(rng.choice(ids, 120, replace=False)) for r in ("r1", "r2")}
    gold = gold[[cid in picks[r] for r, cid in zip(gold["release"], gold["case_id"])]]
    res_path, gold_path = _write(tmp_path, results, gold)
    section = build_report(res_path, baseline="r1", gold=str(gold_path)).analysis.candidates[0].sections.judge
    fb, gb = _arrays(results, gold, "r1")
    fc, gc = _arrays(results, gold, "r2")
    assert section.corrected == ppi_paired_difference(fb, fc, gb, gc)
    assert section.corrected.design == "per_release" and section.plan is None
    assert section.difference.shared_units == len(picks["r1"] & picks["r2"])


def test_runs_count_case_runs_for_agreement_and_cases_for_the_correction(tmp_path):
    results, gold, rng = _suite(5, runs=2)
    sample = set(rng.choice(sorted(gold["case_id"].unique()), 100, replace=False))
    # Every run of the sampled cases is labelled, and one run of one more case: that case stays judge-only.
    extra = gold[(gold["case_id"] == "c399") & (gold["run"] == 1)]
    gold = pd.concat([gold[gold["case_id"].isin(sample - {"c399"})], extra])
    res_path, gold_path = _write(tmp_path, results, gold)
    section = build_report(res_path, baseline="r1", gold=str(gold_path)).analysis.candidates[0].sections.judge
    assert section.units == "case runs"
    n_sampled = len(sample - {"c399"})
    assert section.baseline.agreement.n == 2 * n_sampled + 1
    assert section.corrected.paired_cases == n_sampled and section.corrected.design == "paired"
    means = results.groupby(["release", "case_id"])["passed"].mean()
    human = gold.groupby(["release", "case_id"])["label"].mean()
    full = gold.groupby(["release", "case_id"])["label"].count() == 2
    fb, fc = means["r1"].to_numpy(float), means["r2"].to_numpy(float)
    gb = human["r1"].where(full["r1"]).reindex(means["r1"].index).to_numpy(float)
    gc = human["r2"].where(full["r2"]).reindex(means["r2"].index).to_numpy(float)
    assert section.corrected == ppi_paired_difference(fb, fc, gb, gc)


def test_gold_on_errored_cells_is_counted_unused(tmp_path):
    results, gold, _ = _suite(6)
    results["error"] = ""
    results.loc[(results["release"] == "r2") & (results["case_id"].isin(["c000", "c001"])), "error"] = "timeout"
    gold = gold[gold["case_id"] < "c050"]
    res_path, gold_path = _write(tmp_path, results, gold)
    section = build_report(res_path, baseline="r1", gold=str(gold_path)).analysis.candidates[0].sections.judge
    # The two errored cases left the comparison on both sides: their 4 gold rows are not used.
    assert section.gold_unused == 4 and section.corrected.paired_cases == 48


def test_json_carries_the_section_and_the_doc_lists_every_key(tmp_path):
    from test_json_doc import documented, objects

    results, gold, rng = _suite(7)
    gold = gold[gold["case_id"].isin(set(rng.choice(sorted(gold["case_id"].unique()), 80, replace=False)))]
    res_path, gold_path = _write(tmp_path, results, gold)
    out = tmp_path / "note.json"
    result = run_cli("report", res_path, "--baseline", "r1", "--gold", gold_path, "-o", out)
    assert result.exit_code == 0, result.output
    note = json.loads(out.read_text())
    judge = note["candidates"][0]["judge"]
    assert judge["corrected"]["design"] == "paired" and judge["units"] == "cases"
    assert judge["baseline"]["agreement"]["tpr"]["low"] <= judge["baseline"]["agreement"]["tpr"]["estimate"]
    assert note["inputs"][-1]["format"] == "gold" and note["inputs"][-1]["rows"] == 160
    assert note["policy"]["gold"] == str(gold_path)
    found: dict[str, set[str]] = {}
    objects(note, "", found)
    doc = documented()
    missing = {path: keys - doc.get(path, set()) for path, keys in found.items()
               if path.startswith("candidates[].judge") and keys - doc.get(path, set())}
    assert not missing, missing


def test_policy_gold_is_read_from_the_policy_folder(tmp_path):
    results, gold, _ = _suite(8)
    gold = gold[gold["case_id"] < "c060"]
    folder = tmp_path / "gate"
    folder.mkdir()
    res_path, _ = _write(tmp_path, results, gold)
    gold.to_csv(folder / "labels.csv", index=False)
    (folder / "releasegate.toml").write_text('baseline = "r1"\ngold = "labels.csv"\n')
    out = tmp_path / "note.json"
    result = run_cli("report", res_path, "--policy", folder / "releasegate.toml", "-o", out)
    assert result.exit_code == 0, result.output
    assert json.loads(out.read_text())["candidates"][0]["judge"]["corrected"]["paired_cases"] == 60


def test_without_gold_there_is_no_judge_section(example_report):
    assert all(c.sections.judge is None for c in example_report.analysis.candidates)
    assert "gold" not in example_report.provenance.policy


def test_an_output_onto_the_gold_file_is_refused(tmp_path):
    results, gold, _ = _suite(9)
    gold = gold[gold["case_id"] < "c030"]
    res_path, _ = _write(tmp_path, results, gold)
    gold_json = tmp_path / "gold.json"
    gold_json.write_text(gold.to_json(orient="records"))
    before = gold_json.read_bytes()
    result = run_cli("report", res_path, "--baseline", "r1", "--gold", gold_json, "-o", gold_json)
    assert result.exit_code == 2 and gold_json.read_bytes() == before


def test_the_issue_example_corrected_difference_does_not_favour_the_candidate(tmp_path):
    """The issue's example at 150 paired gold labels: the raw judge shows the candidate better (true -5 points
    shown as about +3.5); the corrected interval does not show it better with confidence."""
    results, gold, rng = _suite(10)
    gold = gold[gold["case_id"].isin(set(rng.choice(sorted(gold["case_id"].unique()), 150, replace=False)))]
    res_path, gold_path = _write(tmp_path, results, gold)
    section = build_report(res_path, baseline="r1", gold=str(gold_path)).analysis.candidates[0].sections.judge
    assert section.raw_diff > 0
    assert section.corrected.low < 0 and not math.isnan(section.corrected.estimate)
    assert section.corrected.estimate < section.raw_diff


@pytest.fixture(autouse=True)
def _json_doc_importable(monkeypatch):
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "tooling"))


def test_the_notebook_api_takes_gold_as_a_keyword(tmp_path):
    import releasegate

    results, gold, _ = _suite(12)
    gold = gold[gold["case_id"] < "c040"]
    res_path, gold_path = _write(tmp_path, results, gold)
    note = releasegate.compare(res_path, baseline="r1", gold=gold_path)  # a Path, kept as text
    assert note.analysis.candidates[0].sections.judge.corrected.paired_cases == 40
    assert note.report.provenance.policy["gold"] == str(gold_path)
    assert json.loads(note.to_json())["candidates"][0]["judge"]["gold_path"] == str(gold_path)
