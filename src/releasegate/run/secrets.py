"""Keys never reach the store or the terminal (issue 28, 16): a 500 that echoes the Authorization header, a
judge that quotes it, an exception that prints it.

Every text the run stores or prints passes through :class:`Redactor` first. The keys the run read (the values
of every ``api_key_env``) are replaced wherever they appear, outputs included. Error messages and attempt
records (text the server or a library wrote) are also cleared of anything that looks like a credential: an
``Authorization:`` or ``api-key`` header's value, ``Bearer ...`` / ``Basic ...`` tokens and ``sk-...`` keys.
Outputs keep such look-alikes (an answer may rightly quote ``Bearer <token>``); only the real keys go.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

REDACTED = "[redacted]"
# Shortest value treated as a key: shorter strings would blank ordinary words.
MIN_KEY = 8
LOOKS_LIKE_A_CREDENTIAL = re.compile(
    r"(?i)(?P<head>\b(?:authorization|proxy-authorization|x-api-key|api[-_]key|openai[-_]api[-_]key)\b"
    r"[\"']?\s*[:=]\s*[\"']?)(?:(?:bearer|basic|token)\s+)?[^\s\"',;}]+"
    r"|\b(?P<scheme>bearer|basic)\s+[A-Za-z0-9._~+/=-]{6,}"
    r"|\bsk-[A-Za-z0-9_-]{12,}")


def _credential(match: re.Match[str]) -> str:
    if match.group("head"):
        return match.group("head") + REDACTED
    if match.group("scheme"):
        return f"{match.group('scheme')} {REDACTED}"
    return REDACTED


class Redactor:
    def __init__(self, keys: Iterable[str | None] = ()) -> None:
        found = {k.strip() for k in keys if k and len(k.strip()) >= MIN_KEY}
        self.keys = tuple(sorted(found, key=len, reverse=True))  # longest first: a key inside another

    def known(self, text: str) -> str:
        """The run's own keys replaced (for outputs, prompts and judge replies)."""
        for key in self.keys:
            if key in text:
                text = text.replace(key, REDACTED)
        return text

    def message(self, text: str) -> str:
        """The run's keys and anything that looks like a credential (for errors and attempt records)."""
        return LOOKS_LIKE_A_CREDENTIAL.sub(_credential, self.known(text))

    def optional(self, text: str | None, *, message: bool = False) -> str | None:
        if text is None:
            return None
        return self.message(text) if message else self.known(text)
