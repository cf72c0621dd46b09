"""The cost section through the whole pipeline (SPEC section 4 item 8, section 5 rule 4, section 6 JSON keys).

Each ratio and interval is checked where the report carries it: the JSON, the verdict and the templates.
Reference values: stat-vectors.json entry "latency_paired" (computed with numpy/scipy/R independently).
"""

from __future__ import annotations

import json
import math
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import scipy.stats
import vl_convert
from hypothesis import example, given, settings
from hypothesis import strategies as st

from conftest import build_report, run_cli, stat_vectors
from releasegate.analyze import parameters_of
from releasegate.analyze.costs import cost_sections, per_case
from releasegate.errors import InputError
from releasegate.kinds import OutcomeKind
from releasegate.model import Analysis
from releasegate.model.costs import LARGE_WORK
from releasegate.policy import make_policy
from releasegate.render.charts_costs import cost_charts
from releasegate.render.context import build_context
from releasegate.render.filters import environment
from releasegate.stats.costs import quantile_ratio_bootstrap, ratio_of_totals_bootstrap
from releasegate.validate import validate

# stat-vectors.json, entry "latency_paired".
BASE_MS = [918.6, 1111.3, 913.0, 475.0, 1149.1, 956.4, 645.4, 1009.3, 925.6, 899.9, 809.1, 995.6, 595.9, 749.5,
           659.7]
CAND_MS = [854.2, 950.3, 742.7, 359.1, 939.8, 813.9, 526.4, 1041.7, 915.0, 509.3, 518.0, 824.4, 475.4, 657.8,
           579.3]
MEDIAN_BASE, MEDIAN_CAND = 913.0, 742.7
GEOMETRIC_MEAN_RATIO = 0.8213682017289134
P95_BASE, P95_CAND = 1122.6399999999999, 977.7199999999999


def test_hard_coded_values_are_the_vectors() -> None:
    entry = stat_vectors()["latency_paired"]
    assert entry["base_ms"] == BASE_MS and entry["cand_ms"] == CAND_MS
    assert (entry["median_base"], entry["median_cand"]) == (MEDIAN_BASE, MEDIAN_CAND)
    assert entry["geometric_mean_ratio"] == GEOMETRIC_MEAN_RATIO
    assert (entry["p95_base_numpy_linear"], entry["p95_cand_numpy_linear"]) == (P95_BASE, P95_CAND)


# ------------------------------------------------------------------------------------------------- helpers


def _write(tmp_path: Path, frame: pd.DataFrame, policy: str = "") -> list[str]:
    csv = tmp_path / "results.csv"
    frame.to_csv(csv, index=False)
    toml = tmp_path / "policy.toml"
    toml.write_text('baseline = "base"\nmargin = 0.5\n' + policy)
    return [str(csv), "--policy", str(toml)]


def _report(tmp_path: Path, args: list[str]) -> dict:
    out = tmp_path / "r.json"
    result = run_cli("report", *args, "-o", out)
    assert result.exit_code == 0, result.output
    return json.loads(out.read_text())


def _vector_frame(**extra: list) -> pd.DataFrame:
    n = len(BASE_MS)
    ids = [f"c{k:02d}" for k in range(n)]
    rows = {"release": ["base"] * n + ["cand"] * n, "case_id": ids * 2, "passed": ([1] * (n - 1) + [0]) * 2,
            "latency_ms": BASE_MS + CAND_MS}
    rows.update(extra)
    return pd.DataFrame(rows)


def _candidate(report: dict, name: str = "cand") -> dict:
    return next(c for c in report["candidates"] if c["name"] == name)


def _example_report(tmp_path: Path, example: dict, extra_policy: str = "") -> dict:
    toml = tmp_path / "releasegate.toml"
    text = example["releasegate.toml"].read_text()
    if extra_policy:
        text = text.replace("[guardrails]\nmax_latency_p95_ratio = 1.25\n", "[guardrails]\n" + extra_policy)
        assert extra_policy in text
    toml.write_text(text)
    return _report(tmp_path, [str(example["eval_results.csv"]), "--cases", str(example["eval_cases.csv"]),
                              "--policy", str(toml)])


def _guardrail(candidate: dict) -> dict:
    return next(c for c in candidate["checks"] if c["rule"] == "guardrail")


# ------------------------------------------------------------------------------------- latency vectors


def test_latency_vectors_end_to_end(tmp_path) -> None:
    report = _report(tmp_path, _write(tmp_path, _vector_frame()))
    releases = {r["name"]: r for r in report["costs"]["releases"]}
    assert releases["base"]["latency_ms"]["p50"] == MEDIAN_BASE
    assert releases["cand"]["latency_ms"]["p50"] == MEDIAN_CAND
    assert releases["base"]["latency_ms"]["p95"] == pytest.approx(P95_BASE, rel=1e-12)
    assert releases["cand"]["latency_ms"]["p95"] == pytest.approx(P95_CAND, rel=1e-12)
    assert releases["base"]["latency_ms"]["mean"] == pytest.approx(np.mean(BASE_MS), rel=1e-12)
    assert "R type 7" in report["costs"]["quantile_method"]

    latency = _candidate(report)["costs"]["latency_ms"]
    assert latency["baseline_p95"] == pytest.approx(P95_BASE, rel=1e-12)
    assert latency["candidate_p95"] == pytest.approx(P95_CAND, rel=1e-12)
    assert latency["baseline_mean"] == pytest.approx(np.mean(BASE_MS), rel=1e-12)
    assert latency["candidate_mean"] == pytest.approx(np.mean(CAND_MS), rel=1e-12)
    assert latency["ratio"] == pytest.approx(GEOMETRIC_MEAN_RATIO, rel=1e-12)
    # The t interval on the log ratios, recomputed with scipy.stats, at the guardrails' level 1 - 2 alpha.
    logs = np.log(CAND_MS) - np.log(BASE_MS)
    ci = scipy.stats.ttest_1samp(logs, 0.0).confidence_interval(0.90)
    assert latency["ratio_ci_low"] == pytest.approx(math.exp(ci.low), rel=1e-10)
    assert latency["ratio_ci_high"] == pytest.approx(math.exp(ci.high), rel=1e-10)
    assert latency["p95_ratio"] == pytest.approx(P95_CAND / P95_BASE, rel=1e-12)
    assert latency["p95_ratio_method"] == "paired bootstrap"
    assert latency["n"] == 15 and latency["excluded"] == 0


def test_p95_interval_is_the_seeded_paired_bootstrap_of_the_policy(tmp_path) -> None:
    report = _report(tmp_path, _write(tmp_path, _vector_frame(), "seed = 7\nn_resamples = 2000\nconfidence = 0.9\n"))
    latency = _candidate(report)["costs"]["latency_ms"]
    expected = quantile_ratio_bootstrap(BASE_MS, CAND_MS, 0.95, 2000, 7, 0.9)
    # The JSON writes 12 significant digits (docs/json.md).
    assert [latency["p95_ratio_ci_low"], latency["p95_ratio_ci_high"]] == pytest.approx(
        [expected.low, expected.high], rel=1e-11)
    # An independent implementation (scipy's paired percentile bootstrap) agrees within Monte Carlo error.
    ref = scipy.stats.bootstrap((np.array(BASE_MS), np.array(CAND_MS)),
                                lambda b, c, axis=-1: np.quantile(c, 0.95, axis=axis) / np.quantile(b, 0.95, axis=axis),
                                paired=True, vectorized=True, n_resamples=4000, method="percentile",
                                confidence_level=0.9, rng=np.random.default_rng(1))
    assert latency["p95_ratio_ci_low"] == pytest.approx(ref.confidence_interval.low, abs=0.02)
    assert latency["p95_ratio_ci_high"] == pytest.approx(ref.confidence_interval.high, abs=0.02)
    assert "2,000 resamples, seed 7" in report["costs"]["interval_method"]


# ------------------------------------------------------------------------------------- tokens and cost


def _tokens_case(n: int, seed: int = 3) -> tuple[pd.DataFrame, tuple[np.ndarray, ...]]:
    rng = np.random.default_rng(seed)
    base_in, base_out = rng.integers(400, 800, n), rng.integers(100, 300, n)
    cand_in, cand_out = base_in + rng.integers(-50, 50, n), (base_out * 0.7).round().astype(int)
    latency = rng.lognormal(np.log(900), 0.3, 2 * n).round(1)
    ids = [f"c{k:03d}" for k in range(n)]
    frame = pd.DataFrame({"release": ["base"] * n + ["cand"] * n, "case_id": ids * 2, "passed": 1,
                          "latency_ms": latency, "input_tokens": np.r_[base_in, cand_in],
                          "output_tokens": np.r_[base_out, cand_out]})
    return frame, (base_in, base_out, cand_in, cand_out)


PRICES = """
[prices.base]
input_per_million = 1.0
output_per_million = 4.0

[prices.cand]
input_per_million = 0.5
output_per_million = 3.0
"""


def test_prices_give_cost_per_case_and_the_cost_ratio(tmp_path) -> None:
    frame, (b_in, b_out, c_in, c_out) = _tokens_case(40)
    report = _report(tmp_path, _write(tmp_path, frame, PRICES))
    base_cost = (b_in * 1.0 + b_out * 4.0) / 1e6
    cand_cost = (c_in * 0.5 + c_out * 3.0) / 1e6
    releases = {r["name"]: r for r in report["costs"]["releases"]}
    assert releases["base"]["cost_per_case"] == pytest.approx(base_cost.mean(), rel=1e-12)
    assert releases["base"]["cost_per_1k"] == pytest.approx(1000 * base_cost.mean(), rel=1e-12)
    assert releases["cand"]["cost_per_1k"] == pytest.approx(1000 * cand_cost.mean(), rel=1e-12)
    assert releases["cand"]["input_tokens_per_case"] == pytest.approx(c_in.mean())
    assert releases["cand"]["output_tokens_per_case"] == pytest.approx(c_out.mean())
    assert releases["cand"]["cost_source"] == "prices"
    costs = _candidate(report)["costs"]
    assert costs["cost"]["ratio"] == pytest.approx(cand_cost.sum() / base_cost.sum(), rel=1e-12)
    expected = ratio_of_totals_bootstrap(base_cost, cand_cost, 10_000, 20240501, 0.90)  # 1 - 2 alpha
    assert costs["cost"]["ci_low"] == pytest.approx(expected.low, rel=1e-12)
    assert costs["cost"]["ci_high"] == pytest.approx(expected.high, rel=1e-12)
    assert costs["cost"]["ci_low"] < costs["cost"]["ratio"] < costs["cost"]["ci_high"]
    tokens = (c_in + c_out).sum() / (b_in + b_out).sum()
    assert costs["tokens"]["ratio"] == pytest.approx(tokens, rel=1e-12)
    expected = ratio_of_totals_bootstrap(b_in + b_out, c_in + c_out, 10_000, 20240501, 0.90)
    assert (costs["tokens"]["ci_low"], costs["tokens"]["ci_high"]) == pytest.approx((expected.low, expected.high))
    assert set(costs["guardrail_bounds"]) == {"max_latency_mean_ratio", "max_latency_p95_ratio",
                                              "max_tokens_ratio", "max_cost_ratio"}
    assert costs["guardrail_bounds"]["max_cost_ratio"]["ci_high"] == costs["cost"]["ci_high"]
    saving = round((1 - costs["cost"]["ratio"]) * 100)
    assert f"{saving}% cheaper per case" in _candidate(report)["headline"]


def test_cost_column_wins_over_prices(tmp_path) -> None:
    frame, _ = _tokens_case(20)
    frame["cost"] = np.where(frame["release"] == "base", 0.002, 0.001)
    report = _report(tmp_path, _write(tmp_path, frame, PRICES))
    releases = {r["name"]: r for r in report["costs"]["releases"]}
    assert releases["base"]["cost_per_1k"] == pytest.approx(2.0)
    assert releases["cand"]["cost_source"] == "cost column"
    assert _candidate(report)["costs"]["cost"]["ratio"] == pytest.approx(0.5)
    assert any("prices are not used" in note for note in report["costs"]["notes"])


def test_tokens_without_cost_give_a_tokens_clause(tmp_path) -> None:
    frame, _ = _tokens_case(20)
    report = _report(tmp_path, _write(tmp_path, frame))
    cand = _candidate(report)
    assert cand["costs"]["cost"] is None and report["costs"]["has_cost"] is False
    assert "fewer tokens per case" in cand["headline"]


@pytest.mark.parametrize("prices, message", [
    ('[prices.base]\ninput_per_million = 1.0\n', "missing output_per_million"),
    ('[prices.base]\ninput_per_million = 1.0\noutput_per_million = -2\n', "output_per_million must be a number >= 0"),
    ('[prices.base]\ninput_per_million = true\noutput_per_million = 2\n', "input_per_million must be a number"),
    ('[prices.base]\ninput_per_million = 1\noutput_per_million = 2\ncached_per_million = 1\n', "unknown key"),
    ('prices = 3\n', "prices must be a table"),
    ('[prices]\nbase = 3\n', "prices for 'base' must be a table"),
])
def test_bad_prices_are_one_line_errors(tmp_path, prices, message) -> None:
    frame, _ = _tokens_case(10)
    out = tmp_path / "r.json"
    result = run_cli("report", *_write(tmp_path, frame, prices), "-o", out)
    assert result.exit_code == 2
    assert message in result.output and len(result.output.strip().splitlines()) == 1
    assert not out.exists()


def test_prices_need_their_token_column(tmp_path) -> None:
    frame, _ = _tokens_case(10)
    result = run_cli("check", *_write(tmp_path, frame.drop(columns=["output_tokens"]), PRICES))
    assert result.exit_code == 2
    assert "no output_tokens column" in result.output


def test_a_cost_error_is_said_before_an_error_of_the_plan(tmp_path) -> None:
    """The cost section runs beside the plan (analyze/__init__.py): when both fail, the cost section's error is
    the one said, as when it ran first; alone, it is said too."""
    frame, _ = _tokens_case(10)
    files = _write(tmp_path, frame.drop(columns=["output_tokens"]), 'baseline_rerun = "nope"\n' + PRICES)
    result = run_cli("check", *files)
    assert result.exit_code == 2
    assert "no output_tokens column" in result.output and "nope" not in result.output
    # The plan's error alone, for contrast: the policy above does fail the plan.
    alone = run_cli("check", *_write(tmp_path, frame, 'baseline_rerun = "nope"\n' + PRICES))
    assert alone.exit_code == 2 and "unknown baseline_rerun 'nope'" in alone.output


# ------------------------------------------------------------------------------------------- guardrails


def test_example_latency_guardrail_fires_for_r2_by_its_upper_bound(tmp_path, example) -> None:
    report = _example_report(tmp_path, example)
    r2, r3 = _candidate(report, "r2-new-prompt"), _candidate(report, "r3-small-model")
    bound = r2["costs"]["guardrail_bounds"]["max_latency_p95_ratio"]
    # The estimate is under the limit, the interval's upper bound is not: rule 4 fires.
    assert bound["estimate"] < 1.25 < bound["ci_high"]
    assert _guardrail(r2)["fired"] and "guardrail" in [r["rule"] for r in r2["reasons"]]
    assert not _guardrail(r3)["fired"]
    assert r3["costs"]["guardrail_bounds"]["max_latency_p95_ratio"]["ci_high"] < 1.25


def test_example_guardrails_pass_and_fire_as_the_figures_say(tmp_path, example) -> None:
    limits = ("max_latency_p95_ratio = 1.40\nmax_latency_mean_ratio = 1.30\nmax_tokens_ratio = 1.32\n"
              "max_cost_ratio = 0.46\n")
    report = _example_report(tmp_path, example, limits)
    for name in ("r2-new-prompt", "r3-small-model"):
        cand = _candidate(report, name)
        bounds = cand["costs"]["guardrail_bounds"]
        fired = sorted(k for k, limit in (("max_latency_p95_ratio", 1.40), ("max_latency_mean_ratio", 1.30),
                                          ("max_tokens_ratio", 1.32), ("max_cost_ratio", 0.46))
                       if bounds[k]["ci_high"] > limit)
        detail = _guardrail(cand)["detail"]
        assert _guardrail(cand)["fired"] == bool(fired)
        for k in fired:
            assert k.removeprefix("max_") in detail
    # r2 passes the latency and tokens limits (upper bounds 1.36, 1.30, 1.32) but costs 1.42x: cost fires.
    r2 = _candidate(report, "r2-new-prompt")["costs"]["guardrail_bounds"]
    assert r2["max_latency_p95_ratio"]["ci_high"] < 1.40 and r2["max_latency_mean_ratio"]["ci_high"] < 1.30
    # r3's cost estimate 0.459 is under 0.46, but its upper bound is not: rule 4 fires on the bound.
    r3 = _candidate(report, "r3-small-model")["costs"]["guardrail_bounds"]["max_cost_ratio"]
    assert r3["estimate"] < 0.46 < r3["ci_high"]


def test_guardrail_passes_when_the_bound_is_under_the_limit(tmp_path) -> None:
    args = _write(tmp_path, _vector_frame(), "[guardrails]\nmax_latency_mean_ratio = 1.0\n")
    report = _report(tmp_path, args)
    check = _guardrail(_candidate(report))
    high = _candidate(report)["costs"]["latency_ms"]["ratio_ci_high"]
    assert high < 1.0 and not check["fired"]
    args = _write(tmp_path, _vector_frame(), f"[guardrails]\nmax_latency_mean_ratio = {high - 0.001}\n")
    assert _guardrail(_candidate(_report(tmp_path, args)))["fired"]


# ---------------------------------------------------------------------- missing latencies and runs


def test_missing_and_non_positive_latencies_are_counted_and_excluded(tmp_path) -> None:
    base, cand = list(BASE_MS), list(CAND_MS)
    base[0], cand[3], cand[5] = float("nan"), 0.0, -12.0
    frame = _vector_frame(latency_ms=base + cand)
    report = _report(tmp_path, _write(tmp_path, frame))
    releases = {r["name"]: r for r in report["costs"]["releases"]}
    assert (releases["base"]["latency_invalid"], releases["cand"]["latency_invalid"]) == (1, 2)
    assert releases["cand"]["latency_ms"]["n"] == 13 and releases["cand"]["latency_ms"]["excluded"] == 2
    keep = [k for k in range(15) if k not in (0, 3, 5)]
    latency = _candidate(report)["costs"]["latency_ms"]
    assert latency["n"] == 12 and latency["excluded"] == 3
    ratios = np.log(np.array(CAND_MS)[keep]) - np.log(np.array(BASE_MS)[keep])
    assert latency["ratio"] == pytest.approx(math.exp(ratios.mean()), rel=1e-12)
    assert latency["baseline_p95"] == pytest.approx(np.quantile(np.array(BASE_MS)[keep], 0.95), rel=1e-12)
    warnings = _candidate(report)["warnings"]
    assert any("3 of 15 paired cases excluded" in w for w in warnings)
    assert any("base 1, cand 2 rows" in note for note in report["costs"]["notes"])


def test_runs_take_the_median_latency_and_mean_tokens(tmp_path) -> None:
    rng = np.random.default_rng(11)
    n, runs = 12, 3
    rows = []
    for release in ("base", "cand"):
        for k in range(n):
            for r in range(runs):
                rows.append({"release": release, "case_id": f"c{k}", "run": r, "passed": 1,
                             "latency_ms": round(float(rng.lognormal(np.log(800), 0.5)), 1),
                             "output_tokens": int(rng.integers(50, 150))})
    frame = pd.DataFrame(rows)
    frame.loc[(frame["case_id"] == "c0") & (frame["run"] == 0), "latency_ms"] = -1.0  # dropped before the median
    policy = make_policy({"baseline": "base"})
    data = validate(frame, policy)
    assert data.has_runs
    cases, invalid = per_case(data, "base", policy)
    assert invalid == 1
    grouped = frame[frame["release"] == "base"].groupby("case_id")
    valid = frame["latency_ms"].where(frame["latency_ms"] > 0)
    expected = valid[frame["release"] == "base"].groupby(frame["case_id"]).median()
    assert cases["latency"].to_dict() == pytest.approx(expected.to_dict())
    assert cases["output_tokens"].to_dict() == pytest.approx(grouped["output_tokens"].mean().to_dict())

    table = cost_sections(data, policy)[0]
    by_name = {r.name: r for r in table.releases}
    assert by_name["base"].latency.p95 == pytest.approx(np.quantile(expected.to_numpy(), 0.95), rel=1e-12)
    assert by_name["base"].latency_invalid == 1
    from releasegate.wording.sections import cost_notes

    assert any("median over runs" in note for note in cost_notes(table))


# --------------------------------------------------------------------------------------- large samples


def test_large_samples_take_the_normal_route_and_say_so(tmp_path) -> None:
    n = LARGE_WORK // 10_000 + 1
    frame, _ = _tokens_case(n, seed=5)
    report = _report(tmp_path, _write(tmp_path, frame))
    costs = _candidate(report)["costs"]
    assert costs["latency_ms"]["p95_ratio_method"] == "normal approximation"
    assert costs["tokens"]["method"] == "normal approximation"
    assert costs["latency_ms"]["p95_ratio_ci_low"] < costs["latency_ms"]["p95_ratio"] < costs["latency_ms"][
        "p95_ratio_ci_high"]
    assert "normal approximation" in report["costs"]["interval_method"]
    # Just below the size the bootstrap is used.
    report = _report(tmp_path, _write(tmp_path, _tokens_case(n - 1, seed=5)[0]))
    assert _candidate(report)["costs"]["latency_ms"]["p95_ratio_method"] == "paired bootstrap"


# ------------------------------------------------------------------------------- the bundled example


def test_example_shows_r3_savings_beside_its_quality_loss(tmp_path, example) -> None:
    report = _example_report(tmp_path, example)
    releases = {r["name"]: r for r in report["costs"]["releases"]}
    assert [round(releases[r]["cost_per_1k"], 2) for r in ("r1-live", "r2-new-prompt", "r3-small-model")] == [
        1.20, 1.69, 0.55]
    r3 = _candidate(report, "r3-small-model")
    assert "54% cheaper per case, p95 latency 0.57x" in r3["headline"]
    assert "-3.2 points" in r3["headline"]
    md = tmp_path / "n.md"
    args = [example["eval_results.csv"], "--cases", example["eval_cases.csv"], "--policy", example["releasegate.toml"]]
    assert run_cli("report", *args, "-o", md).exit_code == 0
    text = md.read_text()
    assert ("| r3-small-model | 54% cheaper per case, p95 latency 0.57x | -3.2 points [-5.4, -1.3] | "
            "0.46x [0.45, 0.47] |") in text
    assert "| r1-live (baseline) | 1,039 | 1,001 | 1,634 | 618.2 | 201.1 | $0.00120 | $1.20 |" in text
    assert "R type 7" in text
    assert text.index("### Broken cases") < text.index("### Costs and latency") < text.index("### Method")


def test_no_cost_columns_no_cost_section(tmp_path, example) -> None:
    frame = pd.read_csv(example["eval_results.csv"]).drop(columns=["latency_ms", "input_tokens", "output_tokens"])
    report = _report(tmp_path, _write(tmp_path, frame.replace({"r1-live": "base"})))
    assert "costs" not in report and all("costs" not in c for c in report["candidates"])


class _Balance(HTMLParser):
    VOID = frozenset({"br", "img", "meta", "link", "hr", "input"})

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        assert self.stack and self.stack.pop() == tag, tag


def _example_run(example: dict):
    return build_report(example["eval_results.csv"], example["eval_cases.csv"], example["releasegate.toml"])


def test_html_partial_is_balanced_and_shows_the_charts_it_is_given(example) -> None:
    from markupsafe import Markup

    from releasegate.render.views import ChartView, fields_of

    report = _example_run(example)
    context = fields_of(build_context(report.sections[0], report.provenance))
    env = environment("html")
    page = env.from_string('{% include "extras/costs.html" %}')
    html = page.render(context)
    parser = _Balance()
    parser.feed(html)
    assert parser.stack == []
    assert '<section class="costs" id="costs">' in html and 'class="costs-releases"' in html
    assert '<td class="summary">54% cheaper per case, p95 latency 0.57x</td>' in html and "<figure" not in html
    html = page.render({**context, "cost_charts": [ChartView("", "T<1>", "", Markup("<svg></svg>"))]})
    assert "<svg></svg>" in html and "<figcaption>T&lt;1&gt;</figcaption>" in html


def test_cost_charts_are_valid_vega_lite_built_from_the_report(example) -> None:
    report = _example_run(example)
    charts = cost_charts(report)
    assert [title.split(":")[0] for title, _ in charts] == [
        "Pass rate against cost per 1,000 cases", "Latency distribution", "Latency distribution",
        "Latency distribution"]
    table = report.analysis.sections.costs
    points = {v["release"]: v for v in charts[0][1]["data"]["values"]}
    for release, row in zip(report.analysis.releases, table.releases):
        assert points[release.name]["cost_per_1k"] == row.cost_per_1k
        assert points[release.name]["rate"] == release.rate.value
        assert points[release.name]["ci_low"] == release.rate.ci_low
    bars = charts[1][1]["layer"][0]["data"]["values"]
    assert sum(b["cases"] for b in bars) == 400 and "p95 1,634 ms" in charts[1][0]
    assert charts == cost_charts(report)  # deterministic
    for _, spec in charts:
        svg = vl_convert.vegalite_to_svg(spec, vl_version="6.4", allowed_base_urls=[])
        assert svg.startswith("<svg") and "Latency" in svg or "r3-small-model" in svg


def test_prices_validation_in_make_policy() -> None:
    policy = make_policy({"prices": {"r1": {"input_per_million": 1, "output_per_million": 0}}})
    assert policy.prices == {"r1": {"input_per_million": 1.0, "output_per_million": 0.0}}
    assert policy.as_dict()["prices"]["r1"]["output_per_million"] == 0.0
    with pytest.raises(InputError, match="must be a number >= 0"):
        make_policy({"prices": {"r1": {"input_per_million": float("inf"), "output_per_million": 0}}})


def test_a_release_without_any_latency_is_reported_not_charted(tmp_path) -> None:
    frame = _vector_frame(latency_ms=BASE_MS + [float("nan")] * 15)
    report = _report(tmp_path, _write(tmp_path, frame))
    cand = _candidate(report)
    assert cand["costs"]["latency_ms"]["ratio"] is None and cand["costs"]["guardrail_bounds"] == {}
    assert any("15 of 15 paired cases excluded" in w for w in cand["warnings"])
    assert "p95 latency" not in cand["headline"]
    # A guardrail that cannot be measured blocks (fail closed): it never passes on no figure.
    args = _write(tmp_path, frame, "[guardrails]\nmax_latency_p95_ratio = 1.1\n")
    cand = _candidate(_report(tmp_path, args))
    assert _guardrail(cand)["fired"] and cand["verdict"] == "dont_ship"
    assert "latency_p95_ratio could not be measured: no paired case has a valid latency" in _guardrail(cand)["detail"]
    policy = make_policy({"baseline": "base"})
    data = validate(frame, policy)
    from releasegate.model import ReleaseSections

    analysis = Analysis(baseline="base", outcome_kind=OutcomeKind.BINARY, n_cases=15, releases=(), candidates=(),
                        parameters=parameters_of(policy), has_categories=False, has_clusters=False,
                        has_runs=False, sections=ReleaseSections(costs=cost_sections(data, policy)[0]))
    from releasegate.model import MetricSection

    assert [title for title, _ in cost_charts(MetricSection("passed", analysis, ()))] == [
        "Latency distribution: base (dashed: p50 913 ms, p95 1,123 ms)"]


@pytest.mark.parametrize("values", [[500.0] * 5, [0.5, 0.7, 0.9], [409.4, 3879.4, 1000.0]])
def test_histogram_edges_cover_every_value_on_round_steps(values) -> None:
    from releasegate.analyze.histogram import histogram_edges

    edges = histogram_edges(np.array(values))
    counts, _ = np.histogram(values, bins=edges)
    assert counts.sum() == len(values) and len(edges) <= 42
    steps = np.diff(edges)
    assert np.allclose(steps, steps[0])
    mantissa = steps[0] / 10 ** math.floor(math.log10(steps[0]))
    assert round(mantissa, 9) in (1.0, 2.0, 5.0)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from([-1.0, 0.0, 0.5, 1.0, 2.5, 3.0, 4.0, 7.5, 10.0, 11.0]) | st.floats(-2, 12),
                min_size=0, max_size=60),
       st.sampled_from([[0.0, 1.0], [0.0, 2.5, 5.0, 7.5, 10.0], [1.0, 3.0, 4.0, 10.0]]))
def test_bin_counts_are_numpys_histogram(values, edges) -> None:
    from releasegate.analyze.histogram import bin_counts

    values, edges = np.array(values, dtype=float), np.array(edges)
    assert bin_counts(values, edges).tolist() == np.histogram(values, bins=edges)[0].tolist()


@settings(max_examples=100, deadline=None)
# Latencies from 5e-324 to 3000 put a ratio's interval past the largest float: its end is inf, never warned of.
@pytest.mark.filterwarnings("error::RuntimeWarning")
@given(st.lists(st.tuples(st.floats(-5, 3000), st.floats(-5, 3000), st.booleans()), min_size=2, max_size=30),
       st.booleans())
# Ids that pandas joins (not the validated categorical) in another order: the means are summed in another order.
@example(rows=[(1.0, 1.0, False), (1.0, 1.5973360765879079, False), (1.0, 2045.7915719498076, False),
               (1.0, 1.6641358418507792, False)], shuffle=True)
def test_paired_latency_summaries_are_the_pairs_own(rows, shuffle) -> None:
    """The candidate's paired latency summaries are taken from the releases' own summaries only when that is the
    same answer (every case on both sides, in the same order, no latency left out); otherwise they are the
    valid pairs' own, as computed from the pairs."""
    from releasegate.analyze.costs import compare_costs
    from releasegate.stats.costs import latency_quantiles
    from releasegate.stats.resamples import ResampleDraws

    ids = [f"c{i:02d}" for i in range(len(rows))]
    base = pd.DataFrame({"latency": [b for b, _, _ in rows]}, index=pd.Index(ids, name="case_id"))
    cand_ids = ids[::-1] if shuffle else ids
    cand = pd.DataFrame({"latency": [c for _, c, _ in rows]}, index=pd.Index(cand_ids, name="case_id"))
    for frame in (base, cand):  # invalid latencies are NaN in the per-case table, as per_case leaves them
        bad = ~(np.isfinite(frame["latency"]) & (frame["latency"] > 0))
        frame.loc[bad, "latency"] = np.nan
    policy = make_policy({}, baseline="b")
    own = (latency_quantiles(base["latency"].to_numpy()), latency_quantiles(cand["latency"].to_numpy()))
    given_ = compare_costs("c", "b", base, cand, policy, ResampleDraws(policy.n_resamples, policy.seed), own)
    computed = compare_costs("c", "b", base, cand, policy, ResampleDraws(policy.n_resamples, policy.seed))
    for got, expected in ((given_.baseline_latency, computed.baseline_latency),
                          (given_.candidate_latency, computed.candidate_latency)):
        assert got.n == expected.n and got.excluded == expected.excluded
        for a, b in ((got.mean, expected.mean), (got.p50, expected.p50), (got.p95, expected.p95)):
            assert (math.isnan(a) and math.isnan(b)) or a == b


def test_a_cost_of_zero_on_every_case_is_said(tmp_path) -> None:
    """A candidate whose cost column is 0 on every case passes max_cost_ratio as "100% cheaper"; the note says
    that a cost not recorded reads as 0 (a real cost on the baseline beside it)."""
    frame, _ = _tokens_case(20)
    frame["cost"] = np.where(frame["release"] == "base", 0.002, 0.0)
    report = _report(tmp_path, _write(tmp_path, frame, "[guardrails]\nmax_cost_ratio = 1.2\n"))
    notes = [n for n in report["costs"]["notes"] if "is 0 on its" in n]
    assert notes == ["The cost per case of cand is 0 on its 20 cases: a cost that was not recorded reads as 0, so "
                     "check cand's cost column before trusting a cost figure or cost guardrail beside it."]
    # With a real cost on both sides, nothing is said.
    frame["cost"] = 0.001
    report = _report(tmp_path, _write(tmp_path, frame, "[guardrails]\nmax_cost_ratio = 1.2\n"))
    assert not [n for n in report["costs"]["notes"] if "is 0 on its" in n]
