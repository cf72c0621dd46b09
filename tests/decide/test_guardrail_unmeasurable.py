"""A guardrail whose figure cannot be computed fires (issue 15, item 3): what the gate could not check must not
SHIP. Each way the figure goes missing is one case: no column, every latency zero, negative or blank, totals that
overflow, a single valid pair."""

from __future__ import annotations

import json

import pytest

from conftest import run_cli


def _results(tmp_path, base: dict, cand: dict, n: int = 20):
    lines = ["release,case_id,passed," + ",".join(base)]
    for release, columns in (("r1", base), ("r2", cand)):
        for i in range(n):
            values = [str(columns[c][i] if isinstance(columns[c], list) else columns[c]) for c in columns]
            lines.append(f"{release},c{i},1," + ",".join(values))
    path = tmp_path / "results.csv"
    path.write_text("\n".join(lines) + "\n")
    return path


def _check(tmp_path, path, guardrail: str):
    policy = tmp_path / "policy.toml"
    policy.write_text(f'baseline = "r1"\nmargin = 0\n[guardrails]\n{guardrail} = 1.1\n')
    out = tmp_path / "out.json"
    result = run_cli("check", path, "--policy", policy, "-o", out)
    cand = json.loads(out.read_text())["candidates"][0]
    return result.exit_code, next(c for c in cand["checks"] if c["rule"] == "guardrail")


@pytest.mark.parametrize(("name", "base", "cand", "guardrail", "why"), [
    ("zero latencies", {"latency_ms": 100}, {"latency_ms": 0}, "max_latency_p95_ratio", "no paired case"),
    ("negative latencies", {"latency_ms": 100}, {"latency_ms": -5}, "max_latency_mean_ratio", "no paired case"),
    ("blank latencies", {"latency_ms": 100}, {"latency_ms": ""}, "max_latency_p95_ratio", "no paired case"),
    ("overflowing cost", {"cost": 1.0}, {"cost": 1e307}, "max_cost_ratio", "not a finite number"),
    ("no cost column", {"latency_ms": 100}, {"latency_ms": 100}, "max_cost_ratio", "no cost figures"),
])
def test_an_unmeasurable_guardrail_blocks(tmp_path, name, base, cand, guardrail, why):
    code, check = _check(tmp_path, _results(tmp_path, base, cand), guardrail)
    assert code == 1, name
    assert check["fired"] and "could not be measured" in check["detail"] and why in check["detail"], check


def test_a_measured_guardrail_within_its_limit_still_passes(tmp_path):
    latencies = [100 + i for i in range(20)]
    code, check = _check(tmp_path, _results(tmp_path, {"latency_ms": latencies}, {"latency_ms": latencies}),
                         "max_latency_mean_ratio")
    assert code == 0 and not check["fired"], check


@pytest.mark.parametrize(("priced", "code", "said"), [
    ("r1", "none_on_candidate", "the candidate has no cost figures, the baseline has"),
    ("r2", "none_on_baseline", "the baseline has no cost figures, the candidate has"),
])
def test_prices_for_one_release_name_the_side_without_them(tmp_path, priced, code, said):
    """Prices for one release only: the cost guardrail blocks, and says which release has no cost, where it said
    "the results have no cost figures" beside a costs table showing the other release's cost."""
    path = _results(tmp_path, {"input_tokens": 100, "output_tokens": 50}, {"input_tokens": 100, "output_tokens": 50})
    policy = tmp_path / "policy.toml"
    policy.write_text(f'baseline = "r1"\nmargin = 0\n[guardrails]\nmax_cost_ratio = 1.1\n'
                      f'[prices.{priced}]\ninput_per_million = 1\noutput_per_million = 2\n')
    out = tmp_path / "out.json"
    result = run_cli("check", path, "--policy", policy, "-o", out)
    check = next(c for c in json.loads(out.read_text())["candidates"][0]["checks"] if c["rule"] == "guardrail")
    assert result.exit_code == 1 and check["fired"], check
    assert check["figures"][0]["unmeasured"] == code and said in check["detail"], check
    assert "the results have no cost figures" not in result.output, result.output
