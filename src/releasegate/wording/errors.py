"""The sentences about errored cases: the line beside the verdict, the guardrail's figure and the listing's labels
(the headline counts them with every other case set apart: wording/exclusions.py). The numbers come from
:class:`releasegate.model.ErroredCases`."""

from __future__ import annotations

from releasegate import fmt
from releasegate.model import ErroredCases


def error_line(e: ErroredCases, baseline: str, candidate: str) -> str:
    """One sentence beside the verdict: how many cases errored, on which side, and what became of them: left
    out of the comparison (the default) or counted in it as failures (``counted_as_failures``, --missing fail)."""
    sides = (f"({e.baseline_only:,} on the baseline only, {e.candidate_only:,} on the candidate only, {e.both:,} on "
             "both)")
    if e.counted_as_failures:
        return (f"{e.excluded:,} of {e.n_cases:,} cases errored in the comparison of {candidate} with {baseline} "
                f"{sides} and were counted as failures (--missing fail); all {e.compared:,} compared, so a baseline "
                "error reads as a fix and a candidate error as a break.")
    return (f"{e.excluded:,} of {e.n_cases:,} cases errored and left the comparison of {candidate} with {baseline} "
            f"{sides}; {e.compared:,} compared, and no errored case counts as fixed or broken.")


def error_rate_test(increase: float | None, low: float | None, high: float | None, p: float | None,
                    adjusted: float | None, limit: float | None, worse: int | None = None,
                    better: int | None = None) -> str:
    """"error_rate_increase +39.5 points [+32.8, +45.9] (79 cases errored on the candidate only, 0 on the
    baseline only); one-sided exact McNemar p < 0.001 (adjusted < 0.001 in the error budget); blocks a
    significant rise above +2.0 points"."""
    counted = ("" if worse is None or better is None else
               f" ({fmt.plural(worse, 'case')} errored on the candidate only, {better:,} on the baseline only)")
    return (f"error_rate_increase {fmt.points(increase)} points {fmt.interval_points(low, high)}{counted}; one-sided "
            f"exact McNemar {fmt.p_is(p)} (adjusted {fmt.pvalue(adjusted)} in the error budget); blocks a significant "
            f"rise above {fmt.points(limit)} points")


def no_errors() -> str:
    return "error_rate_increase: no errors on either side"


SIDE_LABELS = {"baseline": "baseline only", "candidate": "candidate only", "both": "both"}
