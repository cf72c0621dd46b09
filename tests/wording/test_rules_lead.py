"""The rules table's lead says what a rule that fires gives, from the RULES table: it used to say "Any rule that
fires means DON'T SHIP" beside a not_non_inferior that gives NOT PROVEN."""

from __future__ import annotations

from pathlib import Path

import pytest

from releasegate.decide.rules import RULES
from releasegate.model import Decision, Figure
from releasegate.wording.checks import rules_lead, unmeasured_reason

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "bank-assistant"


def test_the_lead_names_every_rule_that_gives_not_proven():
    names = [r.name for r in RULES if r.fires == Decision.NOT_PROVEN]
    assert names == ["not_non_inferior", "critical_doubt", "judge_unreliable"]
    lead = rules_lead(names)
    assert ("A rule that fires gives DON'T SHIP, except not_non_inferior, critical_doubt and judge_unreliable, which "
            "give NOT PROVEN") in lead
    assert "except not_non_inferior and judge_unreliable, which give NOT PROVEN" in rules_lead(
        ["not_non_inferior", "judge_unreliable"])
    assert rules_lead([]).startswith("Every rule of the policy") and "except" not in rules_lead([])


def test_the_examples_print_it_in_html_and_markdown():
    html = (EXAMPLE / "report.html").read_text(encoding="utf-8")
    md = (EXAMPLE / "report.md").read_text(encoding="utf-8")
    assert "Any rule that fires means DON" not in html
    assert "which give NOT PROVEN" in html and "which give NOT PROVEN" in md


@pytest.mark.parametrize(("subject", "code", "said"), [
    ("max_tokens_ratio", "no_pairs", "no paired case has a valid token count on both sides (20 excluded)"),
    ("max_tokens_ratio", "too_few", "fewer than two paired cases have a valid token count (1 used, 19 excluded)"),
    ("max_latency_p95_ratio", "no_pairs", "no paired case has a valid latency on both sides (20 excluded)"),
    ("max_cost_ratio", "too_few", "fewer than two paired cases have a valid cost (1 used, 19 excluded)"),
])
def test_an_unmeasured_guardrail_names_one_cases_figure_in_words(subject, code, said):
    cases, excluded = (None, 20) if code == "no_pairs" else (1, 19)
    figure = Figure("guardrail", subject, limit=1.1, cases=cases, excluded=excluded, fired=True, unmeasured=code)
    assert unmeasured_reason(figure) == said
