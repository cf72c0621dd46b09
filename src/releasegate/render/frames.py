"""DataFrames of a Report for notebooks: the comparisons (``ReleaseComparison.to_frame``), the cases of one
kind with both releases' answers (``ReleaseComparison.cases``), each row naming its metric, and the rows of the
HTML note's case explorer for a search and filters (``ReleaseComparison.cases(search=...)``).

Nothing is computed here: every value is a field of the analysis, laid out as columns.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from releasegate.model import CandidateAnalysis, CaseChange, MetricSection, Report

if TYPE_CHECKING:
    import pandas as pd

CASE_KINDS = ("broken", "fixed", "both_fail", "errored")

# What the p-value columns of to_frame() are; kept beside the frame as frame.attrs["columns"].
COLUMN_NOTES = {
    "p_value": "two-sided p of the comparison (McNemar exact, or paired t for scores), unadjusted",
    "p_one_sided": "one-sided p that the candidate is worse, unadjusted",
    "p_adjusted": "p_one_sided adjusted over the candidate's family (overall + every category): what the gate reads",
    "p_value_adjusted": "p_value adjusted over the same family, for a two-sided reading; the gate does not use it",
    "latency_p95_ratio": "candidate / baseline p95 latency (with its interval: the guardrail reads the upper bound)",
    "latency_mean_ratio": "geometric mean of per-case latency ratios",
    "cost_ratio": "candidate / baseline cost of the shared cases",
    "tokens_ratio": "candidate / baseline input + output tokens",
}


def comparisons_frame(report: Report) -> pd.DataFrame:
    """One row per metric, candidate and comparison (overall, then each category), with the candidate's cost and
    latency ratios (and intervals) on its rows when the data has costs; ``attrs["columns"]`` says what the
    p-value and ratio columns are."""
    import pandas as pd

    from releasegate.render.json_out import comparison_dict

    rows = []
    for section in report.sections:
        for cand in section.analysis.candidates:
            costs = cost_columns(section, cand.name)
            for comparison in (cand.overall, *cand.categories):
                figures = comparison_dict(comparison)
                del figures["baseline"], figures["candidate"]  # nested rates; their values are already columns
                rows.append({"candidate": cand.name, "metric": section.metric, "comparison": comparison.label,
                             **figures, "critical": comparison.critical, "powerless": comparison.powerless, **costs})
    frame = pd.DataFrame(rows)
    frame.attrs["columns"] = {k: v for k, v in COLUMN_NOTES.items() if k in frame.columns}
    return frame


def cases_frame(report: Report, kind: str = "broken", candidate: str | None = None,
                metric: str | None = None) -> pd.DataFrame:
    """One row per case of ``kind`` ("broken", "fixed", "both_fail" or "errored") of every candidate (or of
    ``candidate``) on every metric (or on ``metric``): ids, category, both outcomes, the case's metadata, and,
    for each per-release column (the output, the grader's reason), the baseline's and the candidate's text in
    columns named ``"<column> (<release>)"`` (with several candidates in the frame, the candidate's is
    ``"<column> (candidate)"``, so that no column is empty on another candidate's rows). Outcomes read "pass" and
    "fail" on the pass/fail path (numbers for rates over runs and scores), "errored" for the errored side of an
    errored case; a column no row has a value in is left out."""
    import pandas as pd

    kind = kind.replace(" ", "_").replace("-", "_")
    if kind not in CASE_KINDS:
        raise ValueError(f"unknown kind of case {kind!r}; use one of {', '.join(CASE_KINDS)}")
    names = [v.candidate for v in report.verdicts]
    if candidate is not None and candidate not in names:
        raise KeyError(f"no candidate {candidate!r}; candidates: {', '.join(names)}")
    sections = report.sections if metric is None else (report.section(metric),)
    rows = []
    for section in sections:
        baseline = section.analysis.baseline
        # Pass/fail with one run reads as "pass"/"fail", not 1.0/0.0; a rate over runs or a score stays a number.
        words = section.analysis.mcnemar_path
        for cand in section.analysis.candidates:
            if candidate is not None and cand.name != candidate:
                continue
            view = cand.sections.case_view
            error_column = (view.error_column or "error") if kind == "errored" and view is not None else None
            for change in _changes(cand, kind):
                rows.append(_row(change, baseline, cand.name, section.metric, words, error_column))
    if len({row["candidate"] for row in rows}) > 1:  # one column per role, not per candidate: no half-empty ones
        rows = [{_candidate_column(k, row["candidate"]): v for k, v in row.items()} for row in rows]
    columns = ["candidate", "metric", "case_id", "category", "cluster", "critical", "baseline_outcome",
               "candidate_outcome"]
    if not rows:
        return pd.DataFrame(columns=columns)
    frame = pd.DataFrame(rows)
    # A column no case of these has a value in (no clusters, an error column of cases that did not error) is
    # left out: half-NaN frames read as missing data. The identity and outcome columns always stay.
    empty = [c for c in frame.columns if c not in columns[:3] and c not in columns[-2:]
             and frame[c].map(lambda v: v is None or v == "" or (isinstance(v, float) and v != v)).all()]
    return frame.drop(columns=empty)


def explorer_frame(report: Report, search: str = "", candidate: str | None = None, category: str | None = None,
                   change: str | None = None, metric: str | None = None, sort: str = "note") -> pd.DataFrame:
    """The rows the HTML note's case explorer shows for these filters (render/explorer_query.py), in its order:
    one per case of a candidate on a metric, with its change ("broken", "fixed", "worsened", "improved",
    "errored", "unchanged"), both outcomes, the score, latency and cost changes (candidate - baseline), the
    case's metadata and each per-release text as ``"<column> (baseline)"`` and ``"<column> (candidate)"``."""
    import pandas as pd

    from releasegate.render.explorer import build_explorer
    from releasegate.render.explorer_query import Filters, select

    chosen = select(build_explorer(report), Filters(search or "", candidate, category, change, metric, sort))
    rows = []
    for r in chosen:
        c = r.case
        row = {"candidate": r.candidate, "metric": r.metric, "case_id": c.case_id, "category": c.category,
               "critical": c.critical, "change": r.change, "baseline_outcome": c.baseline_outcome,
               "candidate_outcome": c.candidate_outcome, "score_change": r.score_change,
               "latency_change": r.latency_change, "cost_change": r.cost_change, **dict(r.metadata)}
        for column, base, cand in r.texts:
            row[f"{column} (baseline)"], row[f"{column} (candidate)"] = base, cand
        rows.append(row)
    columns = ["candidate", "metric", "case_id", "category", "critical", "change", "baseline_outcome",
               "candidate_outcome", "score_change", "latency_change", "cost_change"]
    return pd.DataFrame(rows) if rows else pd.DataFrame(columns=columns)


def _changes(cand: CandidateAnalysis, kind: str) -> tuple[CaseChange, ...]:
    if kind == "broken":
        return cand.broken_cases
    if kind == "fixed":
        return cand.fixed_cases
    view = cand.sections.case_view
    return getattr(view, kind) if view is not None else ()


def _candidate_column(name: str, candidate: str) -> str:
    suffix = f" ({candidate})"
    return name.removesuffix(suffix) + " (candidate)" if name.endswith(suffix) else name


def _outcome(value: float, words: bool, errored: bool) -> Any:
    """A case's outcome as the notebook shows it: "pass"/"fail" on the pass/fail path, "errored" for the side
    of an errored case that errored (it has no outcome), else the number."""
    if errored:
        return "errored"
    if value != value:  # NaN: no outcome kept (the other side of an errored case)
        return None
    if words and value in (0.0, 1.0):
        return "pass" if value == 1.0 else "fail"
    return value


def _row(change: CaseChange, baseline: str, candidate: str, metric: str, words: bool = False,
         error_column: str | None = None) -> dict[str, Any]:
    per_release = dict(change.baseline_texts)
    # An errored case (``error_column`` given): each side that holds an error text errored.
    errored_base = bool(error_column and per_release.get(error_column))
    errored_cand = bool(error_column and dict(change.metadata).get(error_column))
    row: dict[str, Any] = {"candidate": candidate, "metric": metric, "case_id": change.case_id,
                           "category": change.category,
                           "cluster": change.cluster, "critical": change.critical,
                           "baseline_outcome": _outcome(change.baseline_outcome, words, errored_base),
                           "candidate_outcome": _outcome(change.candidate_outcome, words, errored_cand)}
    for name, value in change.metadata:
        if name in per_release:
            row[f"{name} ({baseline})"] = per_release[name]
            row[f"{name} ({candidate})"] = value
        else:
            row[name] = value
    return row


def cost_columns(section: MetricSection, candidate: str) -> dict[str, float]:
    """The candidate's cost and latency ratios with their intervals, as flat columns (empty without costs)."""
    for cand in section.analysis.candidates:
        if cand.name != candidate:
            continue
        costs = cand.sections.costs
        if costs is None:
            return {}
        out: dict[str, float] = {}
        for name in ("latency_p95_ratio", "latency_mean_ratio", "cost_ratio", "tokens_ratio"):
            ratio = getattr(costs, name)
            if ratio is not None:
                out[name], out[f"{name}_ci_low"], out[f"{name}_ci_high"] = ratio.ratio, ratio.low, ratio.high
        out["baseline_cost_per_case"] = costs.baseline_cost_per_case
        out["candidate_cost_per_case"] = costs.candidate_cost_per_case
        return out
    return {}
