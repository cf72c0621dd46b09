"""Input shapes (issue 17, load/shapes.py): the wide layout, nested JSON records with dotted paths, a latency in
seconds; the same results in every shape give the same figures as the tidy file."""

from __future__ import annotations

import csv
import json

import pytest

from conftest import run_cli
from releasegate.api import compare
from releasegate.errors import InputError

RELEASES = ("r1", "r2")


def _cases():
    """40 cases: r2 breaks 4 and fixes 6; latencies in seconds, r2 slower."""
    rows = []
    for i in range(40):
        r1 = 0 if i % 8 == 0 else 1
        r2 = 0 if i in (1, 2, 3, 4) else (1 if i in (0, 8, 16, 24, 32) or i == 5 else r1)
        rows.append({"case_id": f"k{i:02d}", "category": "A" if i < 20 else "B", "r1": r1, "r2": r2,
                     "lat_r1": 0.5 + i / 100, "lat_r2": 0.6 + i / 90})
    return rows


def _write_tidy(path):
    with open(path, "w", newline="") as handle:
        out = csv.writer(handle)
        out.writerow(["release", "case_id", "category", "passed", "latency_ms"])
        for release in RELEASES:
            for c in _cases():
                out.writerow([release, c["case_id"], c["category"], c[release], round(c[f"lat_{release}"] * 1000, 6)])


def _figures(report: dict) -> dict:
    cand = report["candidates"][0]
    return {"overall": cand["overall"], "categories": cand["categories"],
            "broken": [b["case_id"] for b in cand["broken_cases"]], "fixed": [b["case_id"] for b in cand["fixed_cases"]],
            "rates": [r["rate"] for r in report["releases"]]}


@pytest.fixture
def tidy(tmp_path):
    _write_tidy(tmp_path / "tidy.csv")
    result = run_cli("report", "tidy.csv", "--baseline", "r1", "-o", "tidy.json", cwd=tmp_path)
    assert result.exit_code == 0, result.output
    return json.loads((tmp_path / "tidy.json").read_text())


def test_wide_csv_gives_the_tidy_figures(tmp_path, tidy):
    with open(tmp_path / "wide.csv", "w", newline="") as handle:
        out = csv.writer(handle)
        out.writerow(["case_id", "category", "r1", "r2"])
        for c in _cases():
            out.writerow([c["case_id"], c["category"], c["r1"], c["r2"]])
    result = run_cli("report", "wide.csv", "--wide", "--release-cols", "r1,r2", "--baseline", "r1", "-o", "w.json",
                     cwd=tmp_path)
    assert result.exit_code == 0, result.output
    assert _figures(json.loads((tmp_path / "w.json").read_text())) == _figures(tidy)


def test_nested_jsonl_with_dotted_paths_and_seconds_gives_the_tidy_figures(tmp_path, tidy):
    with open(tmp_path / "nested.jsonl", "w") as handle:
        for release in RELEASES:
            for c in _cases():
                record = {"model": release, "id": c["case_id"], "meta": {"category": c["category"]},
                          "scores": {"correct": bool(c[release])}, "timing": {"latency": c[f"lat_{release}"]}}
                handle.write(json.dumps(record) + "\n")
    result = run_cli("report", "nested.jsonl", "--release-col", "model", "--case-col", "id", "--category-col",
                     "meta.category", "--passed-col", "scores.correct", "--latency-col", "timing.latency",
                     "--latency-unit", "s", "--baseline", "r1", "-o", "n.json", cwd=tmp_path)
    assert result.exit_code == 0, result.output
    nested = json.loads((tmp_path / "n.json").read_text())
    assert _figures(nested) == _figures(tidy)
    by_name = {r["name"]: r for r in nested["costs"]["releases"]}
    tidy_costs = {r["name"]: r for r in tidy["costs"]["releases"]}
    for name in RELEASES:
        assert by_name[name]["latency_ms"]["p50"] == pytest.approx(tidy_costs[name]["latency_ms"]["p50"], rel=1e-9)
        assert by_name[name]["latency_ms"]["p50"] > 100  # milliseconds, not "p50 1 ms"


def test_latency_s_column_is_seconds(tmp_path):
    rows = [{"release": r, "case_id": c["case_id"], "passed": c[r], "latency_s": c[f"lat_{r}"]}
            for r in RELEASES for c in _cases()]
    import pandas as pd

    note = compare(pd.DataFrame(rows), baseline="r1")
    costs = {r.name: r for r in note.analysis.sections.costs.releases}
    # r1's latencies are 0.50 s ... 0.89 s: the median, 0.695 s, in milliseconds.
    assert costs["r1"].latency.p50 == pytest.approx(695.0, rel=1e-9)


def test_a_wide_file_read_as_tidy_is_recognised(tmp_path):
    (tmp_path / "wide.csv").write_text("case_id,r1,r2\nc1,1,0\nc2,1,1\n")
    result = run_cli("report", "wide.csv", "--baseline", "r1", "-o", "r.json", cwd=tmp_path)
    assert result.exit_code == 2
    assert "look like one pass/fail column per release: a wide file; read it with --wide --release-cols r1,r2" \
        in result.stderr
    assert not (tmp_path / "r.json").exists()


def test_the_same_file_named_twice_is_refused(tmp_path):
    (tmp_path / "wide.csv").write_text("case_id,r1,r2\nc1,1,0\nc2,1,1\n")
    result = run_cli("check", "r1=wide.csv", "r2=wide.csv", "--passed-col", "r1", "--baseline", "r1", cwd=tmp_path)
    assert result.exit_code == 2, result.output
    (line,) = result.stderr.splitlines()
    assert "are the same file as 'r1' and 'r2'" in line and "--wide --release-cols" in line


def test_wide_errors(tmp_path):
    (tmp_path / "wide.csv").write_text("case_id,r1,r2\nc1,1,0\n")
    for args, message in (
        (("--wide", "--release-cols", "r1"), "at least two release columns"),
        (("--wide", "--release-cols", "r1,r9"), "release column 'r9' (--release-cols) is not in the file"),
        (("--release-cols", "r1,r2"), "add --wide"),
    ):
        result = run_cli("check", "wide.csv", *args, "--baseline", "r1", cwd=tmp_path)
        assert result.exit_code == 2 and message in result.stderr, (args, result.stderr)


def test_a_dotted_path_no_record_has_names_the_fields(tmp_path):
    (tmp_path / "n.jsonl").write_text('{"release": "r1", "case_id": "a", "scores": {"ok": 1}}\n'
                                      '{"release": "r2", "case_id": "a", "scores": {"ok": 0}}\n')
    with pytest.raises(InputError, match=r"no record has 'scores.correct'; the fields under 'scores' are: ok"):
        compare(str(tmp_path / "n.jsonl"), baseline="r1", columns={"passed": "scores.correct"})


def test_wide_scores_become_score(tmp_path):
    (tmp_path / "wide.csv").write_text("case_id,r1,r2\n" + "".join(f"c{i},0.{i},0.{9 - i}\n" for i in range(10)))
    note = compare(str(tmp_path / "wide.csv"), baseline="r1", wide=True, release_cols="r1,r2")
    assert note.analysis.outcome_kind == "continuous"


def test_a_json_object_first_seen_late_in_a_metadata_column_is_kept_as_its_text(tmp_path):
    """Metadata holding a JSON object or list is kept as its JSON text, whichever row first holds one (only the
    first thousand rows were looked at: a later record stayed a dict)."""
    from pathlib import Path

    from releasegate.load import Source, load_results

    path = Path(tmp_path) / "r.jsonl"
    rows = [{"release": r, "case_id": f"c{i}", "passed": (i + len(r)) % 2, "extra": "plain"}
            for r in RELEASES for i in range(1_500)]
    rows[1_200]["extra"] = {"b": [1, 2], "a": "x"}
    rows[1_300]["extra"] = [3, 4]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    table = load_results([Source(path)]).table
    extra = table["extra"].tolist()
    assert all(isinstance(value, str) for value in extra)
    assert json.loads(extra[1_200]) == {"b": [1, 2], "a": "x"} and json.loads(extra[1_300]) == [3, 4]
