"""The plain data that flows between the stages: Analysis (analyze), Verdict (decide), Report (render).

Every class is a frozen dataclass of numbers, strings and tuples, so a reader can follow one case from the CSV
to the PDF. :mod:`.core` holds the plan's own figures and a metric's verdicts, :mod:`.sections` the optional sections
(critical categories, errored cases, the case view; :mod:`.axes` the item and run axes and grouped cases, imported
only with their input), :mod:`.costs` the cost section, :mod:`.report` the Report (one section per
metric gated, one verdict per candidate). Orientation everywhere: difference = candidate -
baseline; broke = baseline pass and candidate fail; fixed = the reverse.
"""

from releasegate.model.cases import CaseChange, CaseDetails, CaseListing, ChangeByCase, case_ids
from releasegate.model.checks import Figure, RuleCheck
from releasegate.model.churn import ChurnGroup, ChurnSection, FragileComparison
from releasegate.model.core import (
    Analysis,
    CandidateAnalysis,
    CandidateSections,
    Comparison,
    Decision,
    InputFile,
    NotJudged,
    Parameters,
    PolicyFile,
    Power,
    Provenance,
    Rate,
    Reason,
    ReleaseSections,
    ReleaseSummary,
    Verdict,
)
from releasegate.model.costs import CostComparison, CostTable, ReleaseCosts
from releasegate.model.exclusions import LEFT_OUT, Excluded, Exclusions, InputExclusion
from releasegate.model.judge import JudgeRelease, JudgeSection
from releasegate.model.report import CandidateVerdict, MetricSection, Report
from releasegate.model.sections import (
    CaseView,
    CriticalScope,
    CriticalSection,
    CriticalTest,
    ErroredCase,
    ErroredCases,
)

__all__ = [
    "Analysis",
    "CandidateAnalysis",
    "CandidateSections",
    "CandidateVerdict",
    "CaseChange",
    "CaseDetails",
    "ChangeByCase",
    "CaseListing",
    "case_ids",
    "CaseView",
    "ChurnGroup",
    "ChurnSection",
    "Comparison",
    "Decision",
    "CostComparison",
    "CostTable",
    "CriticalScope",
    "CriticalSection",
    "CriticalTest",
    "ErroredCase",
    "ErroredCases",
    "Figure",
    "Excluded",
    "Exclusions",
    "InputExclusion",
    "LEFT_OUT",
    "FragileComparison",
    "InputFile",
    "NotJudged",
    "JudgeRelease",
    "JudgeSection",
    "MetricSection",
    "Parameters",
    "PolicyFile",
    "Power",
    "Provenance",
    "Rate",
    "Reason",
    "ReleaseCosts",
    "ReleaseSections",
    "ReleaseSummary",
    "Report",
    "RuleCheck",
    "Verdict",
]
