"""model.CaseListing: a listing held as columns reads as the tuple of its cases, whichever way it is read."""

from __future__ import annotations

import pytest

from releasegate.model import CaseChange, CaseListing, case_ids


def _listing() -> tuple[CaseListing, tuple[CaseChange, ...]]:
    ids, categories, critical = ["a", "b", "c"], ["Fraud", "Other", "Fraud"], [True, False, True]
    listing = CaseListing(ids, categories, None, [1.0, 1.0, 0.5], [0.0, 0.0, 0.25], critical,
                          (("output", ["x", "y", "z"]), ("note", ["n1", "", "n3"])), (("output", ["X", "Y", "Z"]),))
    cases = tuple(CaseChange(i, cat, None, b, c, crit, (("output", o), ("note", n)), (("output", o.upper()),))
                  for i, cat, b, c, crit, o, n in zip(ids, categories, [1.0, 1.0, 0.5], [0.0, 0.0, 0.25], critical,
                                                      "xyz", ["n1", "", "n3"]))
    return listing, cases


def test_reads_as_its_cases() -> None:
    listing, cases = _listing()
    assert len(listing) == 3 and tuple(listing) == cases and listing == cases and cases == tuple(listing)
    assert listing[0] == cases[0] and listing[-1] == cases[-1]
    assert tuple(listing[1:]) == cases[1:] and listing[:0] == ()
    with pytest.raises(IndexError):
        listing[3]
    assert listing != cases[:2]


def test_ids_are_read_from_the_columns() -> None:
    listing, cases = _listing()
    for given in (listing, cases):
        assert case_ids(given) == ["a", "b", "c"]
        assert case_ids(given, critical_only=True) == ["a", "c"]
        assert case_ids(given, critical_only=True, category="Other") == []
        assert case_ids(given, category="Fraud") == ["a", "c"]


def test_an_empty_listing() -> None:
    empty = CaseListing([], None, None, [], [], [])
    assert len(empty) == 0 and empty == () and list(empty) == [] and not empty
