"""Making untrusted text visible and harmless: control and bidirectional-override characters shown as codes.

Case ids, categories, release names and model outputs come from files other programs wrote. Shown raw, an
escape sequence can rewrite a terminal or CI log, a newline can start a GitHub Actions workflow command
(``::set-output``) on stdout, and a right-to-left override can make a report read differently from what it
says. The JSON keeps the raw text; every human-facing output goes through :func:`visible`.
"""

from __future__ import annotations

import math
import re

# Harness texts (inputs, outputs, grader reasons) are kept up to this many characters per value.
TEXT_LIMIT = 2000

# C0 and C1 controls except tab and the line breaks (handled by each output), DEL, and the Unicode
# bidirectional embeddings, overrides and isolates (the "Trojan Source" characters).
_HIDDEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _code(match: re.Match[str]) -> str:
    point = ord(match.group(0))
    return f"\\x{point:02x}" if point < 0x100 else f"\\u{point:04x}"


def visible(text: str) -> str:
    """Replace control and bidi-override characters with their escape codes (``\\x1b``, ``\\u202e``)."""
    return _HIDDEN.sub(_code, text)


def one_line(text: str) -> str:
    """One line for a terminal or log: every run of whitespace (newlines included) becomes one space."""
    return " ".join(visible(str(text)).split())


def clip(text: object, limit: int = TEXT_LIMIT) -> str | None:
    """A harness text as a string of at most ``limit`` characters (cut with an ellipsis); missing stays None."""
    if text is None or (isinstance(text, float) and math.isnan(text)):
        return None
    text = str(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"
