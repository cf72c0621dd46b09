"""Rule 7, judge_unreliable: the outcomes are an LLM judge's verdicts and a human labelled a sample of them (the
gold labels, issue 35 item 4). The judge is not trusted when, on either release's outputs, the lower bound of
its Youden J (TPR - FPR, the share of a real difference it passes on) is below ``judge_min_youden``, or when
its TPR or FPR differs between the releases significantly (the interval of the difference excludes 0) and by
more than ``judge_rate_tolerance`` as observed: then the judged difference is biased by the judge itself.
A release whose gold labels hold no human pass or no human fail cannot be measured, and fires; so does a
corrected difference the rules read (judge_correction = "ppi") that is undefined or degenerate (its standard
error 0, or its gold labels showing no error of the judge's, so that its interval counts none).

The rule's reasons are NOT PROVEN (``not_proven`` in its row): more labels, or the corrected comparison, can
settle them; the check carries how many more gold labels per release would lift J's bound above the floor
(each release's ``labels_to_floor``, stats.judge_agreement.labels_to_clear) and the corrected difference with its plan (analyze/judge.py).
"""

from __future__ import annotations

from releasegate.model import Analysis, CandidateAnalysis, Figure, RuleCheck
from releasegate.model.checks import Unmeasured
from releasegate.model.judge import CORRECTED, GATED_CORRECTED, MORE_LABELS, PLAN_LABELS, RATE_DIFFERENCE, YOUDEN
from releasegate.policy import Policy

NAME = "judge_unreliable"


def check(cand: CandidateAnalysis, analysis: Analysis, policy: Policy) -> RuleCheck:
    judge = cand.sections.judge
    if judge is None:
        return RuleCheck(NAME, False, (Figure("count", "gold labels", value=0),), applies=False)
    floor, tolerance = policy.judge_min_youden, policy.judge_rate_tolerance
    figures, needed = [], []
    for release in (judge.baseline, judge.candidate):
        a = release.agreement
        j = a.youden
        fired = not a.defined or j.low < floor
        figures.append(Figure("judge", release.release, value=j.estimate, ci_low=j.low, ci_high=j.high,
                              limit=floor, cases=a.n, worse=a.negatives, better=a.positives, method=YOUDEN,
                              fired=fired, unmeasured="" if a.defined else "too_few"))
        if fired and a.defined:
            total = release.labels_to_floor
            needed.append(None if total is None else total - a.n)
    for name in ("tpr", "fpr"):
        d = getattr(judge.difference, name)
        shown = d.defined and (d.low > 0 or d.high < 0) and abs(d.estimate) > tolerance
        figures.append(Figure("judge", name.upper(), value=d.estimate, ci_low=d.low, ci_high=d.high,
                              limit=tolerance, cases=judge.difference.shared_units, method=RATE_DIFFERENCE,
                              fired=shown or not d.defined, unmeasured="" if d.defined else "too_few"))
    c = judge.corrected
    # The corrected difference the rules read (judge_correction = "ppi") that does not exist (too few gold
    # labels), claims its estimate exactly (standard error 0) or counts none of the judge's error (its gold
    # labels show none): the overall rules cannot be read, so it fires.
    unmeasured: Unmeasured = "too_few" if not c.defined else "degenerate" if c.degenerate else ""
    figures.append(Figure("overall", "overall", value=c.estimate, ci_low=c.low, ci_high=c.high, cases=c.n_cases,
                          method=CORRECTED, fired=judge.gated == GATED_CORRECTED and bool(unmeasured),
                          unmeasured=unmeasured))
    # None when no number of labels lifts a bound (the judge's own J is at or below the floor).
    more = None if not needed or None in needed else max(n for n in needed if n is not None)
    figures.append(Figure("count", MORE_LABELS, value=more, limit=floor))
    plan = judge.plan
    figures.append(Figure("count", PLAN_LABELS, value=None if plan is None else plan.more,
                          limit=None if plan is None else plan.target_width))
    return RuleCheck(NAME, any(f.fired for f in figures), tuple(figures))
