"""Every numeric policy key and flag, fed random extreme values (huge, tiny, negative, NaN, infinite, booleans,
text, lists, nested tables), ends in a verdict or in one line and exit status 2: never an internal error, never a
traceback. The policy file's top level, ``[metrics.NAME]``, ``[guardrails]`` and ``[prices."RELEASE"]`` are all
fed; so is every numeric flag of ``check``."""

from __future__ import annotations

import math
import os

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from releasegate.cli import main

SETTINGS = settings(max_examples=int(os.environ.get("RELEASEGATE_FUZZ", "0")) or 120, derandomize=True,
                    deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow,
                                                                         HealthCheck.function_scoped_fixture])

# Numeric keys of the policy's top level, of a [metrics.NAME] table, of [guardrails] and of a release's prices.
TOP_KEYS = ("alpha", "margin", "critical_weight", "confidence", "power", "seed", "n_resamples", "pass_threshold",
            "min_change", "judge_min_youden", "judge_rate_tolerance", "score_range")
METRIC_KEYS = ("margin", "pass_threshold", "min_change")
GUARDRAILS = ("max_latency_p95_ratio", "max_latency_mean_ratio", "max_cost_ratio", "max_tokens_ratio",
              "max_error_rate_increase")
PRICES = ("input_per_million", "output_per_million")
FLAGS = ("--alpha", "--margin", "--critical-weight", "--pass-threshold", "--min-change", "--seed", "--resamples")

NUMBERS = st.one_of(
    st.sampled_from([0, -0.0, 1, -1, 0.5, 1e-300, -1e-300, 5e-324, 1e-17, 1e-6, 0.999999, 1e300, -1e300,
                     1.7976931348623157e308, 2**63 - 1, -(2**63), 10**6, 10**6 + 1, math.nan, math.inf, -math.inf]),
    st.floats(allow_nan=True, allow_infinity=True), st.integers(-(2**63), 2**63 - 1))
VALUES = st.one_of(NUMBERS, st.booleans(), st.text(max_size=8),
                   st.lists(NUMBERS, max_size=3), st.dictionaries(st.sampled_from(["a", "low"]), NUMBERS, max_size=2))


def toml_value(value) -> str:
    """A value as TOML writes it (nan, inf and -inf included)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return '"' + value.encode("unicode_escape").decode("ascii").replace('"', '\\"') + '"'
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return "{" + ", ".join(f"{k} = {toml_value(v)}" for k, v in value.items()) + "}"


def _results(folder):
    rows = ["release,case_id,score,category,latency_ms,input_tokens,output_tokens"]
    for release, shift in (("r1", 0.0), ("r2", -0.05)):
        rows += [f"{release},c{i},{(i % 10) / 10 + shift + 0.05:.3f},{'AB'[i % 2]},{100 + i},{10 + i},{5 + i}"
                 for i in range(40)]
    (folder / "results.csv").write_text("\n".join(rows) + "\n")


def _outcome(folder, *args):
    result = CliRunner().invoke(main, ["check", str(folder / "results.csv"), "--baseline", "r1", "--no-step-summary",
                                       *args], catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def _assert_verdict_or_one_line(outcome):
    code, stdout, stderr = outcome
    assert "Traceback" not in stdout + stderr
    assert "internal error" not in stderr, stderr
    if code == 2:
        lines = stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("releasegate: error["), stderr
        assert stdout == ""
    else:
        assert code in (0, 1, 3) and stdout.strip(), (code, stdout, stderr)


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    path = tmp_path_factory.mktemp("extreme")
    _results(path)
    return path


@SETTINGS
@given(key=st.sampled_from(TOP_KEYS), value=VALUES)
@example(key="alpha", value=1e-300)
@example(key="margin", value=False)
@example(key="seed", value=2**63 - 1)
def test_a_top_level_key(folder, key, value):
    (folder / "p.toml").write_text(f"{key} = {toml_value(value)}\n")
    _assert_verdict_or_one_line(_outcome(folder, "--policy", str(folder / "p.toml")))


@SETTINGS
@given(key=st.sampled_from(METRIC_KEYS), value=VALUES)
def test_a_metric_table_key(folder, key, value):
    (folder / "p.toml").write_text(f"[metrics.score]\n{key} = {toml_value(value)}\n")
    _assert_verdict_or_one_line(_outcome(folder, "--metric", "score", "--policy", str(folder / "p.toml")))


@SETTINGS
@given(key=st.sampled_from(GUARDRAILS), value=VALUES)
def test_a_guardrail(folder, key, value):
    (folder / "p.toml").write_text(f"[guardrails]\n{key} = {toml_value(value)}\n")
    _assert_verdict_or_one_line(_outcome(folder, "--policy", str(folder / "p.toml")))


@SETTINGS
@given(key=st.sampled_from(PRICES), value=VALUES, other=NUMBERS)
def test_a_price(folder, key, value, other):
    second = next(k for k in PRICES if k != key)
    text = "".join(f'[prices."{r}"]\n{key} = {toml_value(value)}\n{second} = {toml_value(other)}\n' for r in ("r1", "r2"))
    (folder / "p.toml").write_text(text)
    _assert_verdict_or_one_line(_outcome(folder, "--policy", str(folder / "p.toml")))


@SETTINGS
@given(flag=st.sampled_from(FLAGS), value=st.one_of(NUMBERS.map(repr), st.sampled_from(
    ["nan", "inf", "-inf", "1e-17", "1e309", "true", "", "0x10", "1_000", " 1", "9" * 400, "-0"]), st.text(max_size=6)))
@example(flag="--alpha", value="1e-17")
def test_a_numeric_flag(folder, flag, value):
    _assert_verdict_or_one_line(_outcome(folder, "--no-policy", flag, value))
