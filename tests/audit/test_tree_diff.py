"""The generic comparison of two notes' JSON (audit/tree_diff.py): precision, identity matching, ignored keys."""

from __future__ import annotations

import json
import random

from hypothesis import given
from hypothesis import strategies as st

from releasegate.audit.tree_diff import MISSING, compare, count_leaves, same_figure
from releasegate.render.json_text import _float_repr


def _paths(a, b, **kw) -> list[tuple[str, str]]:
    return [(d.path, d.kind) for d in compare(a, b, **kw)]


def test_figures_agree_at_twelve_significant_digits_and_no_further():
    assert same_figure(0.237884521484, 0.2378845214841)  # beyond the 12th digit
    assert same_figure(0.237884521484, 0.237884521485)  # one unit of the 12th digit: neighbouring roundings
    assert not same_figure(0.237884521484, 0.237884521486)
    assert not same_figure(0.2378845, 0.2378846)
    assert same_figure(1.5e-20, 1.5e-20) and not same_figure(1.5e-20, 1.6e-20)
    assert not same_figure(0.0, 1e-300) and same_figure(0.0, 0.0) and not same_figure(0.0, 5e-324)
    assert not same_figure(float("inf"), 1e308)


@given(st.floats(allow_nan=False, allow_infinity=False, min_value=-1e12, max_value=1e12))
def test_a_value_and_its_written_text_are_the_same_figure(x):
    """What the JSON writer writes (12 significant digits) reads back as the same figure."""
    assert same_figure(x, float(_float_repr(x)))


@given(st.floats(min_value=1e-6, max_value=1e6), st.floats(min_value=1e-9, max_value=0.5))
def test_a_relative_change_above_a_billionth_is_a_difference(x, change):
    assert not same_figure(x, x * (1 + max(change, 1e-9)))


def test_counts_must_be_equal_and_booleans_are_not_numbers():
    assert _paths({"n": 400}, {"n": 401}) == [("n", "figure")]
    assert _paths({"ship": True}, {"ship": 1}) == [("ship", "type")]
    assert _paths({"ship": False}, {"ship": True}) == [("ship", "verdict")]
    assert _paths({"x": 2}, {"x": 2.0}) == []


def test_lists_of_objects_are_matched_on_their_identity():
    note = {"cases": [{"case_id": "a", "v": 1.0}, {"case_id": "b", "v": 0.0}, {"case_id": "c", "v": 1.0}]}
    rerun = {"cases": [{"case_id": "a", "v": 1.0}, {"case_id": "c", "v": 0.0}, {"case_id": "d", "v": 1.0}]}
    diffs = list(compare(note, rerun))
    assert [(d.path, d.kind) for d in diffs] == [
        ("cases[case_id=b]", "case"), ("cases[case_id=c].v", "figure"), ("cases[case_id=d]", "case")]
    assert diffs[0].rerun is MISSING and diffs[2].note is MISSING


def test_lists_without_a_unique_identity_are_compared_in_order():
    note = {"x": [{"name": "a", "v": 1}, {"name": "a", "v": 2}]}
    assert _paths(note, {"x": [{"name": "a", "v": 1}, {"name": "a", "v": 3}, {"name": "b", "v": 1}]}) == [
        ("x[1].v", "figure"), ("x[2]", "item")]


def test_a_sentence_added_to_a_list_is_one_difference():
    assert _paths({"w": ["a", "b", "c"]}, {"w": ["new", "a", "b", "c"]}) == [("w", "text")]
    assert _paths({"h": [1, 2, 3]}, {"h": [1, 5, 3]}) == [("h[1]", "figure")]


def test_ignored_keys_by_their_shape_path_and_keys_on_one_side():
    note = {"generated_at": "t1", "a": [{"command_line": "x", "k": 1}], "gone": 1, "b": {"generated_at": "t1"}}
    rerun = {"generated_at": "t2", "a": [{"command_line": "y", "k": 1}], "new": 2, "b": {"generated_at": "t2"}}
    ignore = {"generated_at", "a[].command_line"}.__contains__
    # b.generated_at is another place (a data column of that name, say): compared.
    assert _paths(note, rerun, ignore=ignore) == [("gone", "key"), ("b.generated_at", "text"), ("new", "key")]
    assert count_leaves(note, ignore) == (2, 1)


def test_a_real_note_equals_itself_and_counts_its_leaves(example_json):
    assert list(compare(example_json, json.loads(json.dumps(example_json)))) == []
    figures, others = count_leaves(example_json)
    assert figures > 500 and others > 500


def _counted(value, ignore, shape=""):
    """count_leaves by its definition, one call a value: the reference for the walk with its own stack."""
    if isinstance(value, dict):
        pairs = [_counted(v, ignore, f"{shape}.{k}" if shape else str(k)) for k, v in value.items()
                 if not ignore(f"{shape}.{k}" if shape else str(k))]
    elif isinstance(value, list):
        pairs = [_counted(v, ignore, shape + "[]") for v in value]
    else:
        return (1, 0) if isinstance(value, (int, float)) and not isinstance(value, bool) else (0, 1)
    return sum(p[0] for p in pairs), sum(p[1] for p in pairs)


def test_leaves_are_counted_as_their_definition_counts_them(example_json):
    rng = random.Random(11)
    leaves = [0, 1.5, -2, True, False, None, "x", ""]

    def tree(depth):
        if depth == 0 or rng.random() < 0.3:
            return rng.choice(leaves)
        if rng.random() < 0.5:
            return [tree(depth - 1) for _ in range(rng.randint(0, 4))]
        return {rng.choice("abc") + str(i): tree(depth - 1) for i in range(rng.randint(0, 4))}

    ignore = {"a0", "b1.c2", "a1[].b0"}.__contains__
    for _ in range(300):
        value = tree(5)
        assert count_leaves(value, ignore) == _counted(value, ignore)
    assert count_leaves(example_json) == _counted(example_json, lambda shape: False)


def test_lists_written_alike_are_not_walked_and_lists_that_differ_in_type_are(monkeypatch):
    """Lists that the JSON writer writes as the same text are passed over whole; True beside 1, 1 beside 1.0, and
    NaN (equal to nothing) are not the same text, so they are walked as before."""
    import releasegate.audit.tree_diff as tree_diff

    assert _paths({"h": [True]}, {"h": [1]}) == [("h[0]", "type")]
    assert _paths({"c": [{"case_id": "a", "v": True}]}, {"c": [{"case_id": "a", "v": 1}]}) == [
        ("c[case_id=a].v", "type")]
    assert _paths({"h": [1]}, {"h": [1.0]}) == []  # the same figure, walked
    assert _paths({"h": [float("nan")]}, {"h": [float("nan")]}) == [("h[0]", "figure")]
    walked = []
    monkeypatch.setattr(tree_diff, "_identity", lambda a, b: walked.append(len(a)))
    big = {"cases": [{"case_id": str(i), "v": i / 7} for i in range(1000)]}
    assert _paths(big, json.loads(json.dumps(big))) == [] and walked == []


def test_the_shortcut_finds_every_difference_the_walk_finds(monkeypatch):
    """Random notes and copies of them with a few values changed (a number, its type, a text, a key, a case):
    the differences are the same with and without passing over lists written alike."""
    import releasegate.audit.tree_diff as tree_diff

    rng = random.Random(7)
    leaves = [0, 1, 1.0, 2.5, True, False, None, "x", "", float("nan")]

    def tree(depth):
        if depth == 0 or rng.random() < 0.25:
            return rng.choice(leaves)
        if rng.random() < 0.5:
            if rng.random() < 0.5:
                return [{"case_id": f"c{i}", "v": tree(depth - 1)} for i in range(rng.randint(0, 4))]
            return [tree(depth - 1) for _ in range(rng.randint(0, 4))]
        return {rng.choice("ab") + str(i): tree(depth - 1) for i in range(rng.randint(0, 3))}

    def changed(value):
        if isinstance(value, dict):
            out = {k: changed(v) for k, v in value.items()}
            if out and rng.random() < 0.05:
                out.pop(rng.choice(list(out)))
            return out
        if isinstance(value, list):
            out = [changed(v) for v in value]
            if out and rng.random() < 0.05:
                out.pop(rng.randrange(len(out)))
            return out
        return rng.choice(leaves) if rng.random() < 0.1 else value

    ignore = {"a0", "b1[].v"}.__contains__
    differing = 0
    for _ in range(400):
        note = tree(5)
        rerun = changed(note)
        fast = list(compare(note, rerun, ignore=ignore))
        with monkeypatch.context() as patched:
            patched.setattr(tree_diff, "_identical", lambda a, b: False)
            walked = list(compare(note, rerun, ignore=ignore))
        assert [(d.path, d.kind) for d in fast] == [(d.path, d.kind) for d in walked]
        differing += bool(walked)
    assert differing > 100
