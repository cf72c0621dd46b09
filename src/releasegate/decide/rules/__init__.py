"""The table of rules (SPEC section 5), in order: the first that fires is the headline.

A rule is one module with a ``check(candidate, analysis, policy) -> RuleCheck`` function, and one row here:
its name (the JSON's ``rule``), its title (the reports' rules table), the function, and the policy fields it
reads (docs/policy.md lists them). decide, the renderers and the docs read this table and nothing else.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from releasegate.decide.rules import category, critical, guardrail, non_inferiority, overall
from releasegate.model import Analysis, CandidateAnalysis, RuleCheck
from releasegate.policy import Policy


@dataclass(frozen=True)
class Rule:
    name: str
    title: str
    check: Callable[[CandidateAnalysis, Analysis, Policy], RuleCheck]
    reads: tuple[str, ...]


RULES: tuple[Rule, ...] = (
    Rule("critical_broken", "A critical category fails its own test", critical.check,
         ("critical", "critical_rule", "critical_weight", "metrics")),
    Rule("overall_regression", "Significant overall regression", overall.check, ("alpha", "correction", "mcnemar")),
    Rule("category_regression", "Significant regression in a category", category.check,
         ("alpha", "correction", "mcnemar")),
    Rule("guardrail", "Cost or latency guardrail exceeded", guardrail.check, ("guardrails", "prices")),
    Rule("not_non_inferior", "Cannot show it is no worse than the margin", non_inferiority.check,
         ("margin", "alpha")),
)
RULE_NAMES = tuple(rule.name for rule in RULES)
