"""Stage 4: the policy's rules (SPEC section 5) turn each candidate's analysis into SHIP, NOT PROVEN or DON'T SHIP.

The rules are the table in :mod:`.rules`, in order; every rule that fires is a reason with its figures, and the
first is the headline. Warnings (the plan's and the sections') never change the verdict.
"""

from __future__ import annotations

from releasegate.decide.rules import RULE_NAMES, RULES, decision_of, detail
from releasegate.model import Analysis, CandidateAnalysis, Decision, Reason, Verdict
from releasegate.policy import Policy
from releasegate.wording import churn as churn_words
from releasegate.wording import exclusions as exclusion_words
from releasegate.wording import sections as section_words
from releasegate.wording import verdict as words

__all__ = ["RULES", "RULE_NAMES", "decide", "decide_candidate", "decision_of", "detail", "section_warnings"]


def section_warnings(cand: CandidateAnalysis, analysis: Analysis) -> list[str]:
    """The warnings of the candidate's optional sections: grouped cases, the run axis, costs."""
    s, p = cand.sections, analysis.parameters
    group = s.clusters.cluster_column if s.clusters is not None else None
    out: list[str] = []
    if s.clusters is not None:
        out += section_words.cluster_warnings(s.clusters, p)
    if s.run_axis is not None:
        out += section_words.run_warnings(s.run_axis, p, analysis.baseline, group)
    if s.costs is not None:
        out += section_words.cost_warnings(s.costs)
    out += churn_words.fragile_warnings(s.churn)
    return out


def decide_candidate(cand: CandidateAnalysis, analysis: Analysis, policy: Policy, metric: str = "") -> Verdict:
    """Apply every rule of the table to one candidate; ``metric`` names the metric gated."""
    checks = tuple(rule.check(cand, analysis, policy) for rule in RULES)
    reasons = tuple(Reason(c.rule, detail(c, analysis), metric) for c in checks if c.fired)
    decision = decision_of(r.rule for r in reasons)
    costs = cand.sections.costs
    because = words.because(cand, analysis.parameters, analysis.mcnemar_path, reasons,
                            section_words.cost_clause(costs) if costs is not None else "",
                            settle=cand.sections.settle if decision is Decision.NOT_PROVEN else None,
                            allowed=decision is Decision.NOT_PROVEN and policy.not_proven == "warn")
    # What the comparison set apart is named in the headline's first words (wording/exclusions.py).
    excluded = exclusion_words.clause(cand.exclusions, cand.name)
    return Verdict(
        candidate=cand.name,
        decision=decision,
        headline=words.headline(decision.label, cand.name, because, excluded),
        because=because,
        reasons=reasons,
        # Every broken critical case is named first, whatever the critical rule decided (issue 21).
        warnings=tuple(words.critical_warnings(cand, analysis.mcnemar_path)
                       + words.plan_warnings(cand, analysis.parameters, analysis.mcnemar_path)
                       + section_warnings(cand, analysis)),
        checks=checks,
        smallest_margin_ruled_out=cand.overall.ni_low,
        metric=metric,
        excluded=excluded,
    )


def decide(analysis: Analysis, policy: Policy, metric: str = "") -> tuple[Verdict, ...]:
    """A verdict per candidate on the metric ``metric``, in the analysis' order."""
    return tuple(decide_candidate(c, analysis, policy, metric) for c in analysis.candidates)
