"""Progress of a run on stderr: per release done / errors / rate-limited / cost so far, and a summary.

On a terminal one line is redrawn in place (at most every 0.2 s); elsewhere (CI logs) nothing is drawn
until the summary, so a log is not flooded with thousands of lines.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from typing import TextIO


@dataclass
class ReleaseCounts:
    done: int = 0
    errors: int = 0
    rate_limited: int = 0
    cost: float = 0.0


@dataclass
class Progress:
    total: int
    stream: TextIO = field(default_factory=lambda: sys.stderr)
    live: bool | None = None
    counts: dict[str, ReleaseCounts] = field(default_factory=dict)
    _drawn: float = 0.0

    def __post_init__(self) -> None:
        if self.live is None:
            self.live = bool(getattr(self.stream, "isatty", lambda: False)())

    def _of(self, release: str) -> ReleaseCounts:
        return self.counts.setdefault(release, ReleaseCounts())

    def cell(self, release: str, *, ok: bool, cost: float) -> None:
        counts = self._of(release)
        counts.done += ok
        counts.errors += not ok
        counts.cost += cost
        self._draw()

    def rate_limited(self, release: str) -> None:
        self._of(release).rate_limited += 1
        self._draw()

    def line(self) -> str:
        parts = [f"{name}: {c.done} done, {c.errors} errors, {c.rate_limited} rate-limited, ${c.cost:.4f}"
                 for name, c in self.counts.items()]
        finished = sum(c.done + c.errors for c in self.counts.values())
        return f"[{finished}/{self.total}] " + "; ".join(parts)

    def _draw(self, force: bool = False) -> None:
        if not self.live:
            return
        now = time.monotonic()
        if force or now - self._drawn >= 0.2:
            self._drawn = now
            self.stream.write("\r" + self.line()[:200] + "\x1b[K")
            self.stream.flush()

    def finish(self, summary: str) -> None:
        if self.live:
            self._draw(force=True)
            self.stream.write("\n")
        self.stream.write(summary + "\n")
        self.stream.flush()
