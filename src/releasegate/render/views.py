"""The view models the templates read: frozen dataclasses built by the context builder (render/context.py) and
the page builders (render/html.py, render/notebook.py), then handed to Jinja field by field (:func:`fields_of`).

Numbers stay numbers and the model's own objects (Comparison, CaseChange, Verdict, ...) are passed as they are;
the templates format them with the filters of render/filters.py. Lists the templates add up or index (``rows``,
``categories``) are lists.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any

from markupsafe import Markup

from releasegate.model import (
    CandidateSections,
    CaseChange,
    Comparison,
    CostTable,
    Decision,
    ErroredCase,
    Exclusions,
    Parameters,
    Power,
    Provenance,
    Rate,
    ReleaseCosts,
    ReleaseSummary,
    Verdict,
)
from releasegate.render.answers import AnswerPair
from releasegate.wording.method import Line

if TYPE_CHECKING:  # the HTML page's case explorer: the Markdown and the PDF never import it
    from releasegate.render.explorer_page import ExplorerView


def fields_of(*views: Any, **extra: Any) -> dict[str, Any]:
    """The views' fields by name (a later view's win), then ``extra``: what a template is rendered with."""
    out: dict[str, Any] = {}
    for view in views:
        out.update({f.name: getattr(view, f.name) for f in fields(view)})
    out.update(extra)
    return out


@dataclass(frozen=True)
class CaseRows:
    """One listing of cases (broken, fixed, failing on both, errored), cut to its limit; ``answers`` holds each
    shown case's per-release texts side by side (render/answers.py). ``total`` counts the unlisted too."""

    rows: list[CaseChange]
    total: int
    cut: int
    answers: list[list[AnswerPair]]
    answers_cut: bool
    defined: bool = True  # "both fail" needs pass/fail outcomes
    column: str | None = None  # the error column of the errored listing


@dataclass(frozen=True)
class CheckView:
    """One rule's check of one candidate: fired or not, and its sentence (written from the rule's figures)."""

    rule: str
    fired: bool
    detail: str


@dataclass(frozen=True)
class RuleRow:
    """One row of the rules table: the rule and its check of each candidate shown."""

    rule: str
    title: str
    checks: list[CheckView]


@dataclass(frozen=True)
class ErroredRow:
    case: ErroredCase
    side: str


@dataclass(frozen=True)
class ErroredRows:
    rows: list[ErroredRow]
    total: int
    cut: int


@dataclass(frozen=True)
class Estimate:
    """A figure with its interval, as the templates format it (``ci_low``/``ci_high`` as the filters read)."""

    value: float
    ci_low: float
    ci_high: float


@dataclass(frozen=True)
class JudgeRow:
    """One release's judge against its gold labels: the labelled units (human pass / fail), TPR, FPR, Youden's
    J and Cohen's kappa, the judge's own pass rate and the corrected one (PPI++)."""

    release: str
    labelled: int
    positives: int
    negatives: int
    defined: bool
    tpr: Estimate
    fpr: Estimate
    youden: Estimate
    kappa: Estimate
    raw: Estimate
    corrected: Estimate
    # The corrected rate is a figure: defined, and its gold labels show some error of the judge's (not degenerate).
    corrected_shown: bool = True


@dataclass(frozen=True)
class JudgeView:
    """A candidate's judge section (issue 35): both releases' rows, the differences candidate - baseline (TPR,
    FPR, J; the raw judge's and the corrected pass-rate difference) and its sentences (wording/judge.py)."""

    units: str
    rows: list[JudgeRow]
    tpr: Estimate
    fpr: Estimate
    youden: Estimate
    raw: Estimate
    corrected: Estimate
    differences_defined: bool
    corrected_defined: bool
    summary: str
    method: str
    plan: str
    corrected_gated: bool = False  # the rules read the corrected difference (judge_correction = "ppi")
    gated: str = ""  # which overall figure the verdict read, in a sentence (wording/judge.py)
    unmeasured: str = ""  # the corrected figures shown as n/a and why (wording/judge.py), else empty


@dataclass(frozen=True)
class CandidateView:
    """One candidate as the note shows it: its verdict, checks, comparisons, listings and sentences."""

    name: str
    verdict: Verdict
    checks: list[CheckView]
    overall: Comparison
    categories: list[Comparison]  # critical first, then worst first, cut to the limit
    categories_cut: int
    broken: CaseRows
    fixed: CaseRows
    both_fail: CaseRows
    errored: CaseRows
    metadata_columns: list[str]
    text_columns: list[str]
    exclusions: Exclusions
    power: Power
    sections: CandidateSections
    words: Mapping[str, str]  # the optional sections' sentences, by name
    error_line: str
    errored_cases: ErroredRows | None
    judge: JudgeView | None = None  # with gold labels (issue 35)
    plain: str = ""  # page one's paragraph in plain words (wording/plain.py)


@dataclass(frozen=True)
class SummaryRow:
    release: ReleaseSummary
    rate: Rate
    overall: Comparison | None
    costs: ReleaseCosts | None


@dataclass(frozen=True)
class SummaryCosts:
    latency: bool
    cost: bool


@dataclass(frozen=True)
class CostWords:
    interval_method: str
    quantile_method: str
    notes: list[str]


@dataclass(frozen=True)
class NoteView:
    """Everything the note's templates read for one metric's section, in reading order."""

    title: str
    date: str
    generated_at: str
    version: str
    baseline: str
    n_cases: int
    binary: bool
    outcome_kind: str
    rate_name: str  # a release's figure: "pass rate" for pass/fail, with runs too; "mean score" for scores
    ship_all: bool
    decision: Decision  # the gate's over the candidates: DON'T SHIP, else NOT PROVEN, else SHIP
    not_proven_allowed: bool  # the policy lets NOT PROVEN pass the gate (not_proven = "warn")
    verdicts: list[Verdict]
    candidates: list[CandidateView]
    summary: list[SummaryRow]
    summary_note: str
    summary_costs: SummaryCosts
    rules: list[RuleRow]
    rules_lead: str  # what a rule that fires gives (wording/checks.py rules_lead, from the RULES table)
    parameters: Parameters
    notes: list[str]
    not_judged: list[str]  # the releases no verdict is about, one line per reason (wording/judged.py)
    excluded: list[str]  # what the reading of the inputs left out of every comparison (wording/exclusions.py)
    uncalibrated: str  # the outcomes are a judge's verdicts and no gold labels were given (wording/judge.py)
    provenance: Provenance  # its policy_file: the policy file read, named with its sha256
    has_categories: bool
    has_runs: bool
    has_clusters: bool
    cost_table: CostTable | None
    cost_words: CostWords | None
    ni_level: str
    method_lines: list[Line]
    # What a page cut (render/html_limits.py): the candidates detailed of how many, the summary rows left out.
    n_errored: int = 0  # cases errored on either side (the most of any candidate), counted in n_cases
    candidates_total: int = 0
    candidates_cut: int = 0
    rule_verdicts: list[Verdict] = field(default_factory=list)
    summary_cut: int = 0


@dataclass(frozen=True)
class ChartView:
    """One chart on the page: inline SVG, or (the PDF's page) an image of its name fetched when laid out."""

    name: str
    title: str
    caption: str
    svg: Markup
    image: Markup | None = None
    kind: str = ""  # a cost chart's kind: "quality" or "latency"


@dataclass(frozen=True)
class PageView:
    """What the HTML page adds to a note: its charts, its script and security policy, and its ids' prefix."""

    charts: Mapping[str, ChartView]
    cost_charts: list[ChartView]
    interactive: bool
    vega_bundle: Markup | None
    chart_specs: Mapping[str, Any]
    csp: str
    subject: str
    renderers: Mapping[str, str]
    case_columns: Callable[..., list[str]]
    anchor: str  # the ids' prefix: empty on a single-metric page
    pdf_page: bool
    metric: str = ""  # the metric of a several-metric page's section
    explorer: ExplorerView | None = None  # the page's case explorer (render/explorer_page.py); never on paper
    appendix: bool = False  # the PDF's appendix: every case listing in full, the latency histograms
