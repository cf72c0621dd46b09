"""Page one in plain words (issue 29 item 1) and the pull-request comment (item 3), on the bundled example."""

from __future__ import annotations

import re

import pytest

from conftest import build_report, run_cli
from reading import parse, pdf_text, words
from releasegate.model import Decision
from releasegate.render import render
from releasegate.render.comment import MAX_CASES, render_comment
from releasegate.wording import plain

# What page one's opening may not hold: a test's name, a p-value, a level, a policy key or a rule's name.
FORBIDDEN = re.compile(r"McNemar|Wilcoxon|t-test|Holm|Bonferroni|\bp =|\bp <|alpha|critical_alpha|"
                       r"critical_broken|overall_regression|category_regression|not_non_inferior|guardrail|"
                       r"max_[a-z_]+|latency_p95_ratio|discrete-holm|one-sided|two-sided", re.IGNORECASE)


@pytest.fixture(scope="module")
def report():
    from releasegate.demo import example_files

    e = example_files()
    return build_report(e["eval_results.csv"], e["eval_cases.csv"], e["releasegate.toml"])


def _opening_ok(text: str, report) -> None:
    opening = words(text)[:700]
    for v in report.verdicts:
        assert f"{v.candidate}: {v.label}" in opening, (v.candidate, opening)
    assert not FORBIDDEN.search(opening), FORBIDDEN.search(opening).group(0)


def test_the_paragraphs_say_what_changed_why_what_it_costs_and_what_next(report):
    paragraphs = plain.paragraphs(report)
    r2, r3 = paragraphs["r2-new-prompt"], paragraphs["r3-small-model"]
    assert r2.startswith("Against r1-live on 400 cases: 12 fixed, 6 broken.")
    assert "Worse: Fraud (critical) -6." in r2 and "Better: Transfers +3" in r2
    assert "It may not ship: it broke 6 cases in Fraud, a critical category" in r2
    assert "42% more per answer" in r2 and "Next: fix EV264, EV265, EV274" in r2
    assert "1 fixed, 14 broken" in r3 and "54% less per answer" in r3 and "worse overall" in r3
    # r3 is blocked overall; its critical categories' cases are named first, and the sentence says they are 5 of
    # the 14 it broke (a bare "and 2 more" read as if the five were all).
    assert ("Next: fix the 5 cases it broke in critical categories (EV284, EV290, EV316 and 2 more) and read the "
            "other 9, then compare again.") in r3
    for text in paragraphs.values():
        assert not FORBIDDEN.search(text), FORBIDDEN.search(text).group(0)
        assert len(text) < 520


def test_ship_and_not_proven_are_read_by_the_decisions_value(report):
    section = report.sections[0]
    cand = section.analysis.candidates[0]
    checks = section.verdicts[0].checks
    unblocked = tuple(type(c)(c.rule, False, c.figures, c.applies, c.critical_rule) for c in checks)
    ship = plain.paragraph([plain.PlainInput(cand, unblocked, Decision.SHIP.value, True, 0.05, True)], "r1-live")
    assert "It may ship" in ship and "Next: ship it, and read the 6 cases it broke" in ship
    proven = plain.paragraph([plain.PlainInput(cand, unblocked, "not_proven", True, 0.05, True)], "r1-live")
    assert "Not proven either way" in proven and "Next: " in proven
    assert not FORBIDDEN.search(ship + proven)


def test_the_html_and_pdf_open_in_plain_words(report):
    html = render(report, ".html").decode("utf-8")
    body = html[html.index("<body"):]  # the <title> is not on the page
    _opening_ok(" ".join(parse(body).text), report)
    _opening_ok(pdf_text(render(report, ".pdf"), last=1), report)


def test_the_markdown_opens_in_plain_words(report):
    md = render(report, ".md").decode("utf-8")
    body = md.split("\n", 1)[1]
    _opening_ok(re.sub(r"[*#]", "", body), report)


def test_the_category_table_shows_the_p_the_rule_reads(report):
    md = render(report, ".md").decode("utf-8")
    assert "p (two-sided) | adj. p (one-sided)" not in md
    assert "| p, one-sided, adjusted |" in md


def test_the_comment_is_short_and_names_the_worst_cases(report):
    text = render_comment(report, "https://example.invalid/run/1")
    assert text.startswith("<!-- releasegate -->\n") and len(text) < 8000
    assert "r2-new-prompt" in text and "r3-small-model" in text and "EV264" in text
    assert text.count("**(critical)**") == 2 * MAX_CASES  # five per candidate, critical first
    assert "5 of 14" in text and "https://example.invalid/run/1" in text
    assert not FORBIDDEN.search(text)


def test_report_writes_the_comment(tmp_path, example):
    out = tmp_path / "comment.md"
    done = run_cli("report", example["eval_results.csv"], "--cases", example["eval_cases.csv"],
                   "--policy", example["releasegate.toml"], "--comment", out)
    assert done.exit_code == 0, done.output
    text = out.read_text(encoding="utf-8")
    assert len(text) < 8000 and "EV264" in text


def test_the_txt_output_is_each_verdict_in_plain_words_a_line_per_candidate(report):
    from releasegate.render.summary import render_plain_text

    lines = render_plain_text(report).splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("DON'T SHIP r2-new-prompt: Against r1-live on 400 cases: 12 fixed, 6 broken.")
    assert lines[1].startswith("DON'T SHIP r3-small-model: Against r1-live on 400 cases: 1 fixed, 14 broken.")
    assert render(report, ".txt").decode("utf-8") == render_plain_text(report)


def test_the_job_summary_opens_with_the_plain_paragraphs_and_folds_the_statistics(report):
    from releasegate.render.summary import render_summary

    text = render_summary(report)
    body = [line for line in text.splitlines() if line.strip() and not line.startswith("#")]
    assert body[0].startswith("Against r1-live on 400 cases: 12 fixed, 6 broken.")
    folded = text[text.index("<details><summary>"):]
    assert "McNemar" not in text[:text.index("<details><summary>")] and "`critical_broken`" in folded
    assert folded.rstrip().endswith("</details>")


def _scores(path, fraud_moves, other_moves):
    """A score file: Fraud's cases moved by ``fraud_moves``, Other's by ``other_moves`` (cycled), 0-1 scores."""
    rows = ["case_id,release,category,score"]
    for i in range(60):
        fraud = i < 20
        base = 0.3 + 0.01 * i
        move = (fraud_moves if fraud else other_moves)[i % len(fraud_moves if fraud else other_moves)]
        rows += [f"c{i:02d},base,{'Fraud' if fraud else 'Other'},{base:.3f}",
                 f"c{i:02d},cand,{'Fraud' if fraud else 'Other'},{base + move:.3f}"]
    rows += ["z0,base,Other,0", "z0,cand,Other,0", "z1,base,Other,1", "z1,cand,Other,1"]  # the range 0-1
    path.write_text("\n".join(rows) + "\n")
    return path


def test_the_next_step_names_the_blocking_category_cases_and_never_another_categorys(tmp_path):
    """Scores, min_change 0.01 (1% of the 0-1 range). Every Fraud case 0.004 lower: Fraud regresses as a whole
    while no case of it moved enough to be listed; the critical rule counts no worsened case, as the table does,
    and the next step does not send the reader to Other's worsened cases."""
    report = build_report(_scores(tmp_path / "drift.csv", [-0.004], [0.0, 0.02, -0.02]), baseline="base",
                          critical=("Fraud",))
    (verdict,) = report.verdicts
    fired = {c.rule for c in verdict.checks if c.fired}
    assert verdict.decision == Decision.DONT_SHIP and fired == {"category_regression"}
    critical = next(c for c in verdict.checks if c.rule == "critical_broken")
    fraud = next(c for c in report.sections[0].analysis.candidates[0].categories if c.label == "Fraud")
    assert fraud.broke == 0 and all(f.worse in (None, 0) for f in critical.figures)
    text = plain.paragraphs(report)["cand"]
    assert "Next: find what lowered Fraud, where no case moved enough to be listed, then compare again." in text
    # Page one of the HTML, PDF and Markdown reads the section's paragraphs: the same words (they once took the
    # scores for pass/fail there, and named Other's cases).
    assert plain.section_paragraphs(report.sections[0])["cand"] == text
    assert "Next: find what lowered Fraud" in render(report, ".md").decode("utf-8")
    # A category that blocks (Fraud, not critical here) names its own worsened cases first, before Other's larger
    # but balanced moves (the listing's order is the largest change first).
    report = build_report(_scores(tmp_path / "fraud.csv", [-0.2, -0.2, -0.2, 0.0], [0.0] * 6 + [-0.5, 0.5]),
                          baseline="base")
    (verdict,) = report.verdicts
    assert "category_regression" in {c.rule for c in verdict.checks if c.fired}
    broken = report.sections[0].analysis.candidates[0].broken_cases
    assert broken[0].category == "Other"  # the largest drop is Other's
    text = plain.paragraphs(report)["cand"]
    assert ("Next: fix the 15 cases it lowered in Fraud (c00, c01, c02 and 12 more) and read the other 5, then "
            "compare again.") in text, text


def test_the_markdown_note_prints_a_long_paragraph_whole(tmp_path):
    """A NOT PROVEN paragraph past 700 characters (a critical category of one case, a suite too small for its
    margin) is printed whole in the Markdown note, as the HTML note and the PR comment print it: cut, it ended
    mid-word and lost its last sentence, what to do next."""
    from releasegate.render.markdown import render_markdown

    rows = ["release,case_id,passed,category"]
    for release, failing in (("base", range(15, 20)), ("r2", (0, 17, 18, 19, 20))):
        rows += [f"{release},C{i:03d},{int(i not in failing)},{'Tiny' if i == 20 else 'A'}" for i in range(21)]
    path = tmp_path / "results.csv"
    path.write_text("\n".join(rows) + "\n")
    report = build_report(path, baseline="base", critical=["Tiny"])
    paragraph = plain.paragraphs(report)["r2"]
    assert len(paragraph) > 700 and paragraph.rstrip().endswith(".")
    assert f"**r2: {report.verdicts[0].label}.** {paragraph}\n" in render_markdown(report)
