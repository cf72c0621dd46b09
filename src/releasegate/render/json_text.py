"""The JSON report's text: byte for byte ``json.dumps(_clean(value), indent=2, ensure_ascii=False)``, faster.

With ``indent`` set, the standard module gives up its C encoder for a pure-Python generator that yields every
comma and key separately; at 1,000,000 cases the broken and fixed case listings took most of the JSON
stage there (0.4 s of encoding plus 0.35 s of cleaning NaN to null in a separate walk). This encoder walks the
value once, cleans as it goes (NaN and infinity become null, tuples lists, numpy scalars Python values,
dataclasses dicts) and builds each container with one ``str.join``; strings are quoted by the standard
module's own C function, and floats and ints are written by the ``repr`` the standard module uses, so the text
is identical (tests/test_json_text.py checks it against ``json.dumps`` on generated values and on reports).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from json.encoder import encode_basestring  # the C implementation when the interpreter has it
from typing import Any

_float_repr: Callable[[float], str] = float.__repr__
_int_repr: Callable[[int], str] = int.__repr__
_isfinite = math.isfinite
STEP = "  "
# The text of each key seen, with its colon: a report repeats the same few dozen keys 500,000 times.
_KEYS: dict[str, str] = {}


def dumps_indented(value: Any, clean: Callable[[Any], Any]) -> str:
    """``json.dumps(clean(value), indent=2, ensure_ascii=False, allow_nan=False)``, computed in one walk.

    ``clean`` is the report's own cleaning function (render/json_out.py ``_clean``); it is called only for
    values that are not plain JSON types, so that both paths agree on what such a value becomes.
    """
    return _encode(value, "", clean)


def _encode(value: Any, pad: str, clean: Callable[[Any], Any]) -> str:
    kind = type(value)
    if kind is str:
        return encode_basestring(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if kind is int:
        return _int_repr(value)
    if kind is float:
        return _float_repr(value) if _isfinite(value) else "null"
    if kind is dict:
        if not value:
            return "{}"
        inner = pad + STEP
        parts = []
        # The scalar cases inline: most values in a report are leaves, and a call per leaf was most of the time.
        for k, v in value.items():
            key = _KEYS.get(k)
            if key is None:
                if type(k) is not str:
                    # Keys that clean() turns into the same text collapse as they do there.
                    return _encode(clean(value), pad, clean)
                key = _KEYS[k] = encode_basestring(k) + ": "
            kind = type(v)
            if kind is str:
                text = encode_basestring(v)
            elif v is None:
                text = "null"
            elif v is True:
                text = "true"
            elif v is False:
                text = "false"
            elif kind is float:
                text = _float_repr(v) if _isfinite(v) else "null"
            elif kind is int:
                text = _int_repr(v)
            else:
                text = _encode(v, inner, clean)
            parts.append(key + text)
        return "{\n" + inner + (",\n" + inner).join(parts) + "\n" + pad + "}"
    if kind is list or kind is tuple:
        if not value:
            return "[]"
        inner = pad + STEP
        return ("[\n" + inner + (",\n" + inner).join([_encode(v, inner, clean) for v in value])
                + "\n" + pad + "]")
    cleaned = clean(value)
    if type(cleaned) in (dict, list, tuple, str, int, float, bool, type(None)):
        return _encode(cleaned, pad, clean)
    # A type of its own after cleaning (a str or int subclass, say): the standard module's text for it.
    return json.dumps(cleaned, ensure_ascii=False, allow_nan=False)
