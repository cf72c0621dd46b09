"""A p-value printed beside the alpha it was compared with prints apart from it: "p = 0.050; alpha 0.05" read the
same whether the rule fired (p = 0.0499) or not (p = 0.0503)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from conftest import build_report
from releasegate import fmt
from releasegate.wording import checks


@given(st.floats(0.0, 1.0), st.sampled_from([0.05, 0.01, 0.1, 0.049, 0.0494, 0.2]))
def test_a_p_prints_on_the_side_of_alpha_it_is_on(p, alpha):
    text = fmt.pvalue_beside(p, alpha)
    if text.startswith("<"):
        assert p < 0.001 and alpha > p
        return
    if text.startswith(">"):
        assert p > 0.999
        return
    shown = float(text)
    if p < alpha:
        assert shown < alpha, (p, alpha, text)
    elif p > alpha:
        assert shown > alpha, (p, alpha, text)
    assert len(text.split(".")[1]) == 3 or round(p, 3) == round(alpha, 3)


def _results(tmp_path, fixed: int, broke: int, both_pass: int) -> str:
    rows = ["release,case_id,passed"]
    for i in range(fixed):
        rows += [f"r1,f{i},0", f"r2,f{i},1"]
    for i in range(broke):
        rows += [f"r1,b{i},1", f"r2,b{i},0"]
    for i in range(both_pass):
        rows += [f"r1,p{i},1", f"r2,p{i},1"]
    path = tmp_path / "results.csv"
    path.write_text("\n".join(rows) + "\n")
    return str(path)


def _overall(report):
    verdict = report.verdicts[0]
    check = next(c for c in verdict.checks if c.rule == "overall_regression")
    text = checks.overall(check, report.sections[0].analysis.parameters, True)
    return check, text, verdict.headline


def test_the_overall_rule_prints_its_p_apart_from_alpha(tmp_path):
    """44 broke against 29 fixed: one-sided exact p = 0.05032, printed "p = 0.050 (adjusted 0.050); alpha 0.05"
    beside "ok"; 101 against 78: p = 0.04992, printed the same beside "fired"."""
    check, text, _ = _overall(build_report(_results(tmp_path, 29, 44, 400), baseline="r1"))
    assert not check.fired
    assert "p = 0.0503 (adjusted 0.0503, discrete-holm); alpha 0.05" in text, text
    check, text, headline = _overall(build_report(_results(tmp_path, 78, 101, 400), baseline="r1"))
    assert check.fired
    assert "p = 0.0499 (adjusted 0.0499, discrete-holm); alpha 0.05" in text, text
    assert "0.050 " not in headline and "0.050)" not in headline, headline


def test_a_p_away_from_alpha_keeps_three_digits(tmp_path):
    _, text, _ = _overall(build_report(_results(tmp_path, 10, 20, 50), baseline="r1"))
    assert "p = 0.049 (adjusted 0.049, discrete-holm); alpha 0.05" in text, text
