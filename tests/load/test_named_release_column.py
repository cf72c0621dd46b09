"""A release named for a whole table (``NAME=path``, or a mapping of NAME to a DataFrame) over the table's own
release column: one release there is renamed and a note says so; several are refused, since naming them all NAME
would pool two releases' rows into one release."""

from __future__ import annotations

import pandas as pd
import pytest

from releasegate.errors import InputError
from releasegate.load import load_frame


def _frame(releases: list[str]) -> pd.DataFrame:
    return pd.DataFrame({"case_id": [f"c{i}" for i in range(len(releases))], "release": releases,
                         "passed": [1] * len(releases)})


def test_a_frame_of_two_releases_named_as_one_is_refused():
    frames = {"r1": _frame(["r1", "r1"]), "r2": _frame(["r1", "r2"])}
    with pytest.raises(InputError, match=r"r2=<DataFrame r2>: the file's release column holds 2 releases"):
        load_frame(frames)


def test_a_frame_of_another_release_is_renamed_and_said():
    loaded = load_frame({"r1": _frame(["r1", "r1"]), "r2": _frame(["rX", "rX"])})
    assert set(loaded.table["release"]) == {"r1", "r2"}
    assert loaded.notes == ("<DataFrame r2>: release 'rX' of its release column read as 'r2' (NAME=path).",)
