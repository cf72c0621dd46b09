"""A fast OpenAI-compatible stub for the run benchmarks: asyncio protocol, HTTP/1.1 keep-alive, standard library.

The tests' stub (tests/run_support.py, a ThreadingHTTPServer) takes about a millisecond of CPU per request,
which would make the server, not the client, the limit of a throughput benchmark. This one parses only what a
chat request needs (the request line, Content-Length, the body's length) and answers every request with the
same completion after ``--latency-ms``, so the client side is what is measured. It prints its port on stdout
and serves until its stdin closes. It listens on 127.0.0.1 only.

Usage: python bench/stub_server.py [--latency-ms 0]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys

ANSWER = json.dumps({
    "id": "bench", "object": "chat.completion", "model": "stub-model", "system_fingerprint": "fp_bench",
    "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "answer3"}}],
    "usage": {"prompt_tokens": 11, "completion_tokens": 3}}).encode()
RESPONSE = (b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: "
            + str(len(ANSWER)).encode() + b"\r\n\r\n" + ANSWER)


class ChatStub(asyncio.Protocol):
    """One connection: requests are read in turn; each is answered after the latency (keep-alive)."""

    def __init__(self, latency_s: float) -> None:
        self.latency_s = latency_s
        self.buffer = b""
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while True:
            head_end = self.buffer.find(b"\r\n\r\n")
            if head_end < 0:
                return
            length = 0
            for line in self.buffer[:head_end].split(b"\r\n")[1:]:
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value.strip())
            end = head_end + 4 + length
            if len(self.buffer) < end:
                return
            self.buffer = self.buffer[end:]
            if self.latency_s:
                asyncio.get_running_loop().call_later(self.latency_s, self._answer)
            else:
                self._answer()

    def _answer(self) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(RESPONSE)


async def serve(latency_ms: float) -> None:
    loop = asyncio.get_running_loop()
    server = await loop.create_server(lambda: ChatStub(latency_ms / 1000.0), "127.0.0.1", 0, backlog=1024)
    print(server.sockets[0].getsockname()[1], flush=True)
    await loop.run_in_executor(None, sys.stdin.read)  # serve until the benchmark closes our stdin
    server.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency-ms", type=float, default=0.0)
    asyncio.run(serve(parser.parse_args().latency_ms))


if __name__ == "__main__":
    main()
