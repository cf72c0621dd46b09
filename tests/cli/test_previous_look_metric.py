"""A --previous note of a metric gated by name (--metric NAME) is checked under the policy that metric was decided
by: its [metrics.NAME] table's margin and pass threshold (the keys of the budget a table may set), its direction
and its critical flag. A later look of another value is refused in one line naming it, as one of another margin
is; the latency, token and cost guardrails are no member of the error budget, so a later look may change them
(docs/methods.md, later looks). A note lacking what the check reads is refused, never read as a look."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from conftest import run_cli


def _results(tmp_path, n: int = 400, seed: int = 8):
    """Two releases on ``n`` cases: ``acc`` (pass/fail, 10% churn both ways), ``quality`` (a score in [0, 1]) and
    a latency per case."""
    rng = np.random.default_rng(seed)
    base = (rng.random(n) < 0.9).astype(int)
    cand = base.copy()
    cand[rng.choice(n, n // 10, replace=False)] ^= 1
    quality = rng.random(n)
    path = tmp_path / "results.csv"
    pd.DataFrame({"release": ["r1"] * n + ["r2"] * n, "case_id": [f"c{i:04d}" for i in range(n)] * 2,
                  "acc": np.r_[base, cand], "quality": np.r_[quality, np.clip(quality + rng.normal(0, 0.1, n), 0, 1)],
                  "latency_ms": rng.lognormal(6, 0.3, 2 * n)}).to_csv(path, index=False)
    return path


def _check(tmp_path, metric: str, policy: str, *extra, out: str = "note.json"):
    (tmp_path / f"{out}.toml").write_text('baseline = "r1"\n' + policy)
    result = run_cli("check", tmp_path / "results.csv", "--metric", metric, "--policy", tmp_path / f"{out}.toml",
                     *extra, "-o", tmp_path / out)
    written = json.loads((tmp_path / out).read_text()) if (tmp_path / out).exists() else None
    return result, written


def _line(result) -> str:
    lines = [line for line in result.output.splitlines() if line.startswith("releasegate: error")]
    assert result.exit_code == 2 and len(lines) == 1, result.output
    return lines[0]


BUDGET = "the looks of one comparison share one policy of the budget"


@pytest.mark.parametrize("metric, first, later, said", [
    ("acc", "[metrics.acc]\nmargin = 0.1\n", "[metrics.acc]\nmargin = 0.02\n",
     "that note was decided with [metrics.acc] margin 0.1, this comparison with [metrics.acc] margin 0.02"),
    ("acc", "", "[metrics.acc]\nmargin = 0.02\n",
     "that note was decided with margin 0.05, this comparison with [metrics.acc] margin 0.02"),
    ("acc", "[metrics.acc]\nmargin = 0.1\n", "",
     "that note was decided with [metrics.acc] margin 0.1, this comparison with margin 0.05"),
    ("quality", "[metrics.quality]\npass_threshold = 0.5\n", "[metrics.quality]\npass_threshold = 0.6\n",
     "[metrics.quality] pass_threshold 0.5, this comparison with [metrics.quality] pass_threshold 0.6"),
    ("quality", "[metrics.quality]\ndirection = \"higher\"\n", "[metrics.quality]\ndirection = \"lower\"\n",
     "[metrics.quality] direction higher, this comparison with [metrics.quality] direction lower"),
    ("acc", "", "[metrics.acc]\ncritical = true\n",
     "[metrics.acc] critical false, this comparison with [metrics.acc] critical true"),
])
def test_a_note_of_another_per_metric_policy_of_the_budget_is_refused_naming_it(tmp_path, metric, first, later,
                                                                                 said):
    _results(tmp_path)
    one, _ = _check(tmp_path, metric, first)
    assert one.exit_code in (0, 1, 3), one.output
    result, written = _check(tmp_path, metric, later, "--previous", tmp_path / "note.json", out="again.json")
    line = _line(result)
    assert said in line and BUDGET in line and written is None


@pytest.mark.parametrize("first, later", [
    # The same margin for the metric gated, once from its table and once from the policy's own key.
    ("margin = 0.05\n[metrics.acc]\nmargin = 0.02\n", "margin = 0.02\n"),
    # The table's margin decides the metric: the policy's own, which it overrides, is read by nothing.
    ("margin = 0.05\n[metrics.acc]\nmargin = 0.02\n", "margin = 0.1\n[metrics.acc]\nmargin = 0.02\n"),
    # Unset, a metric is not critical: said or not, the same look.
    ("", "[metrics.acc]\ncritical = false\n"),
    # The cost guardrails spend none of the budget (docs/methods.md, later looks): another latency limit is read.
    ("[guardrails]\nmax_latency_p95_ratio = 1.5\n", "[guardrails]\nmax_latency_p95_ratio = 2.0\n"
                                                    "max_latency_mean_ratio = 1.2\nmax_cost_ratio = 1.0\n"),
])
def test_a_note_of_the_same_policy_of_the_budget_is_a_later_look(tmp_path, first, later):
    _results(tmp_path)
    one, note = _check(tmp_path, "acc", first)
    assert one.exit_code in (0, 1, 3), one.output
    two, again = _check(tmp_path, "acc", later, "--previous", tmp_path / "note.json", out="again.json")
    assert two.exit_code in (0, 1, 3), two.output
    budget = again["candidates"][0]["budget"]
    assert budget["look"] == 2 and budget["level"] == pytest.approx(note["candidates"][0]["budget"]["left"])
    if "max_latency_mean_ratio" in later:  # the later look's guardrails are its own
        assert again["policy"]["guardrails"]["max_latency_p95_ratio"] == 2.0


def test_what_a_look_spends_does_not_depend_on_the_cost_guardrails(tmp_path):
    # Why another latency, token or cost limit is no other look: the budget's members are the regression tests
    # and the error-rate test (analyze/budget.py), so what a look spends and leaves is the same under any limits,
    # even when a guardrail fires.
    _results(tmp_path)
    _, loose = _check(tmp_path, "acc", "[guardrails]\nmax_latency_p95_ratio = 3.0\n")
    _, tight = _check(tmp_path, "acc", "[guardrails]\nmax_latency_p95_ratio = 0.5\nmax_latency_mean_ratio = 0.5\n",
                      out="tight.json")
    assert "guardrail" in [r["rule"] for r in tight["candidates"][0]["reasons"]]
    assert "guardrail" not in [r["rule"] for r in loose["candidates"][0]["reasons"]]
    assert loose["candidates"][0]["budget"] == tight["candidates"][0]["budget"]


@pytest.mark.parametrize("edit, said", [
    (lambda p: {k: v for k, v in p.items() if k != "margin"}, "that note records no margin"),
    (lambda p: {k: v for k, v in p.items() if k != "critical_weight"}, "that note records no critical_weight"),
    (lambda p: {k: v for k, v in p.items() if k != "guardrails"}, "that note records no guardrails"),
    (lambda p: {**p, "metrics": ["acc"]}, "that note records no [metrics.acc] table as a note writes it"),
    (lambda p: {**p, "metrics": {"acc": 0.1}}, "that note records no [metrics.acc] table as a note writes it"),
    (lambda p: {**p, "metrics": {"acc": {"margin": "0.1"}}}, 'that note records [metrics.acc] margin "0.1", not a '
                                                             "value a report writes"),
    (lambda p: {**p, "margin": None}, "that note records margin null, not a value a report writes"),
    (lambda p: {**p, "metrics": {"acc": {"margin": 0.1, "critical": "yes"}}},
     'that note records [metrics.acc] critical "yes", not a value a report writes'),
])
def test_a_note_lacking_what_the_check_reads_is_refused(tmp_path, edit, said):
    # Read as a note of the default policy, an edited one would pass as an earlier look under any margin.
    _results(tmp_path)
    _, note = _check(tmp_path, "acc", "[metrics.acc]\nmargin = 0.1\n")
    (tmp_path / "edited.json").write_text(json.dumps({**note, "policy": edit(note["policy"])}))
    result, written = _check(tmp_path, "acc", "[metrics.acc]\nmargin = 0.1\n", "--previous",
                             tmp_path / "edited.json", out="again.json")
    line = _line(result)
    assert said in line and written is None
    assert "give the note.json a report wrote, unedited" in line or BUDGET in line


@pytest.mark.parametrize("then, now, said", [
    ({"gold": "gold.csv"}, {}, "decided with judge_correction ppi, this comparison with no gold labels"),
    ({}, {"gold": "gold.csv"}, "decided with no gold labels, this comparison with judge_correction ppi"),
    ({"gold": "gold.csv", "judge_correction": "none"}, {"gold": "gold.csv"},
     "decided with judge_correction none, this comparison with judge_correction ppi"),
])
def test_a_note_with_gold_labels_and_a_comparison_without_are_other_looks(then, now, said):
    # With gold labels the overall member of the budget is the corrected difference (judge_correction "ppi"),
    # without them the judge's own test: the note leaves judge_correction out then, and that is compared too.
    from releasegate.errors import InputError
    from releasegate.load.looks import _check_policy
    from releasegate.policy import make_policy

    note = {"policy": make_policy({"baseline": "r1", **then}).as_dict()}
    with pytest.raises(InputError, match=said):
        _check_policy(note, "note.json", make_policy({"baseline": "r1", **now}))
    _check_policy(note, "note.json", make_policy({"baseline": "r1", **then}))  # the same policy: read
