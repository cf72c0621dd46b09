"""The one error budget of a candidate (issue 34 item 5): every test whose rule says DON'T SHIP, adjusted
together at the policy's alpha (analyze/budget.py); and what would settle a NOT PROVEN (issue 34 item 2)."""

from __future__ import annotations

from dataclasses import dataclass

from releasegate.stats.settle import NonInferiorityPlan


@dataclass(frozen=True)
class FamilyMember:
    """One test of the budget. ``kinds`` names the rules it serves ("overall", "category", "critical",
    "error_rate"; a critical category's own test that is its category's McNemar test is one member serving
    both); ``trials`` is the trial count of an exact binomial test (its attainable p-values), None for a test
    that can reach any p; ``weight`` its share of the budget relative to the others."""

    label: str
    kinds: tuple[str, ...]
    p_one_sided: float
    trials: int | None
    weight: float
    p_adjusted: float


@dataclass(frozen=True)
class ErrorBudget:
    """The family and how it was adjusted: ``method`` (the policy's correction, weighted), the level
    ``alpha`` at which every member is read, and ``critical_weight``."""

    method: str
    alpha: float
    critical_weight: float
    members: tuple[FamilyMember, ...]
    # Looks at the same baseline and candidate (issue 46 item 3): this one's number, the level its members were
    # read at (alpha at the first look; at a later one what the earlier looks left), the most they could spend
    # at it given their changed cases, and what is left for the next look (level - spent).
    look: int = 1
    level: float = float("nan")
    spent: float = float("nan")
    left: float = float("nan")


@dataclass(frozen=True)
class PreviousSuite:
    """What an earlier note records of the suite it compared, as far as a later look can be checked against it
    (load/looks.py): its baseline, the kind of its outcomes and its metric, its distinct cases and each release's,
    and each candidate's categories. A later look holds every case of the earlier ones and more; a note whose cases or
    categories could not be a part of this comparison's is not an earlier look at it."""

    baseline: str | None
    outcome_kind: str | None
    n_cases: int | None
    release_cases: tuple[tuple[str, int], ...]
    categories: tuple[tuple[str, tuple[str, ...]], ...]
    metrics: tuple[str, ...] = ()  # the metrics it named (--metric); none for the outcome column


@dataclass(frozen=True)
class PreviousLook:
    """An earlier comparison of the same baseline and candidate (a note given back with ``--previous``): its look
    number and what its regression tests left unspent (``left``: the level the next look reads them at), the
    note it came from and what that note records of its suite (None when rebuilt from a note's own record)."""

    look: int
    left: float
    source: str
    suite: PreviousSuite | None = None


@dataclass(frozen=True)
class Settle:
    """What would settle a NOT PROVEN: from the discordance these releases show, the cases (or the runs of
    every case) that give the ``targets`` chances of showing non-inferiority if the candidate is truly no
    worse. Set on every pass/fail comparison with the margin on, read by the wording only when the verdict
    is NOT PROVEN."""

    plan: NonInferiorityPlan
    source: str  # where the run-to-run share came from: "rerun", "runs", or "unknown"
    # When the rule fired on a measured loss: the difference measured, and the same figures as if that loss were
    # the candidate's true one (the margin left, margin - loss, in the margin's place); None when the loss is at
    # or beyond the margin (no number of cases shows it within).
    observed_diff: float | None = None
    observed: NonInferiorityPlan | None = None
    # Grouped cases below the groups the sizing by cases holds for (analyze/clusters.FEW_CLUSTERS): their number.
    # The interval that respects the groups is then the sign-flip test's, set by the groups, not by the cases:
    # more groups settle it, not more cases (the plan's sizes assume cases that count alone).
    groups: int | None = None
