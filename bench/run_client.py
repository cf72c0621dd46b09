"""Benchmark of ``releasegate run``'s HTTP path (issue 30, item 1; not a timed test): paired rounds, medians.

In each round, against the same stub (bench/stub_server.py, its own process, 127.0.0.1), one after another in
a shuffled order, each in a fresh process:
- ``raw``: a bare aiohttp client, ``concurrency`` tasks posting the chat request and reading the whole reply
  (requests/s: the ceiling of any client in Python on this machine);
- ``aiohttp``: ``releasegate run`` as shipped (two systems on one endpoint, exact metric, the SQLite store,
  one commit per cell, scores, redaction): cells/s;
- ``httpx``: the same run with httpx as the transport, tuned as far as it goes (HTTP/1.1 keep-alive, no env
  lookups, no retries, one client per connection: httpx's shared pool costs most of a request at 32
  connections) and the same whole-body cap: cells/s. Needs ``pip install httpx`` (not a dependency).
Twice: with the stub answering at once, and after ``--latency-ms`` (default 200; the ideal is
concurrency / latency). Each figure is the median over the rounds; each ratio the median of the rounds' ratios.
CPU per cell is the client process's CPU time over the cells. The load average is printed with the figures.

Usage: PYTHONPATH=src python bench/run_client.py [--rounds 5] [--cells 3000] [--slow-cells 1600]
       [--concurrency 32] [--latency-ms 200] [--variants raw,aiohttp,httpx] [--python VENV/bin/python ...]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BODY = json.dumps({"model": "bench", "messages": [{"role": "system", "content": "Be brief."},
                                                  {"role": "user", "content": "question 1 answer3"}],
                   "seed": 0}).encode()


class HttpxClient:
    """httpx tuned: one AsyncClient per connection slot (a queue of them), HTTP/1.1, trust_env off, the body
    streamed under the same cap as releasegate's client."""

    def __init__(self, connections: int, max_bytes: int) -> None:
        import httpx

        self.max_bytes = max_bytes
        self.clients: asyncio.Queue = asyncio.Queue()
        for _ in range(connections):
            transport = httpx.AsyncHTTPTransport(limits=httpx.Limits(max_connections=1, max_keepalive_connections=1),
                                                 retries=0)
            self.clients.put_nowait(httpx.AsyncClient(transport=transport, timeout=None, trust_env=False))
        self.all = list(self.clients._queue)  # noqa: SLF001  (closed at the end)

    async def post(self, url: str, body: bytes, headers: dict) -> object:
        from releasegate.run.http import HttpReply

        client = await self.clients.get()
        try:
            async with client.stream("POST", url, content=body, headers=headers) as response:
                chunks, size = [], 0
                async for chunk in response.aiter_raw():
                    size += len(chunk)
                    if size > self.max_bytes:
                        raise RuntimeError("reply too large")
                    chunks.append(chunk)
                return HttpReply(response.status_code, b"".join(chunks), response.headers.get("retry-after"))
        finally:
            self.clients.put_nowait(client)

    async def close(self) -> None:
        for client in self.all:
            await client.aclose()


async def raw_requests(url: str, n: int, concurrency: int) -> None:
    import aiohttp

    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=concurrency)) as session:
        work = iter(range(n))

        async def worker() -> None:
            for _ in work:
                async with session.post(url, data=BODY, headers={"Content-Type": "application/json"}) as response:
                    await response.read()

        await asyncio.gather(*(worker() for _ in range(concurrency)))


def releasegate_run(port: int, n: int, concurrency: int, transport: str, workdir: Path) -> float:
    sys.path.insert(0, str(ROOT / "tests"))
    from releasegate.run import run_config
    from releasegate.run.config import load_config
    from releasegate.run.openai_chat import OpenAIChat
    from run_support import write_cases, write_config

    cases = write_cases(workdir / "cases.csv", n // 2)
    systems = [{"name": n, "kind": "openai", "base_url": f"http://127.0.0.1:{port}/v1", "model": "bench",
                "system_prompt": f"Be brief ({n})."} for n in ("r1", "r2")]
    config = load_config(write_config(workdir / "run.toml", {"cases": cases.name, "store": "store",
                                                             "max_concurrency": concurrency},
                                      systems, {"kind": "exact"}))
    callers = None
    if transport == "httpx":
        callers = {s.name: OpenAIChat(s, HttpxClient(concurrency, config.max_response_bytes)) for s in config.systems}
    result = run_config(config, callers=callers)
    assert result.complete and result.stats is not None and result.stats.system_calls == n, "the run left holes"
    return result.stats.seconds


def one(variant: str, port: int, n: int, concurrency: int) -> dict[str, float]:
    """One measurement in this process: wall seconds and CPU seconds of the variant's n requests or cells."""
    with tempfile.TemporaryDirectory(prefix="rg-client-bench-") as tmp:
        if variant == "raw":
            import aiohttp  # noqa: F401 (as releasegate's client, imported before the clock: start-up, not calls)
        start, cpu = time.perf_counter(), time.process_time()
        if variant == "raw":
            asyncio.run(raw_requests(f"http://127.0.0.1:{port}/v1/chat/completions", n, concurrency))
            calls = None
        else:
            calls = releasegate_run(port, n, concurrency, variant, Path(tmp))
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    # per_second: the calls, scoring and store writes (releasegate's execution phase; all of a raw client's run);
    # whole_per_second: the whole run_config (cases read, plan, store opened, the table read back at the end).
    return {"per_second": n / (calls or elapsed), "whole_per_second": n / elapsed, "cpu_ms": cpu / n * 1000.0}


def measure(variant: str, port: int, n: int, concurrency: int, pythons: list[str]) -> dict[str, float]:
    """One variant in a fresh process: ``aiohttp:I`` runs releasegate on the I-th ``--python``'s install (a fresh
    ``pip install .``), the others this interpreter with this checkout's src."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    python = sys.executable
    if ":" in variant:
        variant, index = variant.split(":")
        python = pythons[int(index)]
        env.pop("PYTHONPATH")
    done = subprocess.run([python, __file__, "--one", variant, "--port", str(port), "--cells", str(n),
                           "--concurrency", str(concurrency)], env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def stub(latency_ms: float) -> tuple[subprocess.Popen, int]:
    server = subprocess.Popen([sys.executable, str(ROOT / "bench" / "stub_server.py"), "--latency-ms",
                               str(latency_ms)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert server.stdout is not None
    return server, int(server.stdout.readline())


def rounds(args: argparse.Namespace) -> dict[str, dict]:
    variants = args.variants.split(",")
    if args.python:  # the releasegate variant once per install, side by side
        variants = [v for v in variants if v != "aiohttp"] + [f"aiohttp:{i}" for i in range(len(args.python))]
    out = {}
    for label, latency, n in (("0 ms", 0.0, args.cells), (f"{args.latency_ms:g} ms", args.latency_ms,
                                                           args.slow_cells)):
        server, port = stub(latency)
        try:
            per_round = []
            for _ in range(args.rounds):
                order = random.sample(variants, len(variants))
                per_round.append({v: measure(v, port, n, args.concurrency, args.python or []) for v in order})
        finally:
            assert server.stdin is not None
            server.stdin.close()
            server.wait(timeout=30)
        medians = {v: {k: statistics.median(r[v][k] for r in per_round)
                       for k in ("per_second", "whole_per_second", "cpu_ms")} for v in variants}
        ratios = {}
        for v in variants:
            if v != "raw" and "raw" in variants:
                ratios[f"{v}/raw"] = statistics.median(r[v]["per_second"] / r["raw"]["per_second"] for r in per_round)
        if "aiohttp" in variants and "httpx" in variants:
            ratios["aiohttp/httpx"] = statistics.median(r["aiohttp"]["per_second"] / r["httpx"]["per_second"]
                                                        for r in per_round)
        ideal = args.concurrency / (latency / 1000.0) if latency else None
        if ideal:
            for v in variants:
                if v != "raw":
                    ratios[f"{v}/ideal"] = medians[v]["per_second"] / ideal
        out[label] = {"cells": n, "medians": medians, "ratios": ratios, "ideal": ideal,
                      "rounds": [{v: round(r[v]["per_second"], 1) for v in variants} for r in per_round]}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--cells", type=int, default=3000)
    parser.add_argument("--slow-cells", type=int, default=1600)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--latency-ms", type=float, default=200.0)
    parser.add_argument("--variants", default="raw,aiohttp,httpx")
    parser.add_argument("--python", action="append", help="an install's interpreter for the releasegate variant "
                        "(repeat to pair installs: aiohttp:0, aiohttp:1, ...)")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one(args.one, args.port, args.cells, args.concurrency)))
        return
    load_before = os.getloadavg()
    figures = rounds(args)
    print(json.dumps({"load_before": [round(x, 2) for x in load_before],
                      "load_after": [round(x, 2) for x in os.getloadavg()], "concurrency": args.concurrency,
                      "figures": figures}, indent=1))


if __name__ == "__main__":
    main()
