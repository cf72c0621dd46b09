"""What ``check`` prints on stdout: each verdict's headline and, when cases errored, the line saying how many
left the comparison (the headline names them only when they are many enough to matter); then the releases of
the data that no verdict is about, and why."""

from __future__ import annotations

from releasegate.model import MetricsReport, Report
from releasegate.text import one_line
from releasegate.wording.errors import error_line
from releasegate.wording.judged import not_judged_lines


def verdict_lines(report: Report | MetricsReport) -> list[str]:
    """One line per verdict (release names come from the input: controls shown), then its errored cases; with
    several metrics, the combined verdict, then each metric's errored cases."""
    if isinstance(report, MetricsReport):
        out = []
        for i, verdict in enumerate(report.verdicts):
            out.append(one_line(verdict.headline))
            for metric, single in zip(report.metrics, report.reports):
                out += [f"  {metric}: {line.strip()}" for line in verdict_lines(_one(single, i))[1:]]
        return out + not_judged(report)
    errors = {c.name: c.sections.errors for c in report.analysis.candidates}
    out = []
    for verdict in report.verdicts:
        out.append(one_line(verdict.headline))
        e = errors.get(verdict.candidate)
        if e is not None and e.excluded:
            out.append("  " + one_line(error_line(e, report.analysis.baseline, verdict.candidate)))
    return out + not_judged(report)


def not_judged(report: Report | MetricsReport) -> list[str]:
    """The releases of the data no verdict is about, one line per reason ("not judged: r3, ...")."""
    a = (report.reports[0] if isinstance(report, MetricsReport) else report).analysis
    return [f"not judged: {one_line(line)}"
            for line in not_judged_lines(a.not_judged, [c.name for c in a.candidates])]


def _one(report: Report, i: int) -> Report:
    """The report of its i-th candidate only (for its error line)."""
    import dataclasses

    analysis = dataclasses.replace(report.analysis, candidates=(report.analysis.candidates[i],), not_judged=())
    return dataclasses.replace(report, analysis=analysis, verdicts=(report.verdicts[i],))
