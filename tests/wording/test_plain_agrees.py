"""The paragraph in plain words says what the rules' figures show: no sentence of it disagrees with the check line,
the rules table or the warnings beside it."""

from __future__ import annotations

from conftest import build_report
from releasegate.wording import plain


def _results(tmp_path, fraud_broken: int, a_moves: tuple[int, int] = (5, 1)) -> str:
    """r1 and r2 on 70 A cases and 22 Fraud cases; r2 fixes and breaks ``a_moves`` in A and breaks
    ``fraud_broken`` Fraud cases."""
    rows = ["release,case_id,passed,category"]
    fixed, broke = a_moves
    for i in range(70):
        base = i >= 10  # 60 pass, 10 fail
        cand = (not base and i < fixed) or (base and i >= 10 + broke)
        rows += [f"r1,a{i},{int(base)},A", f"r2,a{i},{int(cand)},A"]
    for i in range(22):
        base = i >= 2  # 20 pass, 2 fail
        cand = base and i >= 2 + fraud_broken
        rows += [f"r1,f{i},{int(base)},Fraud", f"r2,f{i},{int(cand)},Fraud"]
    path = tmp_path / "results.csv"
    path.write_text("\n".join(rows) + "\n")
    return str(path)


def test_zero_tolerance_is_not_said_to_be_more_than_chance(tmp_path):
    """Under critical_rule = "any" one broken Fraud case blocks with no test read; the paragraph said "it broke 1
    case in Fraud, a critical category, more than chance explains" beside a check line and a rules table that give
    no p-value, and of one broken case against none fixed, which chance explains easily."""
    report = build_report(_results(tmp_path, 1), baseline="r1", critical=["Fraud"], critical_rule="any")
    verdict = report.verdicts[0]
    assert verdict.decision.value == "dont_ship"
    text = plain.paragraphs(report)["r2"]
    assert "It may not ship: it broke 1 case in Fraud, a critical category, and the policy allows none there" in text
    assert "chance explains" not in text, text


def test_a_test_that_blocks_is_still_said_to_be_more_than_chance(tmp_path):
    report = build_report(_results(tmp_path, 6, (0, 0)), baseline="r1", critical=["Fraud"])
    text = plain.paragraphs(report)["r2"]
    assert "it broke 6 cases in Fraud, a critical category, more than chance explains" in text, text


def test_a_candidate_shown_no_worse_is_not_told_what_its_suite_cannot_show(tmp_path):
    """Blocked by a critical category while shown non-inferior (the rules table: "non-inferior: the 90% interval's
    lower bound is -2.0 points, margin -5.0 points"), the paragraph said "this suite can show at best that a
    candidate is no more than 7.9 points worse": what the suite had just shown, it said it could not."""
    report = build_report(_results(tmp_path, 1), baseline="r1", critical=["Fraud"], critical_rule="any")
    checks = {c.rule: c for c in report.verdicts[0].checks}
    assert not checks["not_non_inferior"].fired
    text = plain.paragraphs(report)["r2"]
    assert "can show at best" not in text, text


def test_a_candidate_not_shown_no_worse_is_told_what_its_suite_can_show(tmp_path):
    report = build_report(_results(tmp_path, 0, (1, 8)), baseline="r1", alpha=0.1)
    checks = {c.rule: c for c in report.verdicts[0].checks}
    assert checks["not_non_inferior"].fired and report.verdicts[0].decision.value == "dont_ship"
    assert "this suite can show at best that a candidate is no more than" in plain.paragraphs(report)["r2"]


def test_one_category_too_small_is_said_in_the_singular(tmp_path):
    """"1 category is too small to show a regression on their own: each needs ..." spoke of one category as of
    several."""
    report = build_report(_results(tmp_path, 1), baseline="r1")
    warnings = [w for w in report.verdicts[0].warnings if "too small to show" in w]
    assert warnings == ["1 category is too small to show a regression on its own: it needs at least 6 changed "
                        "cases (has: Fraud 1)"], warnings


def test_the_comment_says_a_not_proven_the_policy_allows_passes_the_gate(tmp_path):
    """Under not_proven = "warn" check exits 0 and its line, the note's headline and the job summary say "allowed
    by the policy"; the pull-request comment's title said only "NOT PROVEN", as of a gate that failed."""
    from releasegate.render.comment import render_comment

    path = _results(tmp_path, 0, (1, 2))
    for allowed, title in ((True, "NOT PROVEN (allowed by the policy)"), (False, "NOT PROVEN\n")):
        report = build_report(path, baseline="r1", not_proven="warn" if allowed else "block")
        assert report.verdicts[0].decision.value == "not_proven" and report.passes == allowed
        first = render_comment(report).split("\n\n")[0]
        assert title in first + "\n", first


def test_the_margin_warning_under_gold_labels_is_in_points_as_the_rules_table(tmp_path):
    """With gold labels the overall test is PPI++ (not McNemar), and the warning "the suite is too small for its
    margin" said "no worse than 0.050" beside the rules table's "margin -5.0 points" on the same note."""
    import random

    rnd = random.Random(3)
    rows, gold = ["release,case_id,passed,category"], ["release,case_id,label"]
    for i in range(400):
        base = i % 4 != 0
        cand = (not base and i % 40 == 0) or (base and i % 50 != 1)
        for release, passed in (("r1", base), ("r2", cand)):
            rows.append(f"{release},c{i},{int(passed)},{'AB'[i % 2]}")
            if i % 5 == 0:
                label = int(passed) if rnd.random() < 0.85 else 1 - int(passed)
                gold.append(f"{release},c{i},{label}")
    (tmp_path / "results.csv").write_text("\n".join(rows) + "\n")
    (tmp_path / "gold.csv").write_text("\n".join(gold) + "\n")
    report = build_report(str(tmp_path / "results.csv"), baseline="r1", gold=str(tmp_path / "gold.csv"))
    from releasegate.render import render

    assert "margin -5.0 points" in render(report, ".md").decode("utf-8")
    reach = [w for w in report.verdicts[0].warnings if w.startswith("the suite is too small for its margin")]
    assert reach, report.verdicts[0].warnings
    assert "no worse than 5.0 points" in reach[0] and "0.050" not in reach[0], reach[0]
