"""DataFrames of a Report for notebooks: the comparisons (``ReleaseComparison.to_frame``) and the cases of one
kind with both releases' answers (``ReleaseComparison.cases``), each row naming its metric.

Nothing is computed here: every value is a field of the analysis, laid out as columns.
"""

from __future__ import annotations

from typing import Any

from releasegate.model import CaseChange, MetricSection, Report

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


def comparisons_frame(report: Report):
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


def cases_frame(report: Report, kind: str = "broken", candidate: str | None = None, metric: str | None = None):
    """One row per case of ``kind`` ("broken", "fixed", "both_fail" or "errored") of every candidate (or of
    ``candidate``) on every metric (or on ``metric``): ids, category, both outcomes, the case's metadata, and,
    for each per-release column (the output, the grader's reason), the baseline's and the candidate's text in
    columns named ``"<column> (<release>)"``."""
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
        for cand in section.analysis.candidates:
            if candidate is not None and cand.name != candidate:
                continue
            for change in _changes(cand, kind):
                rows.append(_row(change, baseline, cand.name, section.metric))
    columns = ["candidate", "metric", "case_id", "category", "cluster", "critical", "baseline_outcome",
               "candidate_outcome"]
    frame = pd.DataFrame(rows)
    return frame if rows else pd.DataFrame(columns=columns)


def _changes(cand, kind: str) -> tuple[CaseChange, ...]:
    if kind == "broken":
        return cand.broken_cases
    if kind == "fixed":
        return cand.fixed_cases
    view = cand.sections.case_view
    return getattr(view, kind) if view is not None else ()


def _row(change: CaseChange, baseline: str, candidate: str, metric: str) -> dict[str, Any]:
    per_release = dict(change.baseline_texts)
    row: dict[str, Any] = {"candidate": candidate, "metric": metric, "case_id": change.case_id,
                           "category": change.category,
                           "cluster": change.cluster, "critical": change.critical,
                           "baseline_outcome": change.baseline_outcome, "candidate_outcome": change.candidate_outcome}
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
                out[name], out[f"{name}_ci_low"], out[f"{name}_ci_high"] = ratio.ratio, ratio.ci_low, ratio.ci_high
        out["baseline_cost_per_case"] = costs.baseline_cost_per_case
        out["candidate_cost_per_case"] = costs.candidate_cost_per_case
        return out
    return {}
