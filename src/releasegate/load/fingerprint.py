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
# Columns of the tidy table that say how to pair, not what a case is: never case metadata.
PAIRING_COLUMNS = (CONTENT_COLUMN, POSITION_COLUMN)
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
