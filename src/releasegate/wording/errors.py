"""The sentences about errored cases: the line beside the verdict, the guardrail's figure and the listing's labels
(the headline counts them with every other case set apart: wording/exclusions.py). The numbers come from
:class:`releasegate.model.ErroredCases`."""

from __future__ import annotations

from releasegate import fmt
from releasegate.model import ErroredCases


def error_line(e: ErroredCases, baseline: str, candidate: str) -> str:
    """One sentence beside the verdict: how many cases errored, on which side, and how many were compared."""
    return (f"{e.excluded:,} of {e.n_cases:,} cases errored and left the comparison of {candidate} with {baseline} "
            f"({e.baseline_only:,} on the baseline only, {e.candidate_only:,} on the candidate only, {e.both:,} on "
            f"both); {e.compared:,} compared, and no errored case counts as fixed or broken.")


def error_rate_test(increase: float | None, low: float | None, high: float | None, p: float | None,
                    adjusted: float | None, limit: float | None) -> str:
    """"error_rate_increase +39.5 points [+32.8, +45.9]; one-sided exact McNemar p < 0.001 (adjusted < 0.001 in
    the error budget); blocks above +2.0 points when significant"."""
    return (f"error_rate_increase {fmt.points(increase)} points {fmt.interval_points(low, high)}; one-sided exact "
            f"McNemar {fmt.p_is(p)} (adjusted {fmt.pvalue(adjusted)} in the error budget); blocks a significant "
            f"rise above {fmt.points(limit)} points")


def no_errors() -> str:
    return "error_rate_increase: no errors on either side"


SIDE_LABELS = {"baseline": "baseline only", "candidate": "candidate only", "both": "both"}
