"""The plan's own figures: comparisons, rates, case changes, the Analysis, the Verdict and the Report.

Every class is a frozen dataclass of numbers, strings and tuples, so a reader can follow one case from the
CSV to the PDF, and the JSON output is a direct dump of these objects. Orientation everywhere:
difference = candidate - baseline; broke = baseline pass and candidate fail; fixed = the reverse.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, fields
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from releasegate.kinds import NotJudgedReason, OutcomeKind
from releasegate.model.budget import ErrorBudget, Settle
from releasegate.model.cases import CaseChange, CaseDetails
from releasegate.model.checks import RuleCheck
from releasegate.model.churn import ChurnSection
from releasegate.model.costs import CostComparison, CostTable
from releasegate.model.exclusions import Exclusions, InputExclusion
from releasegate.model.judge import JudgeSection
from releasegate.model.sections import CaseView, CriticalSection, ErroredCases
from releasegate.stats.noninferiority_reach import NonInferiorityReach

if TYPE_CHECKING:  # made only with their input (model/axes.py)
    from releasegate.model.axes import ClusterAnalysis, ItemAxis, RunAxis


@dataclass(frozen=True)
class InputFile:
    """One file read, for provenance: what was compared, exactly."""

    path: str
    sha256: str
    rows: int
    format: str
    release: str | None = None
    # What a harness adapter chose for this file (None for tidy tables): the tool and version that wrote it,
    # where the release name came from, and the scorer / metric / filter whose values are the outcomes.
    harness: str | None = None
    release_key: str | None = None
    scorer: str | None = None
    metric: str | None = None
    filter: str | None = None
    # The metric's direction when the harness states it (lm-eval's higher_is_better), and the reducer that
    # made one outcome per case of several epochs (Inspect's epochs reducer, when it is not the mean).
    direction: str | None = None
    reducer: str | None = None
    # What makes the outcomes an LLM judge's verdicts, when the harness says so (issue 35): a run store's judge
    # metric, an Inspect model-graded scorer, a promptfoo model-graded assertion (llm-rubric, ...).
    judge: str | None = None

    @property
    def read_as(self) -> str:
        """One line of what was chosen, for the report's provenance ("" for a tidy table)."""
        parts = [self.harness or ""]
        parts += [f"{label} {value}" for label, value in (("release from", self.release_key), ("scorer", self.scorer),
                                                          ("metric", self.metric), ("filter", self.filter),
                                                          ("epochs reduced by", self.reducer))
                  if value]
        parts += [self.direction or ""]
        return "; ".join(p for p in parts if p)


@dataclass(frozen=True)
class PolicyFile:
    """The policy file a run read, for provenance: its path, its sha256, and whether it was found beside the
    results (``releasegate.toml``) rather than named with ``--policy``."""

    path: str
    sha256: str
    found: bool = False


@dataclass(frozen=True)
class NotJudged:
    """A release of the data that no verdict is about, and why: ``reason`` is "not_a_candidate" (the policy
    names its candidates and this is not one) or "baseline_rerun" (the live release run again: its churn is
    measured, it is never judged)."""

    release: str
    reason: NotJudgedReason


@dataclass(frozen=True)
class Rate:
    """A pass rate (or mean score) with its 95% interval (Wilson for pass/fail, t for scores)."""

    n: int
    value: float
    ci_low: float
    ci_high: float


@dataclass(frozen=True)
class Comparison:
    """One paired comparison of a candidate with the baseline: overall, or within one category.

    ``p_value`` is two-sided (McNemar exact for pass/fail, paired t for scores); ``p_one_sided`` tests
    "the candidate is worse" and is what the gate uses; ``p_adjusted`` is ``p_one_sided`` adjusted over the
    candidate's family (overall + every category); ``p_value_adjusted`` the same for the two-sided p.
    ``ni_low``/``ni_high`` is the two-sided (1 - 2 alpha) interval used for non-inferiority.
    """

    label: str
    n: int
    baseline: Rate
    candidate: Rate
    diff: float
    ci_low: float
    ci_high: float
    ni_low: float
    ni_high: float
    fixed: int
    broke: int
    both_pass: int
    both_fail: int
    p_value: float
    p_midp: float
    p_one_sided: float
    p_adjusted: float = float("nan")
    p_value_adjusted: float = float("nan")
    method: str = "McNemar exact"
    degenerate: bool = False
    powerless: bool = False
    discordant_needed: int | None = None
    critical: bool = False
    # The trials of the exact binomial test ``p_one_sided`` is an upper tail of (an exact McNemar test: fixed +
    # broke; the exact test on the groups that changed), read by the discrete correction; None for a p that
    # can take any value (paired t, clustered t, sign flips, mid-p).
    trials: int | None = None
    # Where the one-sided p is below alpha (a regression a rule may name): the upper bound of ``diff`` at
    # one-sided 1 - alpha from the interval that inverts a test, and that test (analyze/regression_bounds.py);
    # NaN and "" elsewhere.
    bound: float = float("nan")
    bound_method: str = ""


@dataclass(frozen=True)
class Power:
    """Minimum detectable difference of the overall one-sided test at the policy's power, at ``level``, the
    level the family leaves the overall test. ``mde`` is NaN when nothing is detectable: ``undetectable`` says
    why ("floor": the test's smallest p is above the level; "infeasible": even the largest drop falls short)."""

    mde: float
    sd_of_difference: float
    design_effect: float
    power: float
    alpha: float
    level: float = float("nan")
    method: str = "normal approximation"
    undetectable: str = ""
    # The non-inferiority rule's chance to pass a candidate that changes nothing (issue 21 item 5).
    ni_reach: NonInferiorityReach | None = None


@dataclass(frozen=True)
class CandidateSections:
    """The optional sections of one candidate's analysis, each None when the data does not call for it:
    the item axis (paired-mean path), the run axis (several runs), grouped cases (a cluster column), the
    paired cost ratios (latency, tokens or cost columns, or prices) and the errored cases (an error column)."""

    item_axis: ItemAxis | None = None
    run_axis: RunAxis | None = None
    clusters: ClusterAnalysis | None = None
    costs: CostComparison | None = None
    critical: CriticalSection | None = None
    errors: ErroredCases | None = None
    case_view: CaseView | None = None  # cases failing on both releases, errored cases (issue 17)
    churn: ChurnSection | None = None  # the baseline's churn from a rerun or its runs (issue 21 item 3)
    budget: ErrorBudget | None = None  # the one error budget of the DON'T SHIP rules (issue 34 item 5)
    settle: Settle | None = None  # what would settle a NOT PROVEN (issue 34 item 2)
    judge: JudgeSection | None = None  # the judge against gold labels, the corrected comparison (issue 35)

    def present(self) -> dict[str, Any]:
        """The sections that are there, by name, in name order (the JSON's order)."""
        found = {f.name: getattr(self, f.name) for f in fields(self)}
        return {name: found[name] for name in sorted(found) if found[name] is not None}


@dataclass(frozen=True)
class ReleaseSections:
    """The optional release-level sections: the per-release cost table."""

    costs: CostTable | None = None


@dataclass(frozen=True)
class CandidateAnalysis:
    """Everything the fixed plan says about one candidate against the baseline; ``sections`` holds the
    optional parts (:class:`CandidateSections`), so that the core plan stays readable when they are absent."""

    name: str
    overall: Comparison
    categories: tuple[Comparison, ...]
    # The analysis's listings are model.CaseListing (columns; a case is made when read); any sequence of
    # CaseChange will do.
    broken_cases: Sequence[CaseChange]
    fixed_cases: Sequence[CaseChange]
    exclusions: Exclusions
    power: Power
    sections: CandidateSections = CandidateSections()
    # Categories of the two releases none of whose cases was compared (every one left out): no row of figures.
    categories_not_compared: tuple[str, ...] = ()
    # With gold labels and judge_correction = "ppi": ``overall`` is the corrected comparison the rules read and
    # this the plan's own on the judge's verdicts (the summary's row, the judge section's raw figures); None
    # when ``overall`` is the judge's own.
    judged: Comparison | None = None
    # The unchanged cases (of a small suite) and each listed case's latency and cost change: the HTML note's case
    # explorer reads them, no verdict or other format does (analyze/case_details.py).
    details: CaseDetails | None = None

    @property
    def judged_overall(self) -> Comparison:
        """The overall comparison on the outcomes as given (the judge's verdicts): what the summary shows."""
        return self.overall if self.judged is None else self.judged


@dataclass(frozen=True)
class ReleaseSummary:
    """One release on its own: its cases and pass rate."""

    name: str
    n_cases: int
    rate: Rate
    is_baseline: bool


@dataclass(frozen=True)
class Parameters:
    """The analysis plan's parameters, recorded in every report."""

    alpha: float
    margin: float
    correction: str
    mcnemar: str
    confidence: float
    critical: tuple[str, ...]
    power: float
    seed: int
    n_resamples: int


@dataclass(frozen=True)
class Analysis:
    """The result of the fixed plan for every candidate."""

    baseline: str
    outcome_kind: OutcomeKind
    n_cases: int
    releases: tuple[ReleaseSummary, ...]
    candidates: tuple[CandidateAnalysis, ...]
    parameters: Parameters
    has_categories: bool
    has_clusters: bool
    has_runs: bool
    notes: tuple[str, ...] = ()
    sections: ReleaseSections = ReleaseSections()
    not_judged: tuple[NotJudged, ...] = ()  # releases of the data no verdict is about (validation's choice)
    excluded: tuple[InputExclusion, ...] = ()  # what the reading of the inputs left out of every comparison

    @property
    def mcnemar_path(self) -> bool:
        """Pass/fail outcomes with one run per case: the McNemar path, whose differences are in points."""
        return self.outcome_kind == OutcomeKind.BINARY and not self.has_runs


class Decision(StrEnum):
    """A candidate's verdict (issue 34): SHIP when it is shown no worse than the margin and no rule fired;
    DON'T SHIP when a rule shows it worse (a regression, a critical failure, an error-rate rise, a guardrail, or
    one of them that cannot be measured: fail closed); NOT PROVEN when nothing is shown either way and the data
    cannot show it no worse than the margin. Only SHIP ships. The JSON writes the value; a StrEnum, so that the
    plan's simulations (plan/evaluate.py) count verdicts by the same values the JSON holds."""

    SHIP = "ship"
    DONT_SHIP = "dont_ship"
    NOT_PROVEN = "not_proven"

    @property
    def label(self) -> str:
        """The verdict as the reports print it: "SHIP", "DON'T SHIP" or "NOT PROVEN"."""
        return _LABELS[self]

    @classmethod
    def worst(cls, decisions: Iterable[Decision]) -> Decision:
        """DON'T SHIP if any is, else NOT PROVEN if any is, else SHIP (SHIP for none): several metrics' or
        candidates' verdicts read together."""
        found = set(decisions)
        for decision in (cls.DONT_SHIP, cls.NOT_PROVEN):
            if decision in found:
                return decision
        return cls.SHIP


_LABELS = {Decision.SHIP: "SHIP", Decision.DONT_SHIP: "DON'T SHIP", Decision.NOT_PROVEN: "NOT PROVEN"}


@dataclass(frozen=True)
class Reason:
    """A rule that fired, with its figures in words; ``metric`` names the metric whose rule it is."""

    rule: str
    message: str
    metric: str = ""


class Decided:
    """What a verdict says, read from its ``decision``: one metric's Verdict and a candidate's CandidateVerdict."""

    decision: Decision

    @property
    def ship(self) -> bool:
        """Only SHIP ships: NOT PROVEN is not a SHIP, whatever the policy lets the gate do with it."""
        return self.decision is Decision.SHIP

    @property
    def verdict(self) -> str:
        """The verdict as the JSON writes it: "ship", "dont_ship" or "not_proven"."""
        return self.decision.value

    @property
    def label(self) -> str:
        return self.decision.label


@dataclass(frozen=True)
class Verdict(Decided):
    """One candidate's verdict on one metric, from that metric's rules: the headline, the reasons, the
    warnings and every rule's check. ``metric`` names the metric (the outcome column of a one-metric run)."""

    candidate: str
    decision: Decision
    headline: str
    because: str
    reasons: tuple[Reason, ...]
    warnings: tuple[str, ...]
    checks: tuple[RuleCheck, ...]
    smallest_margin_ruled_out: float
    metric: str = ""
    # What the comparison set apart, in the clause every format shows beside the verdict ("" for nothing).
    excluded: str = ""


@dataclass(frozen=True)
class Provenance:
    """What an auditor needs to tell exactly what was compared, how and when."""

    tool_version: str
    command_line: str
    inputs: tuple[InputFile, ...]
    policy: dict[str, Any]
    packages: dict[str, str]
    generated_at: str
    title: str
    policy_file: PolicyFile | None = None  # None: flags and defaults only
    # Harness files read once per metric (several Inspect scorers, lm-eval metrics): each metric's own records
    # (its scorer, metric, filter), which that metric's section names; empty when one reading served them all.
    metric_inputs: dict[str, tuple[InputFile, ...]] = field(default_factory=dict)
    # How the inputs were read (format, adapter options, shapes, metrics, the default title): with the policy, all
    # that `releasegate verify` needs to rerun the note (pipeline.loading_record).
    loading: dict[str, Any] = field(default_factory=dict)
