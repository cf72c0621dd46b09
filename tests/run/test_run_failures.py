"""Done-when 1 and 2 of issue 20: injected failures become exactly the holes; a resume fills exactly them."""

from __future__ import annotations

import pytest

from conftest import run_cli
from releasegate.run import run_config
from releasegate.run.config import load_config
from releasegate.run.fake import injected_failure
from releasegate.run.store import Store
from run_support import FakeClock, write_cases, write_config

RATES = {"rate_429": 0.05, "rate_5xx": 0.05, "rate_timeout": 0.05}
KIND = {"rate_limited": "rate_limited", "server": "server", "timeout": "timeout"}


def _config(tmp_path, store: str, rates: dict, max_attempts: int = 1):
    cases = write_cases(tmp_path / "cases.csv", 60)
    systems = [{"name": "r1", "kind": "fake", "accuracy": 0.85, **rates},
               {"name": "r2", "kind": "fake", "accuracy": 0.75, "seed": 3, **rates}]
    path = write_config(tmp_path / f"{store}.toml", {"cases": cases.name, "runs": 2, "store": store,
                                                      "max_concurrency": 6, "max_attempts": max_attempts},
                        systems, {"name": "correct", "kind": "exact"})
    return load_config(path)


def _run(config):
    clock = FakeClock()
    return run_config(config, clock=clock, sleep=clock.sleep)


def _expected_failures(config) -> dict[tuple[str, str, int], str]:
    expected = {}
    for system in config.systems:
        for i in range(60):
            for run in range(2):
                kind = injected_failure(system.spec, system.name, f"C{i:04d}", run, 1)
                if kind:
                    expected[(system.name, f"C{i:04d}", run)] = kind
    return expected


def test_holes_equal_the_injected_failures_with_kind_and_attempts(tmp_path):
    config = _config(tmp_path, "store", RATES)
    expected = _expected_failures(config)
    assert 20 < len(expected) < 50  # about 15% of 240 cells: the test has failures to find
    result = _run(config)
    assert not result.complete
    holes = {(h.release, h.case_id, h.run): h for h in result.holes}
    assert set(holes) == set(expected)
    for key, hole in holes.items():
        assert hole.kind == KIND[expected[key]] and hole.attempts == 1 and hole.reason == "error"
    assert result.stats.system_calls == 240  # one attempt each: no retry
    assert result.table["passed"].isna().sum() == len(expected)
    errors = result.table.set_index(["release", "case_id", "run"])["error"]
    assert all(errors[key] for key in expected)

    done = run_cli("check", tmp_path / "store")
    assert done.exit_code == 2
    assert f"{len(expected)} cells missing or errored: run again to resume" in done.output
    first = result.holes[0]
    assert f"{first.release}/{first.case_id}/run {first.run}" in done.output


def test_resume_calls_exactly_the_holes_and_equals_a_run_that_never_failed(tmp_path):
    failing = _config(tmp_path, "store", RATES)
    first = _run(failing)
    holes = len(first.holes)
    with Store(failing.store) as db:
        before = {(c["release"], c["case_id"], c["run"]): c for c in db.cells() if c["status"] == "ok"}

    healed = _config(tmp_path, "store", {})  # the rates are the provider's weather, not part of the system hash
    assert [s.system_hash for s in healed.systems] == [s.system_hash for s in failing.systems]
    resumed = _run(healed)
    assert resumed.stats.system_calls == holes
    assert resumed.complete
    with Store(failing.store) as db:
        after = {(c["release"], c["case_id"], c["run"]): c for c in db.cells()}
    for key, cell in before.items():
        assert after[key] == cell  # no completed row changed, not even its timestamps

    clean = _run(_config(tmp_path, "clean", {}))
    assert clean.complete and clean.stats.system_calls == 240
    columns = ["release", "case_id", "run", "passed", "output", "input_tokens", "output_tokens"]
    key = ["release", "case_id", "run"]
    left = resumed.table[columns].sort_values(key).reset_index(drop=True)
    right = clean.table[columns].sort_values(key).reset_index(drop=True)
    assert left.equals(right)
    verdict_resumed = run_cli("check", tmp_path / "store", "--baseline", "r1")
    verdict_clean = run_cli("check", tmp_path / "clean", "--baseline", "r1")
    assert verdict_resumed.exit_code == verdict_clean.exit_code
    assert verdict_resumed.output == verdict_clean.output


@pytest.mark.parametrize("attempts", [6])
def test_retries_heal_transient_failures_within_one_run(tmp_path, attempts):
    config = _config(tmp_path, "store", RATES, max_attempts=attempts)
    expected = _expected_failures(config)
    result = _run(config)
    assert result.complete
    assert result.stats.system_calls > 240 and result.stats.system_calls >= 240 + len(expected)
    with Store(config.store) as db:
        retried = [c for c in db.cells() if len(c["attempts"]) > 1]
    assert {(c["release"], c["case_id"], c["run"]) for c in retried} == set(expected)
    for cell in retried:  # each attempt is recorded with its kind; the last one is the answer
        assert cell["attempts"][0]["kind"] == KIND[expected[(cell["release"], cell["case_id"], cell["run"])]]
        assert cell["attempts"][-1]["kind"] == "ok"
