"""What ``check`` prints on stdout: each verdict's headline and, when cases errored, the line saying how many
left the comparison (the headline names them only when they are many enough to matter)."""

from __future__ import annotations

from releasegate.model import Report
from releasegate.text import one_line
from releasegate.wording.errors import error_line


def verdict_lines(report: Report) -> list[str]:
    """One line per verdict (release names come from the input: controls shown), then its errored cases."""
    errors = {c.name: c.sections.errors for c in report.analysis.candidates}
    out = []
    for verdict in report.verdicts:
        out.append(one_line(verdict.headline))
        e = errors.get(verdict.candidate)
        if e is not None and e.excluded:
            out.append("  " + one_line(error_line(e, report.analysis.baseline, verdict.candidate)))
    return out
