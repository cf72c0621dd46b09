"""Helpers of the tests of ``releasegate run``: a stub OpenAI-compatible server on 127.0.0.1, a fake clock,
case files and configs. Nothing here touches any address but 127.0.0.1."""

from __future__ import annotations

import asyncio
import csv
import json
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Self

# behaviour(call_number, request_body) -> (status, headers, body bytes or dict or Body, delay seconds)
Behaviour = Callable[[int, dict[str, Any]], tuple[int, dict[str, str], Any, float]]


@dataclass(frozen=True)
class Body:
    """A reply body sent in pieces: ``pause`` seconds before each chunk (a dripped body), with the declared
    ``length`` as Content-Length (None: chunked transfer encoding, no length said)."""

    chunks: Iterable[bytes]
    pause: float = 0.0
    length: int | None = None


def answer(text: str, **extra: Any) -> dict[str, Any]:
    return {"id": "x", "model": extra.get("model", "stub-model"), "system_fingerprint": "fp_stub",
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
            "usage": {"prompt_tokens": 11, "completion_tokens": 3}}


def echo_reference(call: int, body: dict[str, Any]) -> tuple[int, dict[str, str], Any, float]:
    """Answers with the last word of the user message (cases put their reference there)."""
    return 200, {}, answer(body["messages"][-1]["content"].split()[-1]), 0.0


class StubServer:
    """ThreadingHTTPServer on 127.0.0.1 (an ephemeral port); counts calls and the peak of requests in flight."""

    def __init__(self, behaviour: Behaviour = echo_reference, clock: Any = None) -> None:
        self.behaviour = behaviour
        self.clock = clock
        self.calls = 0
        self.in_flight = 0
        self.peak_in_flight = 0
        self.bodies: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []  # each request's headers, in arrival order
        self.finished: list[float] = []  # real time at which each reply was fully sent or abandoned
        self.arrivals: list[float] = []
        self.lock = threading.Lock()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # Headers and body go out as two writes: with Nagle's algorithm the second waits for the client's
            # delayed ACK (up to 40 ms a reply).
            disable_nagle_algorithm = True

            def log_message(self, *args: Any) -> None:
                return None

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                with stub.lock:
                    stub.calls += 1
                    number = stub.calls
                    stub.in_flight += 1
                    stub.peak_in_flight = max(stub.peak_in_flight, stub.in_flight)
                    stub.bodies.append(body)
                    stub.headers.append(dict(self.headers.items()))
                    stub.arrivals.append(stub.clock.now if stub.clock is not None else 0.0)
                try:
                    status, headers, payload, delay = stub.behaviour(number, body)
                    if delay:
                        time.sleep(delay)
                    with stub.lock:  # answered from here on: the client may send its next request at once
                        stub.in_flight -= 1
                    self.send_response(status)
                    for name, value in headers.items():
                        self.send_header(name, value)
                    self.send_header("content-type", "application/json")
                    if isinstance(payload, Body):
                        self._send_pieces(payload)
                    else:
                        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
                        self.send_header("content-length", str(len(data)))
                        self.end_headers()
                        self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a read timeout): nothing to answer
                finally:
                    with stub.lock:
                        stub.finished.append(time.monotonic())

            def _send_pieces(self, body: Body) -> None:
                if body.length is not None:
                    self.send_header("content-length", str(body.length))
                else:
                    self.send_header("transfer-encoding", "chunked")
                self.end_headers()
                self.wfile.flush()
                sent = 0
                for chunk in body.chunks:
                    if body.pause:
                        time.sleep(body.pause)
                    self.wfile.write(chunk if body.length is not None else b"%x\r\n%s\r\n" % (len(chunk), chunk))
                    self.wfile.flush()
                    sent += len(chunk)
                if body.length is None:
                    self.wfile.write(b"0\r\n\r\n")
                elif sent < body.length:
                    self.close_connection = True  # fewer bytes than said: hang up, as a crashed server does

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> Self:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=10)


class FakeClock:
    """clock() and an async sleep that advances it: backoff and Retry-After cost no real time."""

    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += max(0.0, seconds)
        await asyncio.sleep(0)


def write_cases(path: Path, n: int, categories: int = 3) -> Path:
    """n cases; the reference is also the input's last word, so a stub echoing it answers correctly."""
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["case_id", "category", "input", "reference"])
        for i in range(n):
            writer.writerow([f"C{i:04d}", f"cat{i % categories}", f"question {i} answer{i % 7}", f"answer{i % 7}"])
    return path


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {toml_value(v)}" for k, v in value.items()) + " }"
    return repr(value)


def write_config(path: Path, run: dict[str, Any], systems: list[dict[str, Any]], metric: dict[str, Any]) -> Path:
    lines = ["[run]", *(f"{k} = {toml_value(v)}" for k, v in run.items())]
    for system in systems:
        lines += ["", "[[run.system]]", *(f"{k} = {toml_value(v)}" for k, v in system.items())]
    lines += ["", "[run.metric]", *(f"{k} = {toml_value(v)}" for k, v in metric.items())]
    path.write_text("\n".join(lines) + "\n")
    return path


def finished_store(tmp_path: Path, n_cases: int) -> Path:
    """A complete store of two fake releases (one 90% accurate), ``n_cases`` cases x 2 runs, the exact metric."""
    from releasegate.run import run as run_from

    cases = write_cases(tmp_path / "cases.csv", n_cases)
    systems = [{"name": "live", "kind": "fake", "accuracy": 0.9}, {"name": "cand", "kind": "fake", "seed": 2}]
    path = write_config(tmp_path / "run.toml", {"cases": cases.name, "store": "store", "runs": 2, "max_attempts": 1},
                        systems, {"name": "correct", "kind": "exact"})
    assert run_from(path).complete
    return tmp_path / "store"
