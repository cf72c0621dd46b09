"""An Inspect samples_df export saved without its sample_id and eval_id columns is refused when read as a tidy
table (tests/validate/input_cases_inspect_export.py) and read, as the refusal says, with --format
inspect-samples: the same table as the whole export gives."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

from releasegate.errors import InputError

from releasegate.load.results import AdapterOptions, load_results
from releasegate.load.sources import Source

EXPORT = (Path(__file__).resolve().parents[1] / "fixtures" / "harness" / "third" / "inspect-0.3.285" / "samples-df"
          / "samples.csv")


def _table(path: Path, fmt: str = "auto") -> pd.DataFrame:
    table = load_results([Source(path)], options=AdapterOptions(format=fmt)).table
    keep = ["release", "case_id", "run", "passed", "score"]
    return table[keep].astype({"release": str, "case_id": str}).sort_values(keep[:3]).reset_index(drop=True)


def test_an_export_without_its_ids_reads_as_the_whole_export_with_its_format(tmp_path):
    trimmed = tmp_path / "samples.csv"
    pd.read_csv(EXPORT).drop(columns=["sample_id", "eval_id"]).to_csv(trimmed, index=False)
    whole = _table(EXPORT)
    assert len(whole) == 72 and set(whole["release"]) == {"mockllm/base", "mockllm/cand"}
    pd.testing.assert_frame_equal(_table(trimmed, "inspect-samples"), whole)



@pytest.mark.parametrize("value", ["[1, 2]", "0", "1.5"])
def test_an_epoch_that_is_not_a_whole_number_is_refused_naming_its_row(tmp_path, value):
    export = pd.read_csv(EXPORT)
    export["epoch"] = export["epoch"].astype(object)
    export.loc[3, "epoch"] = value
    export.to_csv(tmp_path / "samples.csv", index=False)
    with pytest.raises(InputError, match=re.escape(f"samples.csv: row 5: epoch '{value}' is not a whole number from 1")):
        _table(tmp_path / "samples.csv")


def test_an_error_column_of_lists_is_read_as_errors_in_text(tmp_path):
    export = pd.read_parquet(EXPORT.with_suffix(".parquet"))
    export["error"] = [["timeout", "retry"]] * len(export)
    export.to_parquet(tmp_path / "samples.parquet")
    table = load_results([Source(tmp_path / "samples.parquet")]).table
    assert set(table["error"]) == {"['timeout', 'retry']"} and table["passed"].isna().all()


def test_a_log_column_of_lists_is_read_as_text(tmp_path):
    export = pd.read_parquet(EXPORT.with_suffix(".parquet"))
    export["log"] = [["a.eval", "b.eval"]] * len(export)
    export.to_parquet(tmp_path / "samples.parquet")
    pd.testing.assert_frame_equal(_table(tmp_path / "samples.parquet"), _table(EXPORT))


def test_a_boolean_epoch_is_refused_as_the_logs_check_refuses_it(tmp_path):
    """JSON lines keep a boolean a boolean; True is an int to Python but never an epoch (inspect_ai._epoch
    refuses it in a log)."""
    from conftest import run_cli

    export = pd.read_csv(EXPORT)
    export["epoch"] = export["epoch"].astype(object)
    export.loc[3, "epoch"] = True
    export.to_json(tmp_path / "samples.jsonl", orient="records", lines=True)
    result = run_cli("check", tmp_path / "samples.jsonl", "--format", "inspect-samples", "--baseline", "mockllm/base")
    assert result.exit_code == 2
    assert "samples.jsonl: row 5: epoch 'True' is not a whole number from 1" in result.output
