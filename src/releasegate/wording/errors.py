"""The sentences about errored cases: the line beside the verdict, the headline's clause, the guardrail's figure
and the listing's labels. The numbers come from :class:`releasegate.model.ErroredCases`."""

from __future__ import annotations

from releasegate import fmt
from releasegate.model import ErroredCases

# The headline names the errored cases once they are at least this share of the comparison's cases: below 1%
# they could move the difference by less than 1 point even had every one of them broken, a fifth of the
# default 5-point margin; at 1% or more they are a figure a reader must weigh beside the verdict.
HEADLINE_SHARE = 0.01


def _cases(k: int) -> str:
    return f"{k} case" if k == 1 else f"{k} cases"


def error_line(e: ErroredCases, baseline: str, candidate: str) -> str:
    """One sentence beside the verdict: how many cases errored, on which side, and how many were compared."""
    return (f"{e.excluded} of {e.n_cases} cases errored and left the comparison of {candidate} with {baseline} "
            f"({e.baseline_only} on the baseline only, {e.candidate_only} on the candidate only, {e.both} on both); "
            f"{e.compared} compared, and no errored case counts as fixed or broken.")


def matters(e: ErroredCases | None) -> bool:
    """Whether the errored cases are many enough to name in the headline."""
    return e is not None and e.excluded > 0 and e.excluded >= HEADLINE_SHARE * max(e.n_cases, 1)


def headline_clause(e: ErroredCases) -> str:
    """What the headline adds when :func:`matters`: "12 of 300 cases errored (4.0%) and were left out"."""
    return f"{e.excluded} of {e.n_cases} cases errored ({fmt.pct(e.excluded / e.n_cases)}) and were left out"


def with_errors(headline: str, e: ErroredCases | None) -> str:
    """The headline, with the errored cases' clause before its final full stop when they matter."""
    if not matters(e):
        return headline
    return f"{headline.removesuffix('.')}; {headline_clause(e)}."


def error_rate_test(increase: float, low: float, high: float, p: float, adjusted: float, limit: float) -> str:
    """"error_rate_increase +39.5 points [+32.8, +45.9]; one-sided exact McNemar p < 0.001 (adjusted < 0.001 in
    the error budget); blocks above +2.0 points when significant"."""
    return (f"error_rate_increase {fmt.points(increase)} points {fmt.interval_points(low, high)}; one-sided exact "
            f"McNemar {fmt.p_is(p)} (adjusted {fmt.pvalue(adjusted)} in the error budget); blocks a significant "
            f"rise above {fmt.points(limit)} points")


def no_errors() -> str:
    return "error_rate_increase: no errors on either side"


SIDE_LABELS = {"baseline": "baseline only", "candidate": "candidate only", "both": "both"}
