"""Rules return the figures they compared (issue 27 item 2): the JSON's every ``checks[]`` entry carries them
beside its sentence, each with a number, and the sentence is written from them by the wording package."""

from __future__ import annotations

import ast
import json
import math
from pathlib import Path

import pytest

from conftest import ROOT, run_cli
from metrics_support import metric_args, three_metrics

NUMBERS = ("value", "ci_low", "ci_high", "limit", "alpha", "p", "p_unadjusted", "cases", "worse", "better", "passing",
           "excluded")


def _checks(note: dict) -> list[dict]:
    """Every checks[] entry of a JSON note, one metric's or several's."""
    notes = note["metrics"].values() if note.get("kind") == "several_metrics" else [note]
    return [check for one in notes for cand in one["candidates"] for check in cand["checks"]]


def _numeric(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _assert_figures(note: dict) -> list[dict]:
    checks = _checks(note)
    assert checks
    for check in checks:
        assert check["figures"], check
        for figure in check["figures"]:
            assert any(_numeric(figure[k]) for k in NUMBERS), (check["rule"], figure)
        assert isinstance(check["detail"], str) and check["detail"]
    return checks


def _note(tmp_path: Path, csv: str, *args: str, policy: str | None = None) -> dict:
    path = tmp_path / "results.csv"
    path.write_text(csv)
    extra = []
    if policy is not None:
        (tmp_path / "policy.toml").write_text(policy)
        extra = ["--policy", tmp_path / "policy.toml"]
    out = tmp_path / "note.json"
    result = run_cli("check", path, "--baseline", "r1", *extra, *args, "-o", out)
    assert result.exit_code in (0, 1, 3), result.output
    return json.loads(out.read_text(encoding="utf-8"))


def _rows(n: int, broke: int, extra=lambda release, i: "") -> str:
    lines = []
    for release in ("r1", "r2"):
        for i in range(n):
            passed = 0 if release == "r2" and i < broke else 1
            lines.append(f"{release},c{i:03d},{passed}{extra(release, i)}")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("example", ["bank-assistant", "reading-comprehension"])
def test_every_check_of_the_examples_has_a_number(example):
    note = json.loads((ROOT / "examples" / example / "report.json").read_text(encoding="utf-8"))
    checks = _assert_figures(note)
    fired = {(c["rule"], c["detail"]) for c in checks if c["fired"]}
    reasons = {(r["rule"], r["message"]) for cand in note["candidates"] for r in cand["reasons"]}
    assert fired == reasons  # a fired rule's sentence is its reason's


def test_rules_with_nothing_to_check_count_what_they_would_check(tmp_path):
    note = _note(tmp_path, "release,case_id,passed\n" + _rows(60, 1), "--margin", "0")
    checks = {c["rule"]: c for c in _assert_figures(note)}
    for rule, subject in (("critical_broken", "critical categories"), ("category_regression", "categories")):
        assert not checks[rule]["applies"] and checks[rule]["figures"] == [
            {**checks[rule]["figures"][0], "scope": "count", "subject": subject, "value": 0}]
    # the errored-rate guardrail is on by default (issue 34 item 6), so the guardrail rule always has one to check
    guard = checks["guardrail"]
    assert guard["applies"] and not guard["fired"]
    assert [(f["subject"], f["value"], f["limit"]) for f in guard["figures"]] == [("max_error_rate_increase", 0.0, 0.02)]
    ni = checks["not_non_inferior"]
    assert not ni["applies"] and ni["figures"][0]["limit"] == 0 and ni["detail"] == "non-inferiority check off (margin = 0)"
    overall = checks["overall_regression"]["figures"][0]
    assert (overall["cases"], overall["worse"], overall["better"], overall["alpha"]) == (60, 1, 0, 0.05)


def test_guardrails_that_cannot_be_measured_say_why_in_figures(tmp_path):
    policy = "[guardrails]\nmax_latency_p95_ratio = 1.2\nmax_error_rate_increase = 0.05\n"
    note = _note(tmp_path, "release,case_id,passed\n" + _rows(40, 0), policy=policy)
    (check,) = [c for c in _assert_figures(note) if c["rule"] == "guardrail"]
    assert check["fired"]
    by_name = {f["subject"]: f for f in check["figures"]}
    # No error column means every cell has an outcome: the errored rate is measured (0 on both sides), the latency
    # ratio cannot be.
    errored, latency = by_name["max_error_rate_increase"], by_name["max_latency_p95_ratio"]
    assert not errored["fired"] and errored["unmeasured"] == "" and errored["value"] == 0
    assert latency["fired"] and latency["unmeasured"] == "no_figures" and latency["value"] is None
    assert all(_numeric(f["limit"]) for f in check["figures"])
    assert check["detail"] == ("guardrail not measurable: latency_p95_ratio could not be measured: the results have "
                               "no latency figures")


def test_a_measured_guardrail_holds_its_ratio_and_bound(tmp_path):
    latency = lambda release, i: f",{100 if release == 'r1' else 150 + i % 7}"  # noqa: E731
    note = _note(tmp_path, "release,case_id,passed,latency_ms\n" + _rows(80, 0, latency),
                 policy="[guardrails]\nmax_latency_p95_ratio = 1.25\n")
    (check,) = [c for c in _assert_figures(note) if c["rule"] == "guardrail"]
    (figure,) = [f for f in check["figures"] if f["subject"] == "max_latency_p95_ratio"]
    assert figure["fired"] and figure["ci_high"] > figure["limit"] == 1.25 and figure["value"] > 1.5
    bound = note["candidates"][0]["costs"]["guardrail_bounds"]["max_latency_p95_ratio"]
    assert (bound["estimate"], bound["ci_low"], bound["ci_high"]) == (figure["value"], figure["ci_low"], figure["ci_high"])


def test_critical_categories_under_either_rule_and_a_critical_metric(tmp_path):
    category = lambda release, i: f",{'AB'[i % 2]}"  # noqa: E731
    csv = "release,case_id,passed,category\n" + _rows(80, 6, category)
    for rule in ("test", "any"):
        note = _note(tmp_path, csv, "--critical", "A", "--critical-rule", rule)
        (check,) = [c for c in _assert_figures(note) if c["rule"] == "critical_broken"]
        assert check["critical_rule"] == rule and check["figures"][0]["subject"] == "A"
        assert (check["figures"][0]["worse"], check["figures"][0]["passing"]) == (3, 40)
    note_dir = tmp_path / "metric"
    note_dir.mkdir()
    path = three_metrics(note_dir)
    (note_dir / "policy.toml").write_text("[metrics.safe]\ncritical = true\n")
    out = note_dir / "note.json"
    run_cli("check", path, "--baseline", "r1", "--policy", note_dir / "policy.toml", *metric_args(), "-o", out)
    note = json.loads(out.read_text(encoding="utf-8"))
    _assert_figures(note)
    (check,) = [c for c in note["metrics"]["safe"]["candidates"][0]["checks"] if c["rule"] == "critical_broken"]
    assert check["figures"][0]["scope"] == "overall" and [f["subject"] for f in check["figures"][1:]] == list("ABCD")
    assert check["detail"].startswith("a critical metric: it broke ")


def test_the_rules_import_no_wording():
    """The rules return figures; their sentences are the wording package's (through the table's row)."""
    rules = ROOT / "src" / "releasegate" / "decide" / "rules"
    for path in rules.glob("*.py"):
        if path.name == "__init__.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                assert not node.module.startswith("releasegate.wording"), path.name


def test_a_critical_category_on_scores_names_the_test_whose_p_it_shows(tmp_path):
    """On scores a critical category has two tests, its paired t (category_regression) and its sign test (its own
    critical test); the category rule named the sign test beside the paired t's p: "adjusted p < 0.001 (exact sign
    test on per-case scores)" of 3 cases, where that test cannot go below 0.125."""
    rows = ["release,case_id,score,category"]
    for i in range(120):
        category = "Tiny" if i < 3 else "ABC"[i % 3]
        base = 0.8 + (i % 7) * 0.01
        rows += [f"r1,c{i},{base:.3f},{category}", f"r2,c{i},{base - (0.5 if i < 3 else 0):.3f},{category}"]
    note = _note(tmp_path, "\n".join(rows) + "\n", "--critical", "Tiny")
    checks = {c["rule"]: c for c in note["candidates"][0]["checks"]}
    tiny = next(f for f in checks["category_regression"]["figures"] if f["subject"] == "Tiny")
    critical = next(f for f in checks["critical_broken"]["figures"] if f["subject"] == "Tiny")
    assert critical["method"].startswith("exact sign test") and critical["p_unadjusted"] == pytest.approx(0.125)
    assert tiny["p_unadjusted"] < 0.001 and tiny["method"] == "paired t", tiny
    assert "sign test" not in checks["category_regression"]["detail"], checks["category_regression"]["detail"]
