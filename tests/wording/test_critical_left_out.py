"""A critical category whose every case the comparison set apart (missing on the candidate, errored there) is
said to have no case compared, never "no case in the data": its cases are in the data, and the headline's own
clause counts them as left out."""

from __future__ import annotations

from conftest import run_cli


def _results(tmp_path, candidate_b: str) -> str:
    rows = ["release,case_id,passed,category,error"]
    for i in range(40):
        category = "AB"[i % 2]
        rows.append(f"r1,c{i},1,{category},")
        if category == "A":
            rows.append(f"r2,c{i},1,A,")
        elif candidate_b == "errored":
            rows.append(f"r2,c{i},,B,timeout")
    path = tmp_path / "results.csv"
    path.write_text("\n".join(rows) + "\n")
    return str(path)


def test_a_critical_category_left_out_whole_is_said_to_have_no_case_compared(tmp_path):
    for how, flags in (("missing", ("--allow-missing",)), ("errored", ())):
        result = run_cli("check", _results(tmp_path, how), "--baseline", "r1", "--critical", "B", *flags)
        assert result.exit_code == 1, result.output
        line = result.output.splitlines()[0]
        assert "B has no case compared, so it cannot be checked" in line, line
        assert "no case in the data" not in line and "20 of 40 cases left out" in line, line


def test_the_plain_paragraph_says_the_category_could_not_be_checked_not_that_it_broke_cases(tmp_path):
    """The paragraph in plain words said "it broke 0 cases in B, a critical category, more than chance explains"
    of a category with no case compared: a count of none beside a block said to be more than chance."""
    for how, flags in (("missing", ("--allow-missing",)), ("errored", ())):
        out = tmp_path / f"{how}.txt"
        result = run_cli("report", _results(tmp_path, how), "--baseline", "r1", "--critical", "B", *flags, "-o", out)
        assert result.exit_code == 0, result.output
        text = out.read_text()
        assert "B, a critical category, has no case compared, so it could not be checked" in text, text
        assert "broke 0 cases" not in text, text
