"""The churn section (issue 21 item 3): how often the live release's own outcomes change between two runs,
measured from a baseline rerun or the baseline's own runs, and the comparisons whose one-run verdict that
churn makes fragile. Numbers and flags only (wording.churn writes the sentences)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ChurnGroup:
    """Churn of one category: the share of its cases whose outcome differs between two runs."""

    label: str
    cases: int
    share: float


@dataclass(frozen=True)
class FragileComparison:
    """A comparison whose verdict churn alone could give or take away: on its ``cases``, churn ``churn`` alone
    moves broke - fixed between ``churn_low`` and ``churn_high`` (central 95%). ``blocks``: a blocking
    comparison whose broke - fixed is within that range (churn alone explains the block), else a passing one
    whose broke - fixed is above it (it lost more than churn gives, yet ships)."""

    label: str
    kind: str  # "overall", "category" or "critical"
    blocks: bool
    cases: int
    broke: int
    fixed: int
    churn: float
    churn_low: int
    churn_high: int


@dataclass(frozen=True)
class ChurnSection:
    """``source`` is "rerun" (``rerun`` names the release) or "runs" (the baseline's own runs, ``runs_min``..
    ``runs_max`` per case). ``share`` is the mean over cases of the unbiased chance that two distinct runs of a
    case disagree (with two runs: the share of cases that differ). ``fragile`` lists the comparisons flagged."""

    source: str
    rerun: str | None
    cases: int
    runs_min: int
    runs_max: int
    share: float
    by_category: tuple[ChurnGroup, ...]
    fragile: tuple[FragileComparison, ...]
    one_run: bool  # the comparisons are on one run per release (fragility is judged only then)
