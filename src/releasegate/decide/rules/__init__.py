"""The table of rules (SPEC section 5), in order: the first that fires is the headline.

A rule is one module with a ``check(candidate, analysis, policy) -> RuleCheck`` function, which returns the
figures it compared (:class:`releasegate.model.Figure`), and one row here: its name (the JSON's ``rule``), its
title (the reports' rules table), the function, the function of :mod:`releasegate.wording.checks` that writes its
sentence from those figures, and the policy fields it reads (docs/policy.md lists them). decide, the renderers
and the docs read this table and nothing else.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from releasegate.decide.rules import category, critical, guardrail, judge, non_inferiority, overall
from releasegate.model import Analysis, CandidateAnalysis, Parameters, RuleCheck
from releasegate.policy import Policy
from releasegate.wording import checks as words


@dataclass(frozen=True)
class Rule:
    name: str
    title: str
    check: Callable[[CandidateAnalysis, Analysis, Policy], RuleCheck]
    words: Callable[[RuleCheck, Parameters, bool], str]
    reads: tuple[str, ...]
    # What a firing rule says: "dont_ship" (the candidate is worse) or "not_proven" (the data cannot settle it:
    # the judge gate). Until the verdict has NOT PROVEN of its own, a not_proven reason blocks as DON'T SHIP
    # does; either way it is never SHIP, and each Reason carries the kind.
    verdict: str = "dont_ship"


RULES: tuple[Rule, ...] = (
    Rule("critical_broken", "A critical category fails its own test", critical.check, words.critical,
         ("critical", "critical_rule", "critical_weight", "metrics")),
    Rule("overall_regression", "Significant overall regression", overall.check, words.overall,
         ("alpha", "correction", "mcnemar")),
    Rule("category_regression", "Significant regression in a category", category.check, words.category,
         ("alpha", "correction", "mcnemar")),
    Rule("guardrail", "Cost or latency guardrail exceeded", guardrail.check, words.guardrail,
         ("guardrails", "prices")),
    Rule("not_non_inferior", "Cannot show it is no worse than the margin", non_inferiority.check,
         words.non_inferiority, ("margin", "alpha")),
    Rule("judge_unreliable", "The judge is not shown reliable on both releases", judge.check, words.judge,
         ("gold", "judge_min_youden", "judge_rate_tolerance"), verdict="not_proven"),
)
RULE_NAMES = tuple(rule.name for rule in RULES)
_BY_NAME = {rule.name: rule for rule in RULES}


def detail(check: RuleCheck, analysis: Analysis) -> str:
    """The check's sentence, written from its figures (the analysis gives the parameters and the path: a
    difference in points of pass rate, or in score units)."""
    return _BY_NAME[check.rule].words(check, analysis.parameters, analysis.mcnemar_path)


def not_proven(check: RuleCheck) -> bool:
    """A firing of this check's rule says NOT PROVEN, not DON'T SHIP (the rule's row)."""
    return _BY_NAME[check.rule].verdict == "not_proven"
