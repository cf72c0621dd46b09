"""A case's content, as a fingerprint the pairing compares: two rows are the same case only when their ids and,
where the results carry it, their content agree.

Adapters and tidy readers put the fingerprint in the ``content_hash`` column (missing where the format holds no
content for that row) and mark ids that are positions in a dataset (Inspect's default 1..N, OpenAI evals'
``split.n``) in the ``id_is_position`` column: such an id names another question as soon as the dataset changes,
so those cases are paired by content or refused.
"""

from __future__ import annotations

import hashlib
import json
import unicodedata
from typing import Any

CONTENT_COLUMN = "content_hash"
POSITION_COLUMN = "id_is_position"
# What a row's content_hash is the fingerprint of (the harness's own parts: "inspect", "lm-eval", "promptfoo",
# "evals"; or TEXT_KIND): two fingerprints of different kinds say nothing about each other.
KIND_COLUMN = "content_kind"
# A case held as two plain texts, its input and its target (:func:`text_fingerprint`): what a tidy file's ``input``
# and ``target`` columns say, so that a tidy file's case is compared with a harness's case of this kind.
TEXT_KIND = "text"
# Columns of the tidy table that say how to pair, not what a case is: never case metadata.
PAIRING_COLUMNS = (CONTENT_COLUMN, POSITION_COLUMN, KIND_COLUMN)
# 96 bits: a collision among ten million cases has a chance of about 1e-15, at a third of a full digest's memory.
DIGEST_CHARACTERS = 24


def _normal(value: Any) -> Any:
    """Text compared as a reader would: Unicode NFC, line endings as \\n, surrounding whitespace dropped."""
    if isinstance(value, str):
        return unicodedata.normalize("NFC", value.replace("\r\n", "\n").replace("\r", "\n")).strip()
    if isinstance(value, dict):
        return {str(k): _normal(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_normal(v) for v in value]
    return value


def content_fingerprint(*parts: Any) -> str:
    """The fingerprint of a case's content (its input, its reference or target, ...; any JSON values): the
    sha256 of the normalised parts as canonical JSON (sorted keys), cut to ``DIGEST_CHARACTERS`` hex digits."""
    text = json.dumps([_normal(p) for p in parts], sort_keys=True, ensure_ascii=False, separators=(",", ":"),
                      default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:DIGEST_CHARACTERS]


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, float) and value != value) or (isinstance(value, str) and not value.strip()) \
        or type(value).__name__ == "NAType"


def text_fingerprint(input: Any, target: Any) -> str:
    """The fingerprint of a case held as two plain texts (``TEXT_KIND``), whichever reader read them: a missing
    text is the empty one (a CSV cannot tell them apart). Equal to ``content_fingerprint(input, target)`` for two
    texts, what the Inspect readers gave such a sample before this kind existed."""
    return content_fingerprint(*("" if _blank(v) else v for v in (input, target)))
