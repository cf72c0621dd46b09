"""Three verdicts (issue 34 items 1 and 2): SHIP, NOT PROVEN, DON'T SHIP; check's exit status 0 / 3 / 1 (0 for
NOT PROVEN under ``not_proven = "warn"``); every NOT PROVEN says what would settle it; and the decision rule's
error rates on simulated releases for each of the three outcomes."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from releasegate.decide.rules import decision_of
from releasegate.model import Decision
from releasegate.policy import make_policy
from conftest import run_cli
from verdict_support import harmless_release

def _check(tmp_path: Path, csv: str, *args: str):
    path = tmp_path / "results.csv"
    path.write_text(csv)
    out = tmp_path / "note.json"
    result = run_cli("check", path, "--baseline", "r1", "--no-policy", *args, "-o", out,
                     "--no-step-summary")
    return result, json.loads(out.read_text(encoding="utf-8"))


def test_a_harmless_200_case_release_at_16_percent_churn_is_not_proven_and_says_what_would_settle_it(tmp_path):
    result, note = _check(tmp_path, harmless_release())
    assert result.exit_code == 3, result.output
    (cand,) = note["candidates"]
    assert cand["verdict"] == "not_proven"
    assert [r["rule"] for r in cand["reasons"]] == ["not_non_inferior"]
    assert (cand["overall"]["fixed"], cand["overall"]["broke"]) == (15, 16)  # 15.5% churn, one more broken
    settle = cand["settle"]
    low, high = settle["cases_needed"]
    assert 200 < low < high  # more cases than it has, more again for 95%
    line, *following = [out for out in result.output.splitlines() if not out.startswith("wrote ")]
    assert line.startswith("NOT PROVEN r2: the data cannot show it is no worse") and line.endswith(".")
    # The CI line is the verdict and its reason; what would settle it follows, a sentence to an indented line.
    assert "What would settle it" not in line and len(line) < 300
    assert all(more.startswith("  ") for more in following) and len(following) == 3
    settles, runs, later = (more.strip() for more in following)
    assert f"What would settle it: at no true difference, a suite of {low:,} cases ({low - 200:,} more) " \
           f"gives an 80% chance of showing it no worse, {high:,} ({high - 200:,} more) 95% (these 200: " \
           f"{round(100 * settle['power'])}%)" in settles
    # One run of each release and no rerun: whether more runs would help cannot be told, and the note says so.
    assert settle["runs_reason"] == "unknown" and runs.startswith("Whether more runs would help is unknown: ")
    assert later.startswith("Comparing again after adding them is a later look at the same releases")
    # Joined with spaces, the lines are the note's own headline.
    assert " ".join([line, settles, runs, later]) == cand["headline"]
    assert note["ship"] is False  # NOT PROVEN never reads as SHIP


def test_settling_figures_are_the_rules_own_chance():
    # The 80% figure: at those cases the non-inferiority rule's exact chance (summed over the discordant
    # counts) reaches 80%, one case fewer it does not.
    from releasegate.stats.settle import noninferiority_chance, settle_noninferiority

    plan = settle_noninferiority(200, 0.16, 0.05, 0.05, pass_rate=0.9)
    n80 = plan.cases_needed[0]
    assert noninferiority_chance(n80, 0.16, 0.9, 0.05, 0.05) >= 0.8 > noninferiority_chance(n80 - 1, 0.16, 0.9,
                                                                                             0.05, 0.05) - 1e-3


def test_not_proven_warn_passes_the_gate_and_the_note_says_so(tmp_path):
    result, note = _check(tmp_path, harmless_release(), "--not-proven", "warn")
    assert result.exit_code == 0, result.output
    assert note["candidates"][0]["verdict"] == "not_proven" and note["policy"]["not_proven"] == "warn"
    assert result.output.splitlines()[-2].startswith('  Allowed by the policy (not_proven = "warn"): the gate passes')
    md = tmp_path / "note.md"
    run_cli("report", tmp_path / "results.csv", "--baseline", "r1", "--no-policy", "--not-proven", "warn",
            "-o", md)
    text = md.read_text(encoding="utf-8")
    assert "⚠️ **NOT PROVEN**" in text and "✅ **SHIP**" not in text


def test_the_policy_key_is_checked(tmp_path):
    path = tmp_path / "results.csv"
    path.write_text(harmless_release())
    policy = tmp_path / "p.toml"
    policy.write_text('not_proven = "maybe"\n')
    result = run_cli("check", path, "--baseline", "r1", "--policy", policy)
    assert result.exit_code == 2 and "unknown not_proven 'maybe'" in result.output
    policy.write_text('not_proven = "warn"\n')
    assert run_cli("check", path, "--baseline", "r1", "--policy", policy, "--no-step-summary").exit_code == 0
    # The flag wins over the file.
    assert run_cli("check", path, "--baseline", "r1", "--policy", policy, "--not-proven", "block",
                   "--no-step-summary").exit_code == 3


def test_several_candidates_exit_1_for_any_dont_ship_else_3_for_any_not_proven(tmp_path):
    head, *rows = harmless_release().splitlines()
    r1 = [r for r in rows if r.startswith("r1,")]
    r2 = [r for r in rows if r.startswith("r2,")]

    def copy(name: str, broken: int = 0) -> list[str]:
        """The baseline again as ``name``, its first ``broken`` passing cases failed."""
        out = []
        for row in r1:
            _, case, passed, category = row.split(",")
            if broken and passed == "1":
                passed, broken = "0", broken - 1
            out.append(f"{name},{case},{passed},{category}")
        return out

    r3, r4 = copy("r3"), copy("r4", broken=40)  # SHIP (no change at all), DON'T SHIP (40 broken)

    def verdicts(*releases):
        result, note = _check(tmp_path, "\n".join([head, *r1, *(r for rel in releases for r in rel)]) + "\n")
        return result.exit_code, [c["verdict"] for c in note["candidates"]]

    assert verdicts(r2, r3) == (3, ["not_proven", "ship"])
    assert verdicts(r2, r3, r4) == (1, ["not_proven", "ship", "dont_ship"])
    assert verdicts(r3) == (0, ["ship"])


def test_a_40_percent_errored_candidate_does_not_ship(tmp_path):
    rng = np.random.default_rng(40)
    n = 200
    base = rng.random(n) < 0.9
    errored = np.zeros(n, dtype=bool)
    errored[rng.permutation(n)[:79]] = True  # 39.5%, the figure
    rows = ["release,case_id,passed,error"]
    rows += [f"r1,c{i:03d},{int(base[i])}," for i in range(n)]
    rows += [f"r2,c{i:03d},{0 if errored[i] else int(base[i])},{'timeout' if errored[i] else ''}" for i in range(n)]
    result, note = _check(tmp_path, "\n".join(rows) + "\n")
    (cand,) = note["candidates"]
    assert cand["verdict"] == "dont_ship" and result.exit_code == 1, result.output
    assert "guardrail" in [r["rule"] for r in cand["reasons"]]


def test_the_verdict_of_the_rules_that_fired():
    assert decision_of(()) is Decision.SHIP
    assert decision_of(("not_non_inferior",)) is Decision.NOT_PROVEN
    for rule in ("critical_broken", "overall_regression", "category_regression", "guardrail", "no_such_rule"):
        assert decision_of((rule,)) is Decision.DONT_SHIP
        assert decision_of((rule, "not_non_inferior")) is Decision.DONT_SHIP
    assert Decision.worst([Decision.SHIP, Decision.NOT_PROVEN]) is Decision.NOT_PROVEN
    assert Decision.worst([Decision.NOT_PROVEN, Decision.DONT_SHIP, Decision.SHIP]) is Decision.DONT_SHIP
    assert Decision.worst([]) is Decision.SHIP
    assert Decision.NOT_PROVEN.label == "NOT PROVEN" and Decision.NOT_PROVEN == "not_proven"


def _within(rate, bound: float, k: float = 2.5) -> bool:
    return rate.rate <= bound + k * math.sqrt(bound * (1 - bound) / rate.reps)


def test_the_decision_rule_by_its_error_rates_on_simulated_releases():
    """Each outcome where it belongs, on 400 seeded releases a design: a harmless release on a 200-case suite
    at 16% churn is DON'T SHIP at most alpha (within 2.5 standard errors) and NOT PROVEN often (the data cannot
    show it no worse); on a 1,500-case suite at 4% churn it SHIPs at least 90% of the time and is never NOT
    PROVEN; an 8-point regression at 10% churn is DON'T SHIP at least 90% of the time and SHIPs never."""
    from releasegate.plan.evaluate import operating_characteristics
    from releasegate.plan.gate import plan_gate
    from releasegate.plan.simulate import ReleaseScenario

    policy = replace(make_policy({}, baseline="a"), guardrails={})
    small, large, worse = operating_characteristics(plan_gate(policy), [
        ReleaseScenario(n=200, churn=0.16, categories=4),
        ReleaseScenario(n=1500, churn=0.04, categories=4),
        ReleaseScenario(n=400, churn=0.10, drop=0.08, categories=4),
    ], reps=400, seed=34)
    assert _within(small.dont_ship, policy.alpha) and small.not_proven.rate > 0.3
    assert small.block.rate == pytest.approx(small.dont_ship.rate + small.not_proven.rate)
    assert _within(large.dont_ship, policy.alpha) and large.not_proven.rate < 0.01
    assert 1 - large.block.rate >= 0.9
    assert worse.dont_ship.rate >= 0.9 and worse.block.rate == 1.0
