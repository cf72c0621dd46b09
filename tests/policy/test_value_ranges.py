"""Policy values far outside any meaning are refused in one line, and the values a user writes are not: a title
with a control or text-direction character, a seed past 64 bits (numpy's generators would take it; the note's
JSON could not hold a long enough one), a guardrail no release is held to, a number too long to read."""

from __future__ import annotations

import pytest

from conftest import run_cli
from releasegate.errors import PolicyError
from releasegate.policy import make_policy

ROWS = "release,case_id,passed\n" + "".join(f"{r},c{i},1\n" for r in ("r1", "r2") for i in range(1, 4))


def _check(tmp_path, policy: str, *flags: str):
    (tmp_path / "results.csv").write_text(ROWS)
    (tmp_path / "policy.toml").write_text(policy, encoding="utf-8")
    return run_cli("check", tmp_path / "results.csv", "--baseline", "r1", "--policy", tmp_path / "policy.toml",
                   "--not-proven", "warn", *flags)


@pytest.mark.parametrize("char", ["\u202e", "\u2066", "\u200f", "\x1b"])
def test_a_title_with_a_control_or_direction_character_is_refused(tmp_path, char):
    code = f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}"
    result = _check(tmp_path, f'title = "Q3 \\u{ord(char):04x}gnp.exe"\n')  # TOML's escape of the character
    assert result.exit_code == 2
    assert f"title holds the control or text-direction character {code}, which can make" in result.output
    assert _check(tmp_path, 'title = "Q3 release, اختبار"\n').exit_code == 0  # right-to-left text itself is fine
    with pytest.raises(PolicyError, match="title holds the control or text-direction character"):
        make_policy(title="a\u202eb")


def test_the_seed_is_a_64_bit_whole_number(tmp_path):
    assert _check(tmp_path, f"seed = {2**64 - 1}\n").exit_code == 0
    assert _check(tmp_path, "", "--seed", "1700000000123456789").exit_code == 0  # a time in nanoseconds
    result = _check(tmp_path, f"seed = {2**64}\n")
    assert result.exit_code == 2 and "seed must be a whole number from 0 to 2**64 - 1" in result.output
    result = _check(tmp_path, "seed = " + "9" * 5000 + "\n")
    assert result.exit_code == 2 and "holds a number too long to read" in result.output
    assert "internal error" not in result.output


@pytest.mark.parametrize("table, ok", [
    ("max_error_rate_increase = 1", True),  # documented: turns it off
    ("max_error_rate_increase = 0.2", True),
    ("max_error_rate_increase = 1.5", False),
    ("max_error_rate_increase = 1e18", False),
    ("max_cost_ratio = 1000", True),
    ("max_latency_p95_ratio = 0.5", True),
    ("max_tokens_ratio = 1e18", False),
    ("max_latency_mean_ratio = 1e-9", False),
])
def test_guardrails_beyond_any_meaning_are_refused(tmp_path, table, ok):
    result = _check(tmp_path, f"[guardrails]\n{table}\n")
    assert (result.exit_code != 2) is ok, result.output
    if not ok:
        assert f"guardrail {table.split()[0]} must be" in result.output


def test_a_name_given_twice_is_refused(tmp_path):
    """`critical = ["A", "A"]` used to test A twice in the one error budget, at twice its weight."""
    rows = "release,case_id,passed,category\n" + "".join(f"{r},c{i},1,{'AB'[i % 2]}\n" for r in ("r1", "r2")
                                                          for i in range(1, 5))
    (tmp_path / "results.csv").write_text(rows)
    (tmp_path / "policy.toml").write_text('critical = ["A", "A"]\n')
    result = run_cli("check", tmp_path / "results.csv", "--baseline", "r1", "--policy", tmp_path / "policy.toml")
    assert result.exit_code == 2
    assert result.output == ("releasegate: error[policy]: policy: critical names 'A' twice; give each name once, "
                             "got ['A', 'A']\n")
    result = run_cli("check", tmp_path / "results.csv", "--baseline", "r1", "--no-policy", "--critical", "A",
                     "--critical", "B", "--critical", "A")
    assert result.exit_code == 2 and "critical names 'A' twice" in result.output
    with pytest.raises(PolicyError, match="candidates names 'r2' twice"):
        make_policy(candidates=("r2", "r2"))
