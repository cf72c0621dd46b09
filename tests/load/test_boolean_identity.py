"""A boolean identity value reads as the text the file holds, ``true``/``false``, whatever the reader: a JSON
``"category": true``, a Parquet boolean column, a DataFrame's bool column and a harness's boolean metadata field
give the category CSV gives ("true"), never Python's "True". Otherwise the same results exported two ways would be
compared in different categories, or not paired at all."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from conftest import run_cli
from releasegate.load import Source, load_results
from releasegate.load.frame import load_frame
from releasegate.load.identity import as_text
from releasegate.load.tidy import read_tidy

CASES = 40
HARNESS = Path(__file__).parents[1] / "fixtures" / "harness"


def _rows() -> list[dict]:
    rows = []
    for release in ("r1", "r2"):
        for k in range(CASES):
            # r2 breaks five of the "true" cases and fixes one (c04).
            passed = (k % 4 != 0) if release == "r1" else (k % 4 != 0 and k not in (2, 6, 10, 14, 18)) or k == 4
            rows.append({"release": release, "case_id": f"c{k:02d}", "passed": int(passed),
                         "category": k % 2 == 0, "cluster": k % 3 == 0})
    return rows


def _write(tmp_path, suffix: str, rows: list[dict]):
    path = tmp_path / f"results{suffix}"
    if suffix == ".csv":
        lines = ["release,case_id,passed,category,cluster"]
        lines += [f"{r['release']},{r['case_id']},{r['passed']},{json.dumps(r['category'])},{json.dumps(r['cluster'])}"
                  for r in rows]
        path.write_text("\n".join(lines) + "\n")
    elif suffix == ".jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    elif suffix == ".json":
        path.write_text(json.dumps(rows))
    else:
        pd.DataFrame(rows).to_parquet(path)
    return path


SUFFIXES = (".csv", ".jsonl", ".json", ".parquet")


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_every_reader_spells_a_boolean_identity_as_the_csv_does(tmp_path, suffix):
    frame = read_tidy(_write(tmp_path, suffix, _rows()))
    expected = ["true" if r["category"] else "false" for r in _rows()]
    assert frame["category"].astype(str).tolist() == expected
    assert set(frame["cluster"].astype(str)) == {"true", "false"}


def test_a_notebook_frame_of_bools_is_spelled_the_same():
    table = load_frame(pd.DataFrame(_rows())).table
    assert set(table["category"].astype(str)) == {"true", "false"}


def _figures(note: dict) -> list[tuple]:
    candidate = note["candidates"][0]
    return [(c["category"], c["broke"], c["fixed"], c["n"]) for c in candidate["categories"]] + \
        [(candidate["verdict"], candidate["overall"]["broke"], candidate["overall"]["fixed"])]


def test_the_same_table_in_every_format_gives_the_same_note(tmp_path):
    notes = {}
    for suffix in SUFFIXES:
        out = tmp_path / f"note{suffix}.json"
        result = run_cli("report", _write(tmp_path, suffix, _rows()), "--baseline", "r1", "--no-policy",
                         "-o", out)
        assert result.exit_code == 0, result.output
        notes[suffix] = _figures(json.loads(out.read_text()))
    assert {c for c, *_ in notes[".csv"][:-1]} == {"true", "false"}
    for suffix in SUFFIXES[1:]:
        assert notes[suffix] == notes[".csv"], suffix


def test_a_baseline_in_csv_and_a_candidate_in_json_lines_are_one_table(tmp_path):
    rows = _rows()
    baseline = _write(tmp_path, ".csv", [r for r in rows if r["release"] == "r1"])
    candidate = _write(tmp_path, ".jsonl", [r for r in rows if r["release"] == "r2"])
    out = tmp_path / "note.json"
    result = run_cli("report", baseline, candidate, "--baseline", "r1", "--no-policy", "-o", out)
    assert result.exit_code == 0, result.output
    categories = {c["category"]: c for c in json.loads(out.read_text())["candidates"][0]["categories"]}
    assert set(categories) == {"true", "false"}
    assert categories["true"]["broke"] == 5 and categories["true"]["fixed"] == 1


def test_a_harness_boolean_metadata_field_named_the_category_reads_true(tmp_path):
    source = HARNESS / "promptfoo-0.123.1" / "grid.jsonl"
    path = tmp_path / "grid.jsonl"
    path.write_text(source.read_text().replace('"category":"fruit"', '"category":true')
                    .replace('"category":"place"', '"category":false'))
    loaded = load_results([Source(path)])
    assert set(loaded.table["category"].dropna().astype(str)) == {"true", "false"}


@pytest.mark.parametrize("values, expected", [
    (pd.Series([True, False]), ["true", "false"]),
    (pd.Series([True, None], dtype="boolean"), ["true", None]),
    (pd.Series([True, "a", 1, None], dtype=object), ["true", "a", "1", None]),
    (pd.Series([np.False_, "x"], dtype=object), ["false", "x"]),
    (pd.Series(pd.Categorical([True, False, True])), ["true", "false", "true"]),
    (pd.Series([1, 0]), ["1", "0"]),  # numbers stay numbers' text: 1 is never "true"
])
def test_as_text_spells_booleans_as_json_and_nothing_else(values, expected):
    out = as_text(values)
    assert [None if pd.isna(v) else v for v in out] == expected


def test_an_inspect_boolean_metadata_field_named_the_category_reads_true(tmp_path):
    from releasegate.load.adapters.inspect_ai import read_inspect

    log = json.loads((Path(__file__).parents[1] / "fixtures" / "inspect" /
                      "2025-05-12T20-28-26-04-00_security-guide.json").read_text())
    for k, sample in enumerate(log["samples"]):
        sample["metadata"]["hard"] = k % 2 == 0
    path = tmp_path / "log.json"
    path.write_text(json.dumps(log))
    frame = read_inspect(path, category_field="hard")
    assert set(frame["category"]) == {"true", "false"}
