"""The plain data that flows between the stages: Analysis (analyze), Verdict (decide), Report (render).

Every class is a frozen dataclass of numbers, strings and tuples, so a reader can follow one case from the CSV
to the PDF. :mod:`.core` holds the plan's own figures, :mod:`.sections` the optional sections (item axis, run
axis, grouped cases), :mod:`.costs` the cost section. Orientation everywhere: difference = candidate -
baseline; broke = baseline pass and candidate fail; fixed = the reverse.
"""

from releasegate.model.churn import ChurnGroup, ChurnSection, FragileComparison
from releasegate.model.core import (
    Analysis,
    CandidateAnalysis,
    CandidateSections,
    CaseChange,
    Comparison,
    Exclusions,
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
    Report,
    RuleCheck,
    Verdict,
)
from releasegate.model.costs import CostComparison, CostTable, ReleaseCosts
from releasegate.model.judge import JudgeRelease, JudgeSection
from releasegate.model.metrics import MetricsReport, MetricsVerdict
from releasegate.model.sections import (
    CaseView,
    ClusterAnalysis,
    CriticalSection,
    CriticalTest,
    ErroredCase,
    ErroredCases,
    ItemAxis,
    MajorityMcNemar,
    RunAxis,
    RunRate,
)

__all__ = [
    "Analysis",
    "CandidateAnalysis",
    "CandidateSections",
    "CaseChange",
    "CaseView",
    "ChurnGroup",
    "ChurnSection",
    "ClusterAnalysis",
    "Comparison",
    "CostComparison",
    "CostTable",
    "CriticalSection",
    "CriticalTest",
    "ErroredCase",
    "ErroredCases",
    "Exclusions",
    "FragileComparison",
    "InputFile",
    "NotJudged",
    "ItemAxis",
    "JudgeRelease",
    "JudgeSection",
    "MajorityMcNemar",
    "MetricsReport",
    "MetricsVerdict",
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
    "RunAxis",
    "RunRate",
    "Verdict",
]
