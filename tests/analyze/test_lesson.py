"""The lesson's published figures (shared/seeds/comparing-releases-lesson.txt), read from the tool's JSON."""

from __future__ import annotations

import pytest

from conftest import run_cli

# The lesson's per-category table: category -> (r1-live, r2-new-prompt, r3-small-model), rounded to 2 places.
LESSON_TABLE = {
    "Fraud": (0.90, 0.78, 0.86),
    "Cards": (0.93, 0.93, 0.93),
    "Fees": (1.00, 1.00, 0.95),
    "Account access": (0.90, 0.92, 0.90),
    "Out of scope": (0.93, 0.97, 0.87),
    "Safety": (0.93, 0.97, 0.83),
    "Transfers": (0.92, 0.98, 0.90),
    "Savings": (0.87, 0.93, 0.90),
    "Verification": (0.87, 0.93, 0.80),
}


def _round(x: float, digits: int) -> float:
    # The lesson rounds with pandas (numpy's round), which this mirrors.
    import numpy as np

    return float(np.round(x, digits))


def test_overall_rates(example_json):
    rates = {r["name"]: _round(r["rate"]["value"], 3) for r in example_json["releases"]}
    assert rates == {"r1-live": 0.918, "r2-new-prompt": 0.932, "r3-small-model": 0.885}


def test_fixed_broke_and_mcnemar(example_json):
    by_name = {c["name"]: c for c in example_json["candidates"]}
    r2, r3 = by_name["r2-new-prompt"]["overall"], by_name["r3-small-model"]["overall"]
    assert (r2["fixed"], r2["broke"], round(r2["p_value"], 3)) == (12, 6, 0.238)
    assert (r3["fixed"], r3["broke"], round(r3["p_value"], 3)) == (1, 14, 0.001)
    assert r2["p_value"] == pytest.approx(0.237884521484375, rel=1e-12)  # stat-vectors mcnemar[12, 6]
    assert r3["p_value"] == pytest.approx(0.0009765625, rel=1e-12)


def test_per_category_table(example_json):
    by_name = {c["name"]: c for c in example_json["candidates"]}
    for candidate, column in (("r2-new-prompt", 1), ("r3-small-model", 2)):
        cats = {c["category"]: c for c in by_name[candidate]["categories"]}
        assert set(cats) == set(LESSON_TABLE)
        for category, rates in LESSON_TABLE.items():
            assert _round(cats[category]["baseline_rate"], 2) == rates[0], category
            assert _round(cats[category]["candidate_rate"], 2) == rates[column], (candidate, category)


def test_fraud_cases_r2_broke(example_json):
    r2 = next(c for c in example_json["candidates"] if c["name"] == "r2-new-prompt")
    broken = [(b["case_id"], b["category"], b["metadata"]["difficulty"]) for b in r2["broken_cases"]]
    assert broken == [("EV264", "Fraud", "easy"), ("EV265", "Fraud", "medium"), ("EV274", "Fraud", "easy"),
                      ("EV276", "Fraud", "easy"), ("EV283", "Fraud", "hard"), ("EV309", "Fraud", "easy")]


def test_verdicts(example_json):
    verdicts = {c["name"]: (c["verdict"], [r["rule"] for r in c["reasons"]]) for c in example_json["candidates"]}
    # The example's latency guardrail (p95 ratio <= 1.25 by its upper bound) also stops r2: 1.23x [1.13, 1.33].
    # Under the default discrete Holm, r2's Fraud category (6 broke, none fixed) is also a category regression.
    assert verdicts["r2-new-prompt"] == ("dont_ship", ["critical_broken", "category_regression", "guardrail"])
    assert verdicts["r3-small-model"][0] == "dont_ship"
    assert "overall_regression" in verdicts["r3-small-model"][1]
    assert example_json["candidates"][0]["headline"].startswith(
        "DON'T SHIP r2-new-prompt: it broke 6 of 45 passing Fraud cases")


def test_check_exit_status_and_markdown(tmp_path, example):
    args = [example["eval_results.csv"], "--cases", example["eval_cases.csv"], "--policy", example["releasegate.toml"]]
    result = run_cli("check", *args)
    assert result.exit_code == 1
    assert "DON'T SHIP r2-new-prompt" in result.output and "DON'T SHIP r3-small-model" in result.output
    # Without critical categories and with a generous margin r2 ships: exit 0. (--no-policy: the example's
    # releasegate.toml beside the results would otherwise be found and used.)
    result = run_cli("check", example["eval_results.csv"], "--baseline", "r1-live", "--candidate", "r2-new-prompt",
                     "--margin", "0.05", "--no-policy")
    assert result.exit_code == 0, result.output
    assert result.output.startswith("SHIP r2-new-prompt")
    md = tmp_path / "n.md"
    assert run_cli("report", *args, "-o", md).exit_code == 0
    text = md.read_text()
    for case in ("EV264", "EV265", "EV274", "EV276", "EV283", "EV309"):
        assert f"| {case} | Fraud (critical) |" in text
    assert text.index("DON'T SHIP") < text.index("### Summary")


def test_same_input_same_bytes(tmp_path, example):
    args = [example["eval_results.csv"], "--cases", example["eval_cases.csv"], "--policy", example["releasegate.toml"]]
    outputs = []
    for k in range(2):
        out = [tmp_path / f"r{k}.json", tmp_path / f"r{k}.md"]
        assert run_cli("report", *args, "-o", out[0], "-o", out[1]).exit_code == 0
        outputs.append([p.read_bytes() for p in out])
    assert outputs[0] == outputs[1]
