"""What ``check`` prints on stdout: each verdict's headline and, when cases errored, the line saying how many
left the comparison (the headline names them only when they are many enough to matter)."""

from __future__ import annotations

from releasegate.model import MetricsReport, Report
from releasegate.text import one_line
from releasegate.wording.errors import error_line


def verdict_lines(report: Report | MetricsReport) -> list[str]:
    """One line per verdict (release names come from the input: controls shown), then its errored cases; with
    several metrics, the combined verdict, then each metric's errored cases."""
    if isinstance(report, MetricsReport):
        out = []
        for i, verdict in enumerate(report.verdicts):
            out.append(one_line(verdict.headline))
            for metric, single in zip(report.metrics, report.reports):
                out += [f"  {metric}: {line.strip()}" for line in verdict_lines(_one(single, i))[1:]]
        return out
    errors = {c.name: c.sections.errors for c in report.analysis.candidates}
    out = []
    for verdict in report.verdicts:
        out.append(one_line(verdict.headline))
        e = errors.get(verdict.candidate)
        if e is not None and e.excluded:
            out.append("  " + one_line(error_line(e, report.analysis.baseline, verdict.candidate)))
    return out


def _one(report: Report, i: int) -> Report:
    """The report of its i-th candidate only (for its error line)."""
    import dataclasses

    analysis = dataclasses.replace(report.analysis, candidates=(report.analysis.candidates[i],))
    return dataclasses.replace(report, analysis=analysis, verdicts=(report.verdicts[i],))
