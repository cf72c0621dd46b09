"""The judge section of one candidate (issue 35): the LLM judge measured against gold labels on each release,
the difference of its error rates between the releases, and the comparison corrected by prediction-powered
inference beside the raw judge's. Numbers and flags only (analyze/judge.py computes them)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # field types only: a report without gold labels never imports the judge's statistics
    from releasegate.stats.judge_agreement import JudgeAgreement, JudgeDifference
    from releasegate.stats.ppi import GoldLabelPlan, PPIDifference, PPIEstimate, PPITest
    from releasegate.stats.ppi_strata import StratifiedAllocation

# The judge gate's figures (decide/rules/judge.py): their methods and the counts' subjects, which its sentence
# (wording/judge.py) reads to tell them apart.
YOUDEN = "Youden's J (Newcombe's interval)"
RATE_DIFFERENCE = "difference of the releases' rates (MOVER interval)"
CORRECTED = "PPI++ corrected difference"
MORE_LABELS = "more gold labels per release to lift J's bound above the floor"
PLAN_LABELS = "more gold labels per release to bring the corrected interval to the target width"
# The method of the overall comparison the rules read when it is the corrected one (analyze/judge_gated.py).
CORRECTED_METHOD = "PPI++ corrected (normal)"
CORRECTED_POWER_METHOD = "normal approximation on the corrected standard error"
# Which overall figure the rules read: the corrected one (judge_correction = "ppi") or the judge's own.
GATED_CORRECTED, GATED_RAW = "corrected", "raw"


@dataclass(frozen=True)
class CorrectedFigures:
    """The corrected figures of one comparison, made once before the plan (analyze/judge.py): the PPI++
    paired difference, each release's corrected pass rate, and the difference's tests at the policy's alpha."""

    difference: PPIDifference
    baseline: PPIEstimate
    candidate: PPIEstimate
    test: PPITest


@dataclass(frozen=True)
class JudgeRelease:
    """One release's judge: its agreement with the gold labels on the compared units, the raw judge's pass
    rate over every compared case (with the interval of the plan's own rate) and the corrected rate (PPI++)."""

    release: str
    agreement: JudgeAgreement
    raw_rate: float
    raw_ci_low: float
    raw_ci_high: float
    corrected: PPIEstimate
    # Labelled units that would lift J's lower bound to the policy's judge_min_youden, its estimate held
    # (stats.judge_agreement.labels_to_clear): the judge gate's "how many more labels"; None when none would.
    labels_to_floor: int | None = None


@dataclass(frozen=True)
class JudgeSection:
    """The judge of one comparison against its gold labels.

    ``units`` is "cases" or "case runs" (the units the agreement counts; the corrected figures always count
    cases, each the mean over its runs). ``corrected`` is the PPI++ paired difference, candidate - baseline;
    ``raw_diff`` .. ``raw_ci_high`` the plan's own difference on the judge's labels (``raw_method``).
    ``gold_unused`` counts gold rows of the two releases on cells that left the comparison (errored or
    excluded). ``plan`` answers how many gold-labelled cases per release would bring the corrected interval
    to ``plan.target_width`` (None in the per-release design, whose moments need paired labels);
    ``allocation`` where a sample stratified by whether the judge changed the case would help (Neyman
    allocation and its design effect; None beside no plan).
    """

    gold_path: str
    units: str
    baseline: JudgeRelease
    candidate: JudgeRelease
    difference: JudgeDifference
    corrected: PPIDifference
    raw_diff: float
    raw_ci_low: float
    raw_ci_high: float
    raw_method: str
    gold_unused: int
    plan: GoldLabelPlan | None
    allocation: StratifiedAllocation | None = None
    # Which overall figure the rules read (GATED_CORRECTED or GATED_RAW: the policy's judge_correction) and the
    # corrected difference's tests (one-sided p, the (1 - 2 alpha) bound), read when it is the corrected one.
    gated: str = GATED_RAW
    test: PPITest | None = None
    # The judge's own overall test: its one-sided p (unadjusted; in the error budget only when it is gated).
    raw_p_one_sided: float = float("nan")
