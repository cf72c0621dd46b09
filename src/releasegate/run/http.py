"""The HTTP client of the endpoint systems: aiohttp, one connection pool per endpoint, bounded replies.

aiohttp rather than httpx: on the same local stub, at concurrency 32, releasegate's cells per second with
aiohttp are several times those with httpx tuned as far as it goes (bench/run_client.py; bench/RESULTS.md,
"releasegate run: the HTTP client"). httpx spends most of a request in its connection pool.

Bounds against a hostile or broken endpoint (issue 28, 15): the caller wraps each attempt in one timeout
covering connect, send and the whole body (a body dripped a byte at a time ends with the attempt, not after
it); a reply longer than ``max_bytes`` is cut off and refused as it arrives, whatever its Content-Length says;
the body is read as sent (no decompression: compressed bytes cannot expand past the cap); at most 128
headers of 8 KB each (aiohttp's limits). The proxy settings of the environment are read once per endpoint.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from releasegate.run.calls import AttemptError

DEFAULT_MAX_BYTES = 4 * 1024 * 1024


@dataclass(frozen=True)
class HttpReply:
    status: int
    body: bytes
    retry_after: str | None


def proxy_for(url: str) -> str | None:
    """The environment's proxy for this URL (HTTP_PROXY, HTTPS_PROXY, NO_PROXY), or None."""
    import urllib.request
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    proxy = urllib.request.getproxies().get(parts.scheme)
    if not proxy or urllib.request.proxy_bypass(parts.hostname or ""):
        return None
    return proxy


class HttpClient:
    """POST a JSON body, read the whole reply within ``max_bytes``; the session opens on the first call (it
    belongs to the running event loop) and closes with :meth:`close`."""

    def __init__(self, max_connections: int, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        # Imported when the run makes its clients, before its first call: imported by the first call, aiohttp
        # (0.3-0.5 s on a busy machine) held the event loop, and so every other worker's first request, for
        # that long: 4% of a 200 ms, 1,600-cell run at concurrency 32 (bench/RESULTS.md).
        import urllib.request  # noqa: F401 (proxy_for)

        import aiohttp  # noqa: F401

        self.max_connections, self.max_bytes = max_connections, max_bytes
        self._session: Any = None
        self._proxies: dict[str, str | None] = {}

    def _open(self) -> Any:
        import aiohttp

        connector = aiohttp.TCPConnector(limit=self.max_connections, limit_per_host=0, ttl_dns_cache=300)
        self._session = aiohttp.ClientSession(
            connector=connector, timeout=aiohttp.ClientTimeout(total=None), auto_decompress=False,
            cookie_jar=aiohttp.DummyCookieJar(), headers={"Accept-Encoding": "identity"})
        return self._session

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None

    async def post(self, url: str, body: bytes, headers: Mapping[str, str]) -> HttpReply:
        import aiohttp

        session = self._session or self._open()
        if url not in self._proxies:
            self._proxies[url] = proxy_for(url)
        try:
            async with session.post(url, data=body, headers=headers, proxy=self._proxies[url]) as response:
                length = response.content_length
                if length is not None and length > self.max_bytes:
                    raise _too_large(self.max_bytes, f"Content-Length {length:,}")
                chunks, size = [], 0
                while chunk := await response.content.readany():
                    size += len(chunk)
                    if size > self.max_bytes:
                        raise _too_large(self.max_bytes, f"more than {self.max_bytes:,} bytes arrived")
                    chunks.append(chunk)
                return HttpReply(response.status, b"".join(chunks), response.headers.get("Retry-After"))
        except aiohttp.ClientError as exc:
            raise AttemptError("transport", f"{type(exc).__name__}: {exc}") from None
        except (OSError, ValueError) as exc:  # a refused connection, a malformed URL or header
            raise AttemptError("transport", f"{type(exc).__name__}: {exc}") from None


def _too_large(limit: int, seen: str) -> AttemptError:
    # Permanent: the same request would bring the same flood (a resume asks again, once).
    return AttemptError("too_large", f"reply larger than max_response_bytes ({limit:,}): {seen}", transient=False)
