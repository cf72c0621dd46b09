"""Making untrusted text visible and harmless: control and bidirectional-override characters shown as codes.

Case ids, categories, release names and model outputs come from files other programs wrote. Shown raw, an
escape sequence can rewrite a terminal or CI log, a newline can start a GitHub Actions workflow command
(``::set-output``) on stdout, and a right-to-left override can make a report read differently from what it
says. The JSON keeps the raw text; every human-facing output goes through :func:`visible`.
"""

from __future__ import annotations

import math
import re
import unicodedata

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


def first_hidden(text: str) -> str | None:
    """The first control or bidi-override character of ``text`` as its code (``\\u202e``), None without one."""
    match = _HIDDEN.search(text)
    return None if match is None else _code(match)


def one_line(text: str) -> str:
    """One line for a terminal or log: every run of whitespace (newlines included) becomes one space."""
    return " ".join(visible(str(text)).split())


def clip(text: object, limit: int = TEXT_LIMIT) -> str | None:
    """A harness text as a string of at most ``limit`` characters (cut with an ellipsis); missing stays None."""
    if text is None or (isinstance(text, float) and math.isnan(text)):
        return None
    text = str(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


# Ids a reader takes for one: the same text in another Unicode form (NFC against NFD, as macOS writes file
# names), in other letter case, or with other leading zeros. Named in a refusal, never matched: which id is meant
# is for the user to say. Looked for among the first ids only, on the way to a refusal.
_NEAR_MISSES = (("only in Unicode form (NFC against NFD)", lambda text: unicodedata.normalize("NFC", text)),
                ("only in letter case", str.casefold),
                ("only in leading zeros", lambda text: re.sub(r"(?<!\d)0+(?=\d)", "", text)))
_NEAR_LOOKED_AT = 100_000


def near_misses(left: list[str], right: list[str]) -> tuple[int, str, str, str] | None:
    """Ids of ``left`` that equal one of ``right`` but for one of :data:`_NEAR_MISSES`: how many, how they differ,
    and the first pair with its characters escaped so that the difference shows; None when none do."""
    for words, key in _NEAR_MISSES:
        by_key: dict[str, str] = {}
        for text in right[:_NEAR_LOOKED_AT]:
            by_key.setdefault(key(text), text)
        pairs = [(text, by_key[key(text)]) for text in left[:_NEAR_LOOKED_AT] if key(text) in by_key]
        if pairs:
            return len(pairs), words, ascii(pairs[0][0]), ascii(pairs[0][1])
    return None
