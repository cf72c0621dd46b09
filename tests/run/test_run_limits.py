"""Limits per endpoint (issue 30 item 3): concurrency, requests and tokens per minute and the 429 pause belong
to one base_url + model; the judge is an endpoint like the others; fake and Python systems are throttled by
nobody. Stub servers on 127.0.0.1, an injected clock."""

from __future__ import annotations

import pytest

from conftest import run_cli
from releasegate.errors import InputError
from releasegate.run import run_config
from releasegate.run.config import load_config
from run_support import FakeClock, StubServer, echo_reference, write_cases, write_config


def _write(tmp_path, systems, run=None, metric=None, n=20):
    cases = write_cases(tmp_path / "cases.csv", n)
    settings = {"cases": cases.name, "store": "store", "max_attempts": 3, "backoff_s": 1.0, **(run or {})}
    return load_config(write_config(tmp_path / "run.toml", settings, systems, metric or {"kind": "exact"}))


def test_a_429_pauses_only_its_own_endpoint(tmp_path):
    def limited(number, body):
        if number == 1:
            return 429, {"Retry-After": "30"}, {"error": "slow down"}, 0.0
        return echo_reference(number, body)

    clock = FakeClock()
    with StubServer(limited, clock) as a, StubServer(echo_reference, clock) as b:
        config = _write(tmp_path, [{"name": "a", "kind": "openai", "base_url": a.base_url, "model": "m"},
                                   {"name": "b", "kind": "openai", "base_url": b.base_url, "model": "m",
                                    "max_concurrency": 1}], {"max_concurrency": 1})
        result = run_config(config, clock=clock, sleep=clock.sleep)
    assert result.complete and a.calls == 21 and b.calls == 20
    assert all(t >= 30.0 for t in a.arrivals[1:])  # a waited its 429 out
    # One wait in the whole run: a's worker sleeping out its Retry-After. b's workers never waited (a pause of
    # b's endpoint would have put b's worker to sleep too). Arrival times cannot show it: the fake clock is
    # shared, and a's sleep moves it for b's requests as well.
    assert clock.sleeps == [30.0]
    assert result.stats.rate_limited == 1


def test_concurrency_is_per_endpoint(tmp_path):
    clock = FakeClock()
    slow = lambda n, body: (*echo_reference(n, body)[:3], 0.02)  # noqa: E731
    with StubServer(slow, clock) as a, StubServer(slow, clock) as b:
        config = _write(tmp_path, [{"name": "a", "kind": "openai", "base_url": a.base_url, "model": "m",
                                    "max_concurrency": 2},
                                   {"name": "b", "kind": "openai", "base_url": b.base_url, "model": "m"}],
                        {"max_concurrency": 6}, n=40)
        result = run_config(config, clock=clock, sleep=clock.sleep)
    assert result.complete
    assert a.peak_in_flight <= 2 and 3 <= b.peak_in_flight <= 6


def test_two_systems_on_one_endpoint_share_its_limits(tmp_path):
    clock = FakeClock()
    with StubServer(lambda n, body: (*echo_reference(n, body)[:3], 0.02), clock) as stub:
        systems = [{"name": name, "kind": "openai", "base_url": stub.base_url, "model": "m",
                    "system_prompt": f"You are {name}.", "max_concurrency": 3} for name in ("a", "b")]
        result = run_config(_write(tmp_path, systems, n=30), clock=clock, sleep=clock.sleep)
    assert result.complete and stub.calls == 60 and stub.peak_in_flight <= 3


def test_requests_and_tokens_per_minute_per_endpoint(tmp_path):
    clock = FakeClock()
    with StubServer(echo_reference, clock) as rpm, StubServer(echo_reference, clock) as tpm:
        # rpm: 30 a minute, one every 2 s. tpm: the stub's usage is 14 tokens a call; 70 a minute is 5 calls.
        config = _write(tmp_path, [{"name": "r", "kind": "openai", "base_url": rpm.base_url, "model": "m",
                                    "requests_per_minute": 30, "max_concurrency": 1}], n=10)
        run_config(config, clock=clock, sleep=clock.sleep)
        assert rpm.arrivals == [2.0 * i for i in range(10)]
        clock2 = FakeClock()
        tpm.clock = clock2
        config = _write(tmp_path / "..", [{"name": "t", "kind": "openai", "base_url": tpm.base_url, "model": "m",
                                           "tokens_per_minute": 70, "max_concurrency": 1}], n=12)
        result = run_config(config, clock=clock2, sleep=clock2.sleep)
    assert result.complete
    arrivals = tpm.arrivals
    assert arrivals[:5] == [0.0] * 5  # the first minute's budget is there at once
    for i in range(5, 12):  # then one call per 14 tokens' worth of refill: 12 s each
        assert arrivals[i] >= 12.0 * (i - 4) - 0.01
    # Over any minute from the start the calls stay within the budget and the calls in flight.
    assert sum(a < 60.0 for a in arrivals) <= 5 + 5


def test_fake_and_python_systems_are_not_throttled_by_the_endpoint_limits(tmp_path):
    clock = FakeClock()
    with StubServer(echo_reference, clock) as stub:
        config = _write(tmp_path, [{"name": "live", "kind": "openai", "base_url": stub.base_url, "model": "m"},
                                   {"name": "offline", "kind": "fake", "accuracy": 1.0}],
                        {"requests_per_minute": 6, "max_concurrency": 1}, n=5)
        result = run_config(config, clock=clock, sleep=clock.sleep)
    assert result.complete and stub.arrivals == [10.0 * i for i in range(5)]
    fake = result.table[result.table["release"] == "offline"]
    assert fake["passed"].eq(1.0).all()  # answered, with no slot of the endpoint taken (its 5 calls were free)
    assert result.stats.system_calls == 10


def test_the_judge_is_an_endpoint_with_its_own_limits(tmp_path):
    def verdict(number, body):
        return 200, {}, {"choices": [{"message": {"content": "PASS"}, "finish_reason": "stop"}],
                         "usage": {"prompt_tokens": 1, "completion_tokens": 1}}, 0.02

    clock = FakeClock()
    with StubServer(verdict, clock) as judge:
        def bot(case, run):
            return f"answer for {case['case_id']} run {run}"

        config = _write(tmp_path, [{"name": "a", "kind": "fake", "accuracy": 0.5},
                                   {"name": "b", "kind": "fake", "accuracy": 0.5, "seed": 9}],
                        {"runs": 2, "max_concurrency": 8},
                        {"kind": "judge", "rubric": "Q {input} A {output}",
                         "system": {"kind": "openai", "base_url": judge.base_url, "model": "j",
                                    "max_concurrency": 2, "requests_per_minute": 60}}, n=10)
        result = run_config(config, clock=clock, sleep=clock.sleep)
    assert result.complete
    assert judge.peak_in_flight <= 2
    distinct = result.table.drop_duplicates(["case_id", "output"]).shape[0]
    assert judge.calls == result.stats.judge_calls == distinct  # one call per distinct (case, output)
    assert max(judge.arrivals) >= (distinct - 1) * 1.0 - 0.01  # 60 a minute: a call a second


@pytest.mark.parametrize("key,value,message", [
    ("max_concurrency", 0, "max_concurrency must be an integer >= 1"),
    ("requests_per_minute", -1, "requests_per_minute must be a number >= 0"),
    ("tokens_per_minute", "many", "tokens_per_minute must be a number >= 0"),
])
def test_bad_endpoint_limits_are_one_line(tmp_path, key, value, message):
    write_cases(tmp_path / "cases.csv", 2)
    path = write_config(tmp_path / "run.toml", {"cases": "cases.csv", "store": "store"},
                        [{"name": "a", "kind": "openai", "base_url": "http://127.0.0.1:9/v1", "model": "m",
                          key: value}], {"kind": "exact"})
    with pytest.raises(InputError, match=message):
        load_config(path)
    done = run_cli("run", path)
    assert done.exit_code == 2 and len(done.output.strip().splitlines()) == 1


def test_limits_are_for_endpoints_only(tmp_path):
    write_cases(tmp_path / "cases.csv", 2)
    path = write_config(tmp_path / "run.toml", {"cases": "cases.csv", "store": "store"},
                        [{"name": "a", "kind": "fake", "requests_per_minute": 5}], {"kind": "exact"})
    with pytest.raises(InputError, match="unknown key.*requests_per_minute"):
        load_config(path)


def test_an_endpoint_named_by_several_systems_takes_their_smallest_limits(tmp_path):
    clock = FakeClock()
    with StubServer(lambda n, body: (*echo_reference(n, body)[:3], 0.02), clock) as stub:
        systems = [{"name": "a", "kind": "openai", "base_url": stub.base_url, "model": "m", "max_concurrency": 5},
                   {"name": "b", "kind": "openai", "base_url": stub.base_url, "model": "m", "system_prompt": "B.",
                    "max_concurrency": 2}]
        result = run_config(_write(tmp_path, systems, n=30), clock=clock, sleep=clock.sleep)
    assert result.complete and stub.peak_in_flight <= 2
