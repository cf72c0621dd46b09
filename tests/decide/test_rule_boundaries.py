"""Each rule at the edge of its threshold, read through the whole pipeline: the SPEC's rules fire when an adjusted
p is *below* alpha and when an error rate rises *above* its limit, so a p exactly at alpha or an increase exactly
at the limit does not fire, and the error-rate guardrail needs both its conditions, never either alone.

An exact one-sided McNemar p is a power of 1/2 when every changed case went one way (k broken, none fixed:
p = 2^-k), so with alpha = 1/16 four broken cases put the p exactly at alpha and five just below it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import run_cli
from releasegate.decide.rules.critical_doubt import unreachable

DYADIC_ALPHA = "0.0625"  # 2^-4: the one-sided p of four broken cases and none fixed


def _rows(n: int, broke: int, *, errored: int = 0, category=None) -> str:
    """``n`` cases passing on r1; on r2 the first ``broke`` fail and the next ``errored`` error (no outcome)."""
    header = "release,case_id,passed,error" + (",category" if category else "")
    lines = [header]
    for release in ("r1", "r2"):
        for i in range(n):
            passed, error = "1", ""
            if release == "r2" and i < broke:
                passed = "0"
            elif release == "r2" and i < broke + errored:
                passed, error = "", "timeout"
            lines.append(f"{release},c{i:04d},{passed},{error}" + (f",{category(i)}" if category else ""))
    return "\n".join(lines) + "\n"


def _figures(tmp_path: Path, csv: str, *args: str) -> dict[str, list[dict]]:
    """Each rule's figures in the JSON note of ``check`` on ``csv``, by rule name."""
    path, out = tmp_path / "results.csv", tmp_path / "note.json"
    path.write_text(csv)
    result = run_cli("check", path, "--baseline", "r1", *args, "-o", out)
    assert result.exit_code in (0, 1, 3), result.output
    note = json.loads(out.read_text(encoding="utf-8"))
    return {check["rule"]: check["figures"] for check in note["candidates"][0]["checks"]}


@pytest.mark.parametrize(("broke", "p", "fires"), [(4, 1 / 16, False), (5, 1 / 32, True)])
def test_the_overall_rule_fires_below_alpha_not_at_it(tmp_path, broke, p, fires):
    (figure,) = _figures(tmp_path, _rows(100, broke), "--alpha", DYADIC_ALPHA, "--margin", "0")["overall_regression"]
    assert figure["p"] == p and figure["alpha"] == 1 / 16
    assert figure["fired"] is fires


@pytest.mark.parametrize(("broke", "p", "fires"), [(4, 1 / 16, False), (5, 1 / 32, True)])
def test_a_category_fires_below_alpha_not_at_it(tmp_path, broke, p, fires):
    # Without a correction a category's adjusted p is its own, so it can sit exactly at alpha.
    csv = _rows(100, broke, category=lambda i: "A" if i < 40 else "B")
    figures = _figures(tmp_path, csv, "--alpha", DYADIC_ALPHA, "--margin", "0", "--correction", "none")
    by_subject = {f["subject"]: f for f in figures["category_regression"]}
    assert by_subject["A"]["p"] == p and by_subject["A"]["fired"] is fires
    assert not any(f["fired"] for f in figures["category_regression"] if f["subject"] != "A")


@pytest.mark.parametrize(("cases", "errored", "significant", "above_limit"), [
    (1000, 10, True, False),  # 1% more errors, p = 2^-10: significant but within the 2% limit
    (20, 2, False, True),  # 10% more errors on 20 cases, p = 1/4: above the limit, not shown
    (200, 10, True, True),  # 5% more errors, p = 2^-10: both, so it fires
    (500, 10, True, False),  # exactly 2% more errors: at the limit, not above it
])
def test_the_error_rate_guardrail_needs_a_significant_rise_above_its_limit(tmp_path, cases, errored, significant,
                                                                           above_limit):
    figures = _figures(tmp_path, _rows(cases, 0, errored=errored), "--margin", "0")["guardrail"]
    (figure,) = [f for f in figures if f["subject"] == "max_error_rate_increase"]
    assert figure["value"] == pytest.approx(errored / cases) and figure["limit"] == 0.02
    assert (figure["p"] < figure["alpha"]) is significant
    assert (figure["value"] > figure["limit"]) is above_limit
    assert figure["fired"] is (significant and above_limit)


def test_a_critical_category_whose_best_p_equals_the_doubt_level_can_reach_it():
    # Three cases that could break give at best p = 1/8: a doubt level of 1/8 is reachable, one just below is not.
    assert not unreachable(3, 0.125)
    assert unreachable(3, 0.1249)
    assert not unreachable(4, 0.1)
