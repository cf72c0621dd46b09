"""The same row (release, case_id[, run]) in two files is refused naming both files and the first such row, in the
first file's order; files that share a release on other cases, or other runs, are read together as before."""

from __future__ import annotations

import pytest

from releasegate.errors import BadValueError
from releasegate.load.results import load_results
from releasegate.load.sources import Source


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return Source(path)


def test_a_release_split_over_two_files_on_other_cases_or_runs_is_read(tmp_path):
    a = _write(tmp_path, "a.csv", "release,case_id,run,passed\nr1,c1,0,1\nr1,c2,0,0\nr2,c1,0,1\n")
    b = _write(tmp_path, "b.csv", "release,case_id,run,passed\nr2,c2,0,1\nr2,c1,1,0\nr1,c1,1,1\n")
    loaded = load_results([a, b])
    assert len(loaded.table) == 6


def test_the_first_row_in_two_files_is_named_with_both_files(tmp_path):
    a = _write(tmp_path, "a.csv", "release,case_id,passed\nr1,c1,1\nr2,c9,1\nr2,c3,0\nr2,c2,1\n")
    b = _write(tmp_path, "b.csv", "release,case_id,passed\nr2,c2,0\nr2,c3,1\nr2,c7,1\n")
    with pytest.raises(BadValueError) as err:
        load_results([a, b])
    message = str(err.value)
    assert message.startswith(f"{a.path} and {b.path} both hold the row of release 'r2', case_id 'c3' (2 such rows)")
    # One file given as another release (NAME=path) shares no release: read.
    loaded = load_results([a, Source(b.path, release="r2-rerun")])
    assert set(loaded.table["release"].astype(str)) == {"r1", "r2", "r2-rerun"}
