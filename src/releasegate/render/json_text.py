"""The JSON report's text: byte for byte ``json.dumps(_clean(value), indent=2, ensure_ascii=False)``, faster.

With ``indent`` set, the standard module gives up its C encoder for a pure-Python generator that yields every
comma and key separately; at 1,000,000 cases the broken and fixed case listings took most of the JSON
stage there (0.4 s of encoding plus 0.35 s of cleaning NaN to null in a separate walk). This encoder walks the
value once, cleans as it goes (NaN and infinity become null, tuples lists, numpy scalars Python values,
dataclasses dicts) and builds each container with one ``str.join``; strings are quoted by the standard
module's own C function, ints by the ``repr`` the standard module uses, and floats rounded to 12 significant
digits first (:func:`_float_repr`), so the text is that of ``json.dumps`` of the rounded value
(tests/render/test_json_text.py checks it on generated values and on reports).

A long list of objects with the same keys (the case listings) can be given as :class:`Records`: the keys once,
then one tuple of values per object. Its text is that of the list of dicts, without building the dicts or
quoting the same keys again for every case.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from json.encoder import encode_basestring  # the C implementation when the interpreter has it
from typing import Any



def _float_repr(value: float) -> str:
    """A float's text at 12 significant digits (then the shortest repr of that): the last bits of a sum depend on
    the CPU's vector width (numpy's pairwise sums take other paths with AVX-512 than with AVX2), and a note must
    read the same on every machine, and `releasegate verify` compare what it wrote. A zero is written without a
    minus (-0.0 + 0.0 is 0.0): the limit -margin of a margin of 0 read "-0.0"."""
    return repr(float(format(value, ".12g")) + 0.0)


_int_repr: Callable[[int], str] = int.__repr__
_isfinite = math.isfinite
STEP = "  "
# The text of each key seen, with its colon: a report repeats the same few dozen keys 500,000 times.
_KEYS: dict[str, str] = {}


@dataclass(frozen=True)
class Records:
    """A list of JSON objects that share their keys: ``[dict(zip(keys, row)) for row in rows]``."""

    keys: tuple[str, ...]
    rows: Sequence[tuple[Any, ...]]

    def __post_init__(self) -> None:
        if not all(type(k) is str for k in self.keys):
            raise TypeError("Records keys must be strings")

    def as_dicts(self) -> list[dict[str, Any]]:
        return [dict(zip(self.keys, row)) for row in self.rows]


def dumps_indented(value: Any, clean: Callable[[Any], Any]) -> str:
    """``json.dumps(clean(value), indent=2, ensure_ascii=False, allow_nan=False)``, computed in one walk.

    ``clean`` is the report's own cleaning function (render/json_out.py ``_clean``); it is called only for
    values that are not plain JSON types, so that both paths agree on what such a value becomes.
    """
    return _encode(value, "", clean)


def dumps_compact(value: Any) -> str:
    """``value`` (dicts, lists, tuples, strings, numbers, booleans, None) as JSON without spaces, each float at
    the 12 significant digits :func:`dumps_indented` writes and NaN or infinity as null: for data a page carries
    (render/explorer.py), where indentation would only add bytes."""
    return json.dumps(_rounded(value), ensure_ascii=False, allow_nan=False, separators=(",", ":"))


def _rounded(value: Any) -> Any:
    kind = type(value)
    if kind is float:
        return float(_float_repr(value)) if _isfinite(value) else None
    if kind is list or kind is tuple:
        return [_rounded(v) for v in value]
    if kind is dict:
        return {k: _rounded(v) for k, v in value.items()}
    return value


def _key(k: Any) -> str | None:
    """A key's text with its colon (cached), or None for a key that is not a string."""
    text = _KEYS.get(k)
    if text is None and type(k) is str:
        text = _KEYS[k] = encode_basestring(k) + ": "
    return text


def _object(keys: Sequence[str], values: Any, pad: str, clean: Callable[[Any], Any]) -> str:
    """One object's text from its keys' texts and its values, at indentation ``pad``."""
    inner = pad + STEP
    parts = []
    # The scalar cases inline: most values in a report are leaves, and a call per leaf was most of the time.
    for key, v in zip(keys, values):
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
        elif kind is dict and not v:
            text = "{}"
        else:
            text = _encode(v, inner, clean)
        parts.append(key + text)
    return "{\n" + inner + (",\n" + inner).join(parts) + "\n" + pad + "}"


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
        keys = [_key(k) for k in value]
        if None in keys:
            # Keys that clean() turns into the same text collapse as they do there.
            return _encode(clean(value), pad, clean)
        return _object(keys, value.values(), pad, clean)
    if kind is list or kind is tuple:
        if not value:
            return "[]"
        inner = pad + STEP
        return ("[\n" + inner + (",\n" + inner).join([_encode(v, inner, clean) for v in value])
                + "\n" + pad + "]")
    if kind is Records:
        if not value.rows:
            return "[]"
        inner = pad + STEP
        if not value.keys:
            return "[\n" + inner + (",\n" + inner).join(["{}"] * len(value.rows)) + "\n" + pad + "]"
        keys = [_key(k) for k in value.keys]
        return ("[\n" + inner + (",\n" + inner).join([_object(keys, row, inner, clean) for row in value.rows])
                + "\n" + pad + "]")
    cleaned = clean(value)
    if type(cleaned) in (dict, list, tuple, str, int, float, bool, type(None)):
        return _encode(cleaned, pad, clean)
    # A type of its own after cleaning (a str or int subclass, say): the standard module's text for it.
    return json.dumps(cleaned, ensure_ascii=False, allow_nan=False)
