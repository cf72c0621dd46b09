"""The table of rules (SPEC section 5), in order: the first that fires is the headline.

A rule is one module with a ``check(candidate, analysis, policy) -> RuleCheck`` function, which returns the
figures it compared (:class:`releasegate.model.Figure`), and one row here: its name (the JSON's ``rule``), its
title (the reports' rules table), the function, the function of :mod:`releasegate.wording.checks` that writes its
sentence from those figures, the policy fields it reads (docs/policy.md lists them), and the verdict it gives
when it fires (``fires``: DON'T SHIP for a rule that shows the candidate worse or cannot measure it; NOT PROVEN
for the one that finds the data too thin to show it no worse, issue 34). decide, plan, the renderers and the
docs read this table and nothing else.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from releasegate.decide.rules import category, critical, critical_doubt, guardrail, judge, non_inferiority, overall
from releasegate.model import Analysis, CandidateAnalysis, Decision, Parameters, RuleCheck
from releasegate.policy import Policy
from releasegate.wording import checks as words


@dataclass(frozen=True)
class Rule:
    name: str
    title: str
    check: Callable[[CandidateAnalysis, Analysis, Policy], RuleCheck]
    words: Callable[[RuleCheck, Parameters, bool], str]
    reads: tuple[str, ...]
    fires: Decision = Decision.DONT_SHIP


RULES: tuple[Rule, ...] = (
    Rule("critical_broken", "A critical category fails its own test", critical.check, words.critical,
         ("critical", "critical_rule", "critical_weight", "metrics")),
    Rule("overall_regression", "Significant overall regression", overall.check, words.overall,
         ("alpha", "correction", "mcnemar", "judge_correction")),
    Rule("category_regression", "Significant regression in a category", category.check, words.category,
         ("alpha", "correction", "mcnemar")),
    Rule("guardrail", "Cost or latency guardrail exceeded", guardrail.check, words.guardrail,
         ("guardrails", "prices")),
    Rule("not_non_inferior", "Cannot show it is no worse than the margin", non_inferiority.check,
         words.non_inferiority, ("margin", "alpha", "judge_correction"), Decision.NOT_PROVEN),
    Rule("critical_doubt", "A critical category lost more than the margin, short of blocking", critical_doubt.check, words.critical_doubt,
         ("critical", "critical_rule", "critical_doubt", "margin"), Decision.NOT_PROVEN),
    Rule("judge_unreliable", "The judge is not shown reliable on both releases", judge.check, words.judge,
         ("gold", "judge_min_youden", "judge_rate_tolerance", "judge_correction"), Decision.NOT_PROVEN),
)
RULE_NAMES = tuple(rule.name for rule in RULES)
_BY_NAME = {rule.name: rule for rule in RULES}


def decision_of(fired: Iterable[str]) -> Decision:
    """The verdict from the names of the rules that fired: DON'T SHIP when any rule that shows the candidate
    worse fired, NOT PROVEN when only rules that cannot settle it did (the non-inferiority rule, the judge
    gate), SHIP when none (an unknown name counts as
    DON'T SHIP: fail closed)."""
    return Decision.worst(_BY_NAME[name].fires if name in _BY_NAME else Decision.DONT_SHIP for name in fired)


def detail(check: RuleCheck, analysis: Analysis) -> str:
    """The check's sentence, written from its figures (the analysis gives the parameters and the path: a
    difference in points of pass rate, or in score units)."""
    return _BY_NAME[check.rule].words(check, analysis.parameters, analysis.mcnemar_path)
