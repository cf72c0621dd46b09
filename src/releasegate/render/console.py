"""What ``check`` prints on stdout: each verdict's headline and, when cases errored, the line saying how many
left the comparison (the headline names them only when they are many enough to matter); then the releases of
the data that no verdict is about, and why, and what the reading of the inputs left out of every comparison.
Every value comes from the input, so each line passes through :func:`releasegate.text.one_line` (controls
shown, one line)."""

from __future__ import annotations

from releasegate.model import Report
from releasegate.render.grid import section_provenance
from releasegate.text import one_line
from releasegate.wording.errors import error_line
from releasegate.wording.exclusions import input_line
from releasegate.wording.judge import uncalibrated_note
from releasegate.wording.judged import not_judged_lines
from releasegate.wording.verdict import headline_lines


def verdict_lines(report: Report) -> list[str]:
    """Each candidate's verdict and reason on one line (what would settle a NOT PROVEN, and the sentences after
    it, indented on lines of their own), then its errored cases on each metric (named when several); then the
    releases not judged, and what the inputs' reading left out."""
    out = []
    for verdict in report.verdicts:
        first, *following = headline_lines(one_line(verdict.headline))
        out += [first, *(f"  {line}" for line in following)]
        out += [f"  {line}" for line in errored(report, verdict.candidate)]
    return out + not_judged(report) + inputs(report) + uncalibrated(report)


def errored(report: Report, candidate: str) -> list[str]:
    """The candidate's errored cases (left out of the comparison, or counted as failures in it), a line per
    metric (named when several)."""
    out = []
    for section in report.sections:
        cand = next(c for c in section.analysis.candidates if c.name == candidate)
        e = cand.sections.errors
        if e is None or not e.excluded:
            continue
        line = one_line(error_line(e, section.analysis.baseline, candidate))
        out.append(f"{one_line(section.metric)}: {line}" if report.several else line)
    return out


def uncalibrated(report: Report) -> list[str]:
    """A judge's verdicts gated without gold labels, once per metric that is one (wording/judge.py)."""
    out = []
    for index, section in enumerate(report.sections):
        calibrated = any(c.sections.judge is not None for c in section.analysis.candidates)
        note = uncalibrated_note(section_provenance(report, index).inputs, calibrated)
        if note:
            out.append(f"uncalibrated judge{' (' + one_line(section.metric) + ')' if report.several else ''}: "
                       f"{one_line(note)}")
    return out


def not_judged(report: Report) -> list[str]:
    """The releases of the data no verdict is about, one line per reason ("not judged: r3, ..."): the same for
    every metric, so said once."""
    return [f"not judged: {one_line(line)}"
            for line in not_judged_lines(report.not_judged, [v.candidate for v in report.verdicts])]


def excluded_inputs(report: Report) -> list[str]:
    """What the reading of the inputs left out of every comparison (a table not read, a run store's cases dropped,
    rows without an outcome), a line each: said once, a metric named when only its rows are concerned."""
    return [one_line(input_line(item, metric)) for metric, item in report.excluded]


def inputs(report: Report) -> list[str]:
    """:func:`excluded_inputs` as the command prints them ("inputs: ...")."""
    return [f"inputs: {line}" for line in excluded_inputs(report)]
