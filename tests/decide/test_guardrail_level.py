"""Guardrails read the same level as non-inferiority (issue 21 item 6e): the upper bound of the two-sided
(1 - 2 alpha) interval, a one-sided test at alpha (90% at alpha 0.05), not the 95% interval's (one-sided
2.5%). The limit below sits between the two upper bounds, computed independently with scipy's t quantile
on the per-case log ratios (the geometric-mean latency ratio's interval)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import stats as scipy_stats

from conftest import run_cli

BASE = [100.0 + 7 * i for i in range(30)]
RATIOS = [1.0 + 0.02 * ((i * 7) % 11) - 0.05 for i in range(30)]
CAND = [b * r for b, r in zip(BASE, RATIOS)]


def upper_bound(confidence: float) -> float:
    logs = np.log(np.array(CAND) / np.array(BASE))
    se = logs.std(ddof=1) / math.sqrt(logs.size)
    return float(math.exp(logs.mean() + scipy_stats.t.ppf(0.5 + confidence / 2, logs.size - 1) * se))


def run(tmp_path, limit: float, alpha: float = 0.05):
    lines = ["release,case_id,passed,latency_ms"]
    for release, values in (("r1", BASE), ("r2", CAND)):
        lines += [f"{release},c{i},1,{v!r}" for i, v in enumerate(values)]
    path = tmp_path / "results.csv"
    path.write_text("\n".join(lines) + "\n")
    policy = tmp_path / "policy.toml"
    policy.write_text(f'baseline = "r1"\nmargin = 0\nalpha = {alpha}\n[guardrails]\n'
                      f"max_latency_mean_ratio = {limit!r}\n")
    out = tmp_path / "out.json"
    result = run_cli("check", path, "--policy", policy, "-o", out)
    cand = json.loads(out.read_text())["candidates"][0]
    return result.exit_code, next(c for c in cand["checks"] if c["rule"] == "guardrail")


def test_the_guardrail_reads_the_90_percent_upper_bound(tmp_path):
    u90, u95 = upper_bound(0.90), upper_bound(0.95)
    assert u90 < u95
    code, check = run(tmp_path, (u90 + u95) / 2)
    assert not check["fired"], check["detail"]  # fired on main: the 95% bound is above the limit
    assert code == 0
    assert f"the upper bound {u90:.2f}" in check["detail"] or f"{u90:.3f}" in check["detail"]


def test_above_the_90_percent_bound_it_fires(tmp_path):
    code, check = run(tmp_path, upper_bound(0.90) * 0.995)
    assert check["fired"] and code != 0


def test_the_level_follows_alpha(tmp_path):
    u80, u90 = upper_bound(0.80), upper_bound(0.90)
    _, check = run(tmp_path, (u80 + u90) / 2, alpha=0.10)
    assert not check["fired"]
    _, check = run(tmp_path, (u80 + u90) / 2, alpha=0.05)
    assert check["fired"]


def test_the_interval_is_labelled_with_its_level():
    from releasegate.analyze.guardrail_level import rule_confidence
    from releasegate.policy import make_policy

    assert rule_confidence(make_policy()) == pytest.approx(0.90)
    assert rule_confidence(make_policy(alpha=0.025)) == pytest.approx(0.95)


def test_the_method_notes_say_the_guardrails_level(example):
    from releasegate.api import compare
    from releasegate.wording.method import method_lines

    note = compare(example["eval_results.csv"], cases=example["eval_cases.csv"], policy=example["releasegate.toml"])
    text = " ".join(part for line in method_lines(note.report.analysis, note.report.sections[0].verdicts, False)
                    for _, part in line)
    assert "Guardrails: the upper bound of each ratio's 90% interval is compared with its limit" in text
    assert "one-sided test at 0.05" in text
