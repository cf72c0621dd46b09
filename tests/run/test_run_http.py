"""Done-when 4 of issue 20, against a stub OpenAI-compatible server on 127.0.0.1 with an injected clock."""

from __future__ import annotations

import pytest

from conftest import run_cli
from releasegate.run import run_config
from releasegate.run.config import load_config
from releasegate.run.store import Store
from run_support import FakeClock, StubServer, answer, echo_reference, write_cases, write_config


def _config(tmp_path, stub, n=4, **run):
    cases = write_cases(tmp_path / "cases.csv", n)
    settings = {"cases": cases.name, "store": "store", "max_concurrency": 1, "max_attempts": 4, "backoff_s": 1.0,
                **run}
    system = {"name": "r1", "kind": "openai", "base_url": stub.base_url, "model": "m1", "system_prompt": "Be brief."}
    return load_config(write_config(tmp_path / "run.toml", settings, [system], {"kind": "exact"}))


def _run(config, clock):
    return run_config(config, clock=clock, sleep=clock.sleep)


def _cells(config):
    with Store(config.store) as db:
        return db.cells()


def _first_calls_fail(status, count, headers=None, payload=None):
    def behaviour(number, body):
        if number <= count:
            return status, headers or {}, payload if payload is not None else {"error": "no"}, 0.0
        return echo_reference(number, body)
    return behaviour


def test_retry_after_is_honoured(tmp_path):
    clock = FakeClock()
    with StubServer(_first_calls_fail(429, 1, {"Retry-After": "7"}), clock) as stub:
        config = _config(tmp_path, stub, n=1)
        result = _run(config, clock)
    assert result.complete and stub.calls == 2
    assert clock.sleeps == [7.0]
    assert stub.arrivals[1] >= 7.0
    cell = _cells(config)[0]
    assert [a["kind"] for a in cell["attempts"]] == ["rate_limited", "ok"] and cell["attempts"][0]["status"] == 429


def test_a_429_pauses_every_worker(tmp_path):
    def behaviour(number, body):
        if number == 1:
            return 429, {"Retry-After": "5"}, {"error": "no"}, 0.0
        status, headers, payload, _ = echo_reference(number, body)
        # The other requests in flight with the 429 answer 0.3 s later (real time): the client has seen the 429
        # before any of them frees a worker. Answered at once, a loaded machine could let one worker start its
        # next request before the 429's handler ran, which no client can prevent.
        return status, headers, payload, 0.3 if number <= 4 else 0.0

    clock = FakeClock()
    with StubServer(behaviour, clock) as stub:
        config = _config(tmp_path, stub, n=20, max_concurrency=4)
        result = _run(config, clock)
    assert result.complete and stub.calls == 21
    # At most the 4 requests already in flight started before the pause ended; every later one waited it out.
    assert sorted(stub.arrivals)[4:] == [a for a in sorted(stub.arrivals)[4:] if a >= 5.0]
    assert sum(a < 5.0 for a in stub.arrivals) <= 4


def test_503_backs_off_exponentially(tmp_path):
    clock = FakeClock()
    with StubServer(_first_calls_fail(503, 3), clock) as stub:
        config = _config(tmp_path, stub, n=1)
        result = _run(config, clock)
    assert result.complete and stub.calls == 4
    assert len(clock.sleeps) == 3
    for n, wait in enumerate(clock.sleeps):  # equal jitter: between half and all of 1, 2, 4 s
        assert 2**n / 2 <= wait <= 2**n
    assert clock.sleeps[2] > clock.sleeps[0]


def test_400_is_permanent_and_not_retried(tmp_path):
    clock = FakeClock()
    with StubServer(_first_calls_fail(400, 1), clock) as stub:
        config = _config(tmp_path, stub, n=1)
        result = _run(config, clock)
    assert stub.calls == 1 and clock.sleeps == []
    cell = _cells(config)[0]
    assert cell["status"] == "permanent" and cell["error_kind"] == "client" and "HTTP 400" in cell["error"]
    assert not result.complete and result.holes[0].reason == "permanent"


def test_401_stops_the_run(tmp_path):
    clock = FakeClock()
    with StubServer(lambda n, b: (401, {}, {"error": "bad key"}, 0.0), clock) as stub:
        config = _config(tmp_path, stub, n=30, max_concurrency=3)
        result = _run(config, clock)
        assert result.stats.stopped and "HTTP 401" in result.stats.stopped
        assert stub.calls <= 3  # only the requests already in flight; nobody starts another
        assert len(result.holes) == 30
        done = run_cli("run", tmp_path / "run.toml")
    assert done.exit_code == 2
    assert "HTTP 401" in done.output and "the run stopped" in done.output


def test_a_read_timeout_is_recorded_as_one(tmp_path):
    clock = FakeClock()
    with StubServer(lambda n, b: (200, {}, answer("late"), 1.0), clock) as stub:
        config = _config(tmp_path, stub, n=1, timeout_s=0.1, max_attempts=1)
        result = _run(config, clock)
    cell = _cells(config)[0]
    assert cell["status"] == "error" and cell["error_kind"] == "timeout"
    assert result.holes[0].kind == "timeout" and stub.calls == 1


def test_malformed_replies_are_retried_then_recorded(tmp_path):
    clock = FakeClock()
    with StubServer(_first_calls_fail(200, 2, payload=b"{not json"), clock) as stub:
        config = _config(tmp_path, stub, n=1)
        result = _run(config, clock)
    assert result.complete and stub.calls == 3
    assert [a["kind"] for a in _cells(config)[0]["attempts"]] == ["malformed", "malformed", "ok"]


def test_peak_in_flight_never_exceeds_max_concurrency(tmp_path):
    clock = FakeClock()
    with StubServer(lambda n, b: (*echo_reference(n, b)[:3], 0.02), clock) as stub:
        config = _config(tmp_path, stub, n=40, max_concurrency=4, runs=2)
        result = _run(config, clock)
    assert result.complete and stub.calls == 80
    assert 2 <= stub.peak_in_flight <= 4  # concurrent, and bounded


def test_requests_per_minute_spaces_the_calls(tmp_path):
    clock = FakeClock()
    with StubServer(echo_reference, clock) as stub:
        # One worker: the fake clock adds up concurrent sleeps, so only a sequential run has exact arrival times.
        config = _config(tmp_path, stub, n=10, max_concurrency=1, requests_per_minute=30)
        _run(config, clock)
    arrivals = stub.arrivals
    assert arrivals == [2.0 * i for i in range(10)]


def test_what_is_sent_and_what_is_recorded(tmp_path, monkeypatch):
    monkeypatch.setenv("STUB_KEY", "sk-test-123")
    clock = FakeClock()
    with StubServer(echo_reference, clock) as stub:
        cases = write_cases(tmp_path / "cases.csv", 2)
        system = {"name": "r1", "kind": "openai", "base_url": stub.base_url, "model": "m1", "api_key_env": "STUB_KEY",
                  "system_prompt": "Be brief.", "user_template": "Q: {input}", "params": {"temperature": 0.5},
                  "input_per_million": 1.0, "output_per_million": 2.0}
        config = load_config(write_config(tmp_path / "run.toml", {"cases": cases.name, "store": "store", "runs": 2},
                                          [system], {"kind": "exact"}))
        result = _run(config, clock)
    body = stub.bodies[0]
    assert body["model"] == "m1" and body["temperature"] == 0.5 and body["messages"][0]["content"] == "Be brief."
    assert body["messages"][1]["content"].startswith("Q: question")
    assert sorted(b["seed"] for b in stub.bodies) == [0, 0, 1, 1]  # the seed is the run index
    cell = _cells(config)[0]
    assert cell["model"] == "stub-model" and cell["fingerprint"] == "fp_stub" and cell["finish_reason"] == "stop"
    assert cell["cost"] == (11 * 1.0 + 3 * 2.0) / 1e6
    raw = (config.store / "releasegate-run.sqlite").read_bytes()
    assert b"sk-test-123" not in raw  # the key is never stored
    assert result.table["passed"].tolist() == [1.0] * 4


class _Recorder:
    """A client that keeps the bytes it is asked to post and answers one chat reply."""

    def __init__(self) -> None:
        self.sent: list[bytes] = []

    async def post(self, url, body, headers):
        from releasegate.run.http import HttpReply

        self.sent.append(body)
        return HttpReply(200, b'{"choices": [{"message": {"content": "ok"}}]}', None)

    async def close(self) -> None:
        pass


@pytest.mark.parametrize("spec", [
    {"system_prompt": "Be brief.", "params": {"temperature": 0.5, "stop": ["\n", "é"], "extra": {"a": [1, None]}}},
    {"system_prompt": "", "params": {}},
    {"system_prompt": 'Say "ü" \\ \u2028', "params": {"top_p": 1}, "seed": "none"},
    {"system_prompt": "x", "params": {"seed": 7, "temperature": 0}},  # the run's seed takes params' place
])
def test_the_request_body_is_the_json_of_the_request(spec):
    import asyncio
    import json

    from releasegate.run.calls import Request
    from releasegate.run.openai_chat import OpenAIChat
    from releasegate.run.spec import SystemConfig

    full = {"base_url": "http://127.0.0.1:9/v1", "model": "m\u00e9", "user_template": "Q: {input}", "seed": "run",
            "api_key_env": None, "fields": ("input",), **spec}
    client = _Recorder()
    chat = OpenAIChat(SystemConfig("r1", "openai", full, "h", None), client)
    requests = [Request("r1", {"input": 'naïve "quote"\n\t\u0000 😀'}, 3, 1),
                Request("judge", {"input": "x"}, 0, 1, prompt="Grade: \u2029 ok")]
    for request in requests:
        asyncio.run(chat(request, 5.0))
    for request, sent in zip(requests, client.sent, strict=True):
        user = request.prompt or "Q: " + request.case["input"]
        body = {"model": full["model"], "messages": [*([{"role": "system", "content": full["system_prompt"]}]
                                                       if full["system_prompt"] else []),
                                                     {"role": "user", "content": user}], **full["params"]}
        if full["seed"] == "run" and request.prompt is None:
            body["seed"] = request.run
        assert sent == json.dumps(body, ensure_ascii=False).encode("utf-8")
