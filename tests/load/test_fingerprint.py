"""A case's content fingerprint: the same content gives the same fingerprint however it is spelled in bytes,
and different content a different one."""

from __future__ import annotations

import hashlib

from releasegate.load.fingerprint import DIGEST_CHARACTERS, content_fingerprint


def test_the_fingerprint_is_the_sha256_of_the_canonical_json():
    expected = hashlib.sha256('["Say the word w11.","w11"]'.encode()).hexdigest()[:DIGEST_CHARACTERS]
    assert content_fingerprint("Say the word w11.", "w11") == expected


def test_spelling_of_the_same_text_does_not_matter():
    base = content_fingerprint("Someone called asking for my OTP", {"b": 1, "a": ["x"]})
    assert content_fingerprint("  Someone called asking for my OTP\r\n", {"a": ["x"], "b": 1}) == base
    composed, decomposed = "caf\u00e9", "cafe\u0301"
    assert content_fingerprint(composed) == content_fingerprint(decomposed)


def test_other_content_or_order_of_parts_is_another_case():
    assert content_fingerprint("Say the word w11.", "w11") != content_fingerprint("Say the word w12.", "w12")
    assert content_fingerprint("a", "b") != content_fingerprint("b", "a")
    assert content_fingerprint("a", None) != content_fingerprint("a", "")
