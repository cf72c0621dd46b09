"""A critical metric (issue 16: ``[metrics.NAME] critical = true``): its regression blocks by the critical test
of issue 21 (the one-sided exact McNemar test of broke against fixed, in the one error budget of issue 34), applied
to the metric's overall comparison and to every category; the across-metric correction scales only the
ordinary regression rules."""

from __future__ import annotations

import json

import pytest

from conftest import run_cli

METRICS = ("correct", "safe", "format_ok")
N, CATEGORIES = 200, "ABCD"  # 50 cases per category, 45 of them passing on the baseline


def _passing(category: str) -> list[int]:
    return [i for i in range(N) if CATEGORIES[i // 50] == category and i % 10 != 9]


def _failing(category: str) -> list[int]:
    return [i for i in range(N) if CATEGORIES[i // 50] == category and i % 10 == 9]


def _write(tmp_path, *, safe_broke: int = 6, safe_fixed_elsewhere: int = 3, policy: str = "",
           broken: set[int] | None = None, categories: bool = True) -> tuple:
    """correct and format_ok churn evenly (2 broke, 2 fixed, spread over the categories); safe breaks
    ``safe_broke`` of category B's 45 passing cases with none of B fixed, and fixes ``safe_fixed_elsewhere``
    cases of the other categories (so safe's overall regression is not significant). ``broken`` replaces the
    cases safe breaks; without ``categories`` the file has no category column."""
    passing = [i for i in range(N) if i % 10 != 9]
    failing = [i for i in range(N) if i % 10 == 9]
    elsewhere = [i for i in failing if CATEGORIES[i // 50] != "B"]
    changed = {"correct": (set(passing[3::40][:2]), set(failing[1::7][:2])),
               "format_ok": (set(passing[11::40][:2]), set(failing[2::7][:2])),
               "safe": (broken if broken is not None else set(_passing("B")[:safe_broke]),
                        set(elsewhere[:safe_fixed_elsewhere]))}
    lines = ["release,case_id" + (",category," if categories else ",") + ",".join(METRICS)]
    for release in ("r1", "r2"):
        for i in range(N):
            base = int(i % 10 != 9)
            values = [base if release == "r1" else int((base and i not in changed[m][0]) or i in changed[m][1])
                      for m in METRICS]
            label = f"{CATEGORIES[i // 50]}," if categories else ""
            lines.append(f"{release},c{i:04d},{label}" + ",".join(map(str, values)))
    data = tmp_path / "three.csv"
    data.write_text("\n".join(lines) + "\n")
    toml = tmp_path / "policy.toml"
    toml.write_text(policy)
    return data, toml


def _check(tmp_path, data, toml, *extra):
    out = tmp_path / "note.json"
    result = run_cli("check", data, "--baseline", "r1", "--policy", toml, *extra,
                     *[a for m in METRICS for a in ("--metric", m)], "-o", out)
    return result, (json.loads(out.read_text()) if out.exists() else None)


def _safe(note: dict) -> dict:
    """safe's single-metric note for the one candidate."""
    return note["metrics"]["safe"]["candidates"][0]


# critical_weight 10 (the default was 10 when these figures were worked out by hand; a critical metric's tests
# keep the conditional exact McNemar test whatever critical_test says).
CRITICAL = "critical_weight = 10\n[metrics.safe]\ncritical = true\n"


def test_a_critical_metric_blocks_by_the_critical_test_where_the_corrected_category_test_does_not(tmp_path):
    data, toml = _write(tmp_path, policy=CRITICAL)
    result, note = _check(tmp_path, data, toml)
    assert result.exit_code == 1
    assert result.output.splitlines()[0] == (
        "DON'T SHIP r2: safe blocks (a critical metric: it broke 6 of 45 passing B cases (fixed none; "
        "one-sided exact McNemar p = 0.016, adjusted 0.035 in the error budget at alpha 0.05 (weight 2 each: critical_weight 10 shared by 5 tests)); overall -1.5 points [-5.0, +1.8] (McNemar "
        "p = 0.508, not significant)); correct and format_ok pass.")
    safe = _safe(note)
    assert [r["rule"] for r in safe["reasons"]] == ["critical_broken"]
    b = next(c for c in safe["categories"] if c["category"] == "B")
    # The category's own regression: 6 broke, none fixed, one-sided 2^-6. In the family B (weight 1/4 + 2)
    # steps first, where the overall member (weight 1 + 2, 6 broke and 3 fixed) is read at 3 / 2.25 x 1/64 and
    # can spend P(Bin(9, 1/2) >= 8) = 10/512: adjusted 1/64 + 10/512 = 0.0352, times 3 metrics 0.105, not
    # significant at 0.05.
    assert (b["broke"], b["fixed"], b["p_one_sided"]) == (6, 0, 1 / 64)
    assert b["p_adjusted"] == pytest.approx(3 * (1 / 64 + 10 / 512)) and b["p_adjusted"] > 0.05
    tests = {t["label"]: t for t in safe["critical"]["tests"]}
    assert list(tests) == list(CATEGORIES)  # every category is critical, not only the named ones
    assert tests["B"]["blocks"] and tests["B"]["p_regression"] == 1 / 64  # unadjusted: the critical test's level
    assert not any(t["blocks"] for label, t in tests.items() if label != "B")
    overall = safe["critical"]["overall"]
    # Overall 6 broke, 3 fixed: P(X >= 6), X ~ Bin(9, 1/2) = 130/512, far above alpha.
    assert (overall["worse"], overall["better"], overall["p_regression"], overall["blocks"]) == (6, 3, 130 / 512, False)
    assert note["candidates"][0]["blocking_metrics"] == ["safe"]


def test_the_same_file_with_safe_not_critical_ships(tmp_path):
    data, toml = _write(tmp_path)
    result, note = _check(tmp_path, data, toml)
    assert result.exit_code == 0, result.output
    assert result.output.startswith("SHIP r2: all 3 metrics pass")
    assert "critical" not in _safe(note)
    b = next(c for c in _safe(note)["categories"] if c["category"] == "B")
    assert b["p_adjusted"] > 0.05  # the regression rules alone let the broken category pass


def test_a_critical_metric_blocks_on_its_overall_test_when_no_category_does(tmp_path):
    # 3 broken in each of the 4 categories, 3 fixed in A: each category 3 against at most 3 (p >= 0.125),
    # overall 12 against 3: P(X >= 12), X ~ Bin(15, 1/2) = 576/32768 = 0.018 <= 0.1.
    broken = {i for c in CATEGORIES for i in _passing(c)[:3]}
    data, toml = _write(tmp_path, policy=CRITICAL, broken=broken)
    result, note = _check(tmp_path, data, toml)
    assert result.exit_code == 1
    safe = _safe(note)
    assert safe["reasons"][0]["rule"] == "critical_broken"
    assert "it broke 12 of 180 passing cases overall (fixed 3; one-sided exact McNemar p = 0.018" in \
        safe["reasons"][0]["message"]
    assert safe["critical"]["overall"]["p_regression"] == 576 / 32768
    assert not any(t["blocks"] for t in safe["critical"]["tests"])
    # Not critical, the overall regression test does not reach significance after the correction; only the
    # margin rule (a 4.5-point drop of 200 cases) blocks.
    data, toml = _write(tmp_path, broken=broken)
    result, note = _check(tmp_path, data, toml)
    assert [r["rule"] for r in _safe(note)["reasons"]] == ["not_non_inferior"]
    assert _safe(note)["overall"]["p_adjusted"] > 0.05


def test_critical_rule_any_blocks_on_one_broken_case_of_the_critical_metric(tmp_path):
    data, toml = _write(tmp_path, safe_broke=1, policy=CRITICAL)
    result, note = _check(tmp_path, data, toml)
    assert result.exit_code == 0, result.output  # 1 broke: the test's p is 0.5
    assert "does not block, smallest one-sided p = 0.500" in next(
        c["detail"] for c in _safe(note)["checks"] if c["rule"] == "critical_broken")
    data, toml = _write(tmp_path, safe_broke=1, policy='critical_rule = "any"\n' + CRITICAL)
    result, note = _check(tmp_path, data, toml)
    assert result.exit_code == 1
    message = _safe(note)["reasons"][0]["message"]
    assert "1 of 45 passing B cases (fixed none; zero tolerance, critical_rule = any)" in message
    assert "cases overall" in message  # one broken case blocks overall too


def test_a_critical_metric_without_categories_is_tested_overall(tmp_path):
    broken = {i for c in CATEGORIES for i in _passing(c)[:3]}
    data, toml = _write(tmp_path, policy=CRITICAL, broken=broken, categories=False)
    result, note = _check(tmp_path, data, toml)
    assert result.exit_code == 1
    section = _safe(note)["critical"]
    assert section["tests"] == [] and section["overall"]["blocks"]


def test_critical_categories_named_in_the_policy_stay_among_a_critical_metrics_tests(tmp_path):
    data, toml = _write(tmp_path, policy='critical = ["B"]\n' + CRITICAL)
    _, note = _check(tmp_path, data, toml)
    labels = [t["label"] for t in _safe(note)["critical"]["tests"]]
    assert labels == ["B", "A", "C", "D"]
    # The other metrics keep the policy's critical categories only.
    assert [t["label"] for t in note["metrics"]["correct"]["candidates"][0]["critical"]["tests"]] == ["B"]


def test_critical_yes_is_refused_with_one_line(tmp_path):
    data, toml = _write(tmp_path, policy='[metrics.safe]\ncritical = "yes"\n')
    result, note = _check(tmp_path, data, toml)
    assert result.exit_code == 2 and note is None
    assert result.output.strip().splitlines() == [
        "releasegate: error[policy]: policy [metrics.safe]: critical must be true or false, got 'yes'"]


def test_a_critical_metrics_tests_share_critical_weight():
    """Overall + 4 categories: each test weighs critical_weight / 5 = 0.8 in the error budget, added to the
    overall test's 1 and each category's 1 / 4. A category with 5 broken and none fixed (one-sided p = 1/32 =
    0.031) blocks as a critical category on its own (weight 1 / 4 + 4: the overall test, on the same five cases,
    cannot reach p / 17) and inside a critical metric too: there the overall member (1 + 0.8) steps first at
    lambda = p / 1.8, where the category (1 / 4 + 0.8) is read at 0.018 and cannot spend (its floor is 1/32), so
    the overall spends 1/32 alone, and the category then steps with the overall's weight passed on."""
    import numpy as np

    from releasegate.analyze.candidate import plan_arrays
    from releasegate.model import CriticalScope
    from releasegate.policy import Policy

    labels = ["c0", "c1", "c2", "c3"]
    codes = np.repeat(np.arange(4), 50)
    for broken, blocks_in_metric in ((5, True), (6, True)):
        base = np.ones(200)
        cand = base.copy()
        cand[:broken] = 0  # all in c0
        policy = Policy(critical=tuple(labels), critical_weight=4, critical_test="conditional")
        alone = plan_arrays(base, cand, policy, mcnemar=True, category_codes=codes, category_labels=labels).critical
        metric = plan_arrays(base, cand, policy, mcnemar=True, category_codes=codes, category_labels=labels,
                             critical=CriticalScope(tuple(labels), metric=True)).critical
        assert alone.split == 1 and alone.weight == 4 and alone.tests[0].blocks
        assert metric.split == 5 and metric.weight == pytest.approx(0.8)
        assert metric.tests[0].p_regression == pytest.approx(0.5 ** broken)
        assert metric.tests[0].blocks is blocks_in_metric
