"""The one clause that names what a comparison set apart (wording/exclusions.py): every reason has its phrase,
the cases left out are counted against the baseline's, and nothing is said when nothing was set apart."""

from __future__ import annotations

from conftest import run_cli
from releasegate.kinds import EXCLUSION_REASONS, INPUT_EXCLUSION_KINDS
from releasegate.model import Excluded, Exclusions, InputExclusion
from releasegate.wording.exclusions import PHRASES, clause, input_line


def test_every_reason_has_one_phrase():
    assert set(PHRASES) == set(EXCLUSION_REASONS)


def test_one_reason_is_named_without_its_count():
    x = Exclusions(300, (Excluded("only_baseline", 60, ("c1",)),))
    assert clause(x, "r2") == "60 of 300 cases left out: missing on r2"
    assert x.compared == 240


def test_several_reasons_are_counted_and_the_candidates_own_cases_said_apart():
    x = Exclusions(300, (Excluded("only_baseline", 60, ()), Excluded("only_candidate", 1, ()),
                         Excluded("content_changed", 2, ()), Excluded("errored", 8, ()),
                         Excluded("runs_incomplete", 12, ())))
    assert clause(x, "r2") == ("70 of 300 cases left out: 60 missing on r2, 2 content changed, 8 errored; "
                               "1 case only on r2, not compared; 12 cases with missing runs counted as failures")
    assert (x.left_out, x.compared, x.count, x.unpaired) == (70, 230, 83, 61)


def test_nothing_set_apart_says_nothing():
    assert clause(Exclusions(300), "r2") == ""


def test_the_errored_line_groups_thousands_as_the_headline_beside_it_does(tmp_path):
    """"1 of 3,000 cases left out: errored" in the headline and "1 of 3000 cases errored ...; 2999 compared" on
    the line under it: one count written two ways."""
    rows = ["release,case_id,passed,error"]
    rows += [f"{r},c{i},{'' if (r, i) == ('r2', 7) else 1},{'timeout' if (r, i) == ('r2', 7) else ''}"
             for r in ("r1", "r2") for i in range(3000)]
    path = tmp_path / "results.csv"
    path.write_text("\n".join(rows) + "\n")
    result = run_cli("check", path, "--baseline", "r1")
    assert "1 of 3,000 cases left out: errored" in result.output, result.output
    assert "1 of 3,000 cases errored and left the comparison" in result.output, result.output
    assert "2,999 compared" in result.output and "3000" not in result.output, result.output


def test_every_kind_the_reading_of_the_inputs_leaves_out_has_its_line_with_its_count():
    lines = {kind: input_line(InputExclusion(kind, 5, "runs/store", ("a", "b", "c")))
             for kind in INPUT_EXCLUSION_KINDS}
    assert lines == {
        "tables_not_read": "runs/store: 5 tables not read (a, b, c and 2 more): the folder is read for its harness "
                           "files only",
        "holes_dropped": "5 cases dropped from the run store runs/store (--drop-holes; a, b, c and 2 more): a cell of "
                         "each is missing, stale or unscored",
        "rows_dropped": "5 rows without an outcome dropped in a, b, c (--missing drop)",
        "rows_failed": "5 rows without an outcome in a, b, c counted as failures (--missing fail)",
        "errors_failed": "5 errored rows in a, b, c counted as failures (--missing fail)"}
    one = InputExclusion("rows_failed", 1, examples=("r2",))
    assert input_line(one, "accuracy") == ("accuracy: 1 row without an outcome in r2 counted as a failure "
                                           "(--missing fail)")
