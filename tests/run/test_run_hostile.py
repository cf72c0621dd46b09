"""A hostile or broken endpoint is bounded (issue 30 item 2; issue 28 items 15 and 16): a dripped body ends with
its attempt, a Retry-After beyond the deadline ends the cell at once, a flood is cut at the size cap, and an
echoed key is stored and printed nowhere. Stub servers on 127.0.0.1 only."""

from __future__ import annotations

import time

from conftest import run_cli
from releasegate.run import run_config
from releasegate.run.config import load_config
from releasegate.run.store import Store
from run_support import Body, FakeClock, StubServer, answer, echo_reference, write_cases, write_config

KEY = "sk-live-0123456789abcdefghij"


def _config(tmp_path, stub, n=1, system=None, **run):
    cases = write_cases(tmp_path / "cases.csv", n)
    settings = {"cases": cases.name, "store": "store", "max_concurrency": 2, "max_attempts": 3, "backoff_s": 0.01,
                **run}
    system = {"name": "r1", "kind": "openai", "base_url": stub.base_url, "model": "m1", **(system or {})}
    return load_config(write_config(tmp_path / "run.toml", settings, [system], {"kind": "exact"}))


def _cell(config):
    with Store(config.store) as db:
        return db.cells()[0]


def test_a_dripped_body_ends_with_its_attempt_not_after_it(tmp_path):
    """timeout_s covers the whole attempt: a body of 200 bytes dripped a byte per 50 ms (10 s) ends at 0.4 s."""
    data = b" " * 200

    def drip(number, body):
        return 200, {}, Body([data[i:i + 1] for i in range(len(data))], pause=0.05, length=len(data)), 0.0

    with StubServer(drip) as stub:
        config = _config(tmp_path, stub, timeout_s=0.4, deadline_s=3.0, max_attempts=2)
        began = time.monotonic()
        result = run_config(config)
        elapsed = time.monotonic() - began
    cell = _cell(config)
    assert cell["status"] == "error" and cell["error_kind"] == "timeout" and stub.calls == 2
    assert "whole reply" in cell["attempts"][0]["message"]
    assert not result.complete
    assert elapsed < 3.0 + 2.0, elapsed  # two attempts of 0.4 s and a backoff, far from the 10 s drip
    print(f"dripped body: {elapsed:.2f} s for 2 attempts of timeout_s = 0.4")


def test_the_deadline_bounds_the_cell_across_attempts(tmp_path):
    def slow(number, body):
        return 200, {}, answer("late"), 0.6

    with StubServer(slow) as stub:
        config = _config(tmp_path, stub, timeout_s=0.5, deadline_s=1.2, max_attempts=10, backoff_s=0.05)
        began = time.monotonic()
        run_config(config)
        elapsed = time.monotonic() - began
    cell = _cell(config)
    assert cell["status"] == "error" and len(cell["attempts"]) <= 3
    assert elapsed < 1.2 + 2.0, elapsed
    print(f"deadline 1.2 s: the cell ended after {elapsed:.2f} s, {len(cell['attempts'])} attempts")


def test_a_retry_after_beyond_the_deadline_ends_the_cell_at_once(tmp_path):
    for retry_after in ("45", "999999"):
        clock = FakeClock()
        with StubServer(lambda n, b, ra=retry_after: (429, {"Retry-After": ra}, {"error": "slow down"}, 0.0),
                        clock) as stub:
            config = _config(tmp_path, stub, n=3, deadline_s=5.0, max_concurrency=1)
            result = run_config(config, clock=clock, sleep=clock.sleep)
        assert stub.calls == 1  # the pause covers the endpoint: the other cells end without a call
        assert all(s <= 5.0 for s in clock.sleeps) and clock.now < 5.0  # nothing of the Retry-After is slept
        assert {h.kind for h in result.holes} == {"deadline"} and len(result.holes) == 3
        with Store(config.store) as db:
            first = [c for c in db.cells() if c["attempts"]][0]
        assert first["status"] == "error" and f"waiting {float(retry_after):.3g} s more" in first["error"]


def test_a_retry_after_beyond_the_deadline_costs_no_real_time(tmp_path):
    with StubServer(lambda n, b: (429, {"Retry-After": "999999"}, {"error": "no"}, 0.0)) as stub:
        config = _config(tmp_path, stub, n=4, deadline_s=3.0)
        began = time.monotonic()
        result = run_config(config)
        elapsed = time.monotonic() - began
    assert len(result.holes) == 4 and stub.calls <= 2
    assert elapsed < 3.0, elapsed
    print(f"Retry-After 999999 with deadline_s = 3: the run ended after {elapsed:.2f} s")


def test_a_reply_beyond_the_size_cap_is_refused_as_it_arrives(tmp_path):
    declared = 300 * 1024 * 1024
    for body in (Body([b"x" * 1024], length=declared),  # says 300 MB up front
                 Body((b"y" * 65536 for _ in range(20_000)))):  # 1.3 GB chunked, no length said
        with StubServer(lambda n, b, body=body: (200, {}, body, 0.0)) as stub:
            config = _config(tmp_path, stub, max_response_bytes=256 * 1024, max_attempts=3)
            began = time.monotonic()
            result = run_config(config)
            elapsed = time.monotonic() - began
        cell = _cell(config)
        assert cell["status"] == "permanent" and cell["error_kind"] == "too_large" and stub.calls == 1
        assert "max_response_bytes (262,144)" in cell["error"] and result.holes[0].reason == "permanent"
        assert elapsed < 10.0


def test_an_echoed_key_is_stored_and_printed_nowhere(tmp_path, monkeypatch):
    """The 500 body quotes the Authorization header; the 200 body quotes the key itself."""
    monkeypatch.setenv("STUB_KEY", KEY)

    def echo(number, body):
        auth = stub.headers[number - 1].get("Authorization", "")
        if number % 3 == 1:
            return 500, {}, {"error": f"upstream rejected headers {{'Authorization': '{auth}'}}"}, 0.0
        if number % 3 == 2:
            return 400, {}, f"bad request; Authorization: {auth}; x-api-key={KEY}".encode(), 0.0
        return 200, {}, answer(f"your key is {KEY}"), 0.0

    with StubServer(echo) as stub:
        config = _config(tmp_path, stub, n=6, system={"api_key_env": "STUB_KEY"}, max_attempts=2)
        out = tmp_path / "table.csv"
        done = run_cli("run", tmp_path / "run.toml", "-o", out)
        assert stub.headers[0]["Authorization"] == f"Bearer {KEY}"  # the key was sent
    assert done.exit_code == 4
    with Store(config.store) as db:
        cells = db.cells()
    assert any("[redacted]" in (c["error"] or "") for c in cells)
    assert any("[redacted]" in (c["output"] or "") for c in cells)
    files = [out, *config.store.iterdir()]
    for path in files:
        data = path.read_bytes()
        assert KEY.encode() not in data and b"Bearer sk-" not in data, path
    assert KEY not in done.output and "Bearer sk-" not in done.output


def test_malformed_and_truncated_replies_are_transient(tmp_path):
    def broken(number, body):
        if number == 1:
            return 200, {}, Body([b'{"choices": [{"mess'], length=500), 0.0  # the server hangs up early
        return echo_reference(number, body)

    with StubServer(broken) as stub:
        config = _config(tmp_path, stub, timeout_s=2.0)
        result = run_config(config)
    assert result.complete and stub.calls == 2
    assert _cell(config)["attempts"][0]["kind"] == "transport"
