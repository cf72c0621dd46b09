"""The kinds of error (releasegate.errors): each refusal is raised as its kind, the kinds' codes are the ones
docs/input-errors.md documents, and a notebook user catches a kind without reading the message."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import releasegate
from releasegate import errors

DOC = Path(__file__).resolve().parents[2] / "docs" / "input-errors.md"


def _frame(rows):
    return pd.DataFrame(rows, columns=["release", "case_id", "passed"])


def test_every_kind_is_an_input_error_with_its_own_documented_code():
    text = DOC.read_text(encoding="utf-8")
    codes = [cls.code for cls in errors.KINDS.values()]
    assert len(codes) == len(set(codes))
    for code, cls in errors.KINDS.items():
        assert issubclass(cls, errors.InputError)
        assert f"| `{code}` | `{cls.__name__}`" in text, code
    assert issubclass(errors.IncompleteRunsError, errors.PairingError)


def test_case_sets_that_differ_are_a_pairing_error():
    rows = [("r1", "c1", 1), ("r1", "c2", 0), ("r2", "c1", 1)]
    with pytest.raises(errors.PairingError):
        releasegate.compare(_frame(rows), baseline="r1")


def test_an_outcome_that_is_no_pass_or_fail_is_a_value_error():
    rows = [("r1", "c1", "maybe"), ("r2", "c1", 1)]
    with pytest.raises(errors.BadValueError):
        releasegate.compare(_frame(rows), baseline="r1")


def test_a_bad_policy_value_is_a_policy_error():
    rows = [("r1", "c1", 1), ("r2", "c1", 1)]
    with pytest.raises(errors.PolicyError):
        releasegate.compare(_frame(rows), baseline="r1", alpha=0.7)


def test_a_missing_file_is_a_file_error(tmp_path):
    with pytest.raises(errors.FileError):
        releasegate.compare(str(tmp_path / "nothere.csv"), baseline="r1")


def test_a_run_config_error_is_its_own_kind(tmp_path):
    from releasegate.run.config import load_config

    config = tmp_path / "run.toml"
    config.write_text("[run]\nruns = 0\n", encoding="utf-8")
    with pytest.raises(errors.RunConfigError):
        load_config(config)
