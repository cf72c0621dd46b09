"""render/json_text.py writes exactly the text of ``json.dumps(_clean(value), indent=2, ensure_ascii=False)``, its
floats rounded to 12 significant digits."""

from __future__ import annotations

import dataclasses
import enum
import json
import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from releasegate.render.json_out import _clean, render_json, to_json_dict
from releasegate.render.json_text import dumps_indented


def _rounded(value):
    """The cleaned value with every float at 12 significant digits, as the report writes it."""
    if type(value) is float:
        return float(format(value, ".12g")) + 0.0 if math.isfinite(value) else value  # zero without a minus
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_rounded(v) for v in value]
    return value


def reference(value) -> str:
    return json.dumps(_rounded(_clean(value)), indent=2, ensure_ascii=False, allow_nan=False)


class Colour(str, enum.Enum):
    RED = "red"


class Level(enum.IntEnum):
    HIGH = 3


@dataclasses.dataclass(frozen=True)
class Point:
    x: float
    label: str


leaves = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(2 ** 70), max_value=2 ** 70),
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=8),
    st.sampled_from(["\u202e", "\x00", "é", "\"quoted\"", "back\\slash", "\n\t"]),
    st.floats(width=32).map(np.float32), st.integers(-5, 5).map(np.int64), st.booleans().map(np.bool_),
    st.just(np.float64("nan")), st.just(Colour.RED), st.just(Level.HIGH),
    st.builds(Point, st.floats(), st.text(max_size=3)),
)
keys = st.one_of(st.text(max_size=5), st.integers(-3, 3), st.booleans(), st.none())
values = st.recursive(
    leaves,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.lists(inner, max_size=3).map(tuple),
                            st.dictionaries(keys, inner, max_size=4)),
    max_leaves=30,
)


@settings(max_examples=500, deadline=None)
@given(values)
def test_same_text_as_the_standard_module(value):
    assert dumps_indented(value, _clean) == reference(value)


def test_known_shapes():
    assert dumps_indented({}, _clean) == "{}"
    assert dumps_indented({"a": [], "b": {}, "c": [1, 2.5, None]}, _clean) == (
        '{\n  "a": [],\n  "b": {},\n  "c": [\n    1,\n    2.5,\n    null\n  ]\n}')
    assert dumps_indented([math.inf, -math.inf, math.nan, 1e-07, 1e16], _clean) == (
        "[\n  null,\n  null,\n  null,\n  1e-07,\n  1e+16\n]")
    # The last bits of a float are not written: they differ between CPUs (AVX-512 or AVX2 sums).
    assert dumps_indented([0.44735765441228087, 0.44735765441228076, 1 / 3, 1.0], _clean) == (
        "[\n  0.447357654412,\n  0.447357654412,\n  0.333333333333,\n  1.0\n]")
    # 1 and "1" are one key after cleaning, as in to_json_dict.
    assert dumps_indented({1: "x", "1": "y"}, _clean) == reference({1: "x", "1": "y"})


def test_the_example_report_is_unchanged(example):
    from releasegate.load import Source
    from releasegate.pipeline import run
    from releasegate.policy import load_policy_file, make_policy

    policy = make_policy(load_policy_file(example["releasegate.toml"]))
    report = run([Source(example["eval_results.csv"])], policy, cases=example["eval_cases.csv"])
    text = render_json(report)
    assert text == json.dumps(_rounded(to_json_dict(report)), indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    assert len(json.loads(text)["candidates"]) == 2


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(max_size=4), max_size=5, unique=True).flatmap(
    lambda names: st.tuples(st.just(tuple(names)),
                            st.lists(st.tuples(*[values] * len(names)), max_size=4))))
def test_records_are_the_text_of_their_list_of_dicts(keys_and_rows):
    from releasegate.render.json_text import Records

    names, rows = keys_and_rows
    records = Records(names, rows)
    expected = [dict(zip(names, row)) for row in rows]
    assert dumps_indented(records, _clean) == reference(expected)
    assert dumps_indented({"cases": records, "n": 1}, _clean) == reference({"cases": expected, "n": 1})
    assert _clean(records) == _clean(expected)


def test_a_zero_is_written_without_a_minus():
    # The non-inferiority limit -margin of a margin of 0 was written "-0.0".
    assert dumps_indented({"limit": -0.0, "tiny": -1e-300}, _clean) == '{\n  "limit": 0.0,\n  "tiny": -1e-300\n}'
