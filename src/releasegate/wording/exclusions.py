"""The one clause that names what a comparison set apart, wherever its verdict is read: the headline (so the
``check`` line and the JSON), the job summary, the PR comment, page one of the HTML and PDF; and the line naming
what the reading of the inputs left out of every comparison (:func:`input_line`), said in the same places.

"60 of 300 cases left out: missing on r2"; with several reasons each is counted ("70 of 300 cases left out: 60
missing on r2, 10 errored"); cases only the candidate has, and cases whose missing runs were counted as
failures, follow ("; 5 cases only on r2, not compared"), and last the compared cases that could be paired by
their id only, when the others were paired by content ("; 2 cases paired by id only, their content not given on
both sides"). A reason is one member of
:data:`releasegate.kinds.ExclusionReason` and one phrase here.
"""

from __future__ import annotations

from releasegate import fmt
from releasegate.model import LEFT_OUT, Exclusions, InputExclusion

# What each reason's cases are, after their count ("60 missing on r2"); {candidate} is the candidate's name.
PHRASES = {
    "only_baseline": "missing on {candidate}",
    "content_changed": "content changed",
    "errored": "errored",
    "only_candidate": "only on {candidate}, not compared",
    "runs_incomplete": "with missing runs counted as failures",
}


def _cases(n: int) -> str:
    return f"{n:,} case{'' if n == 1 else 's'}"


def clause(exclusions: Exclusions, candidate: str) -> str:
    """What one comparison set apart, in one clause ("" when nothing was)."""
    left = [r for r in exclusions.reasons if r.reason in LEFT_OUT]
    parts = []
    if left:
        head = f"{exclusions.left_out:,} of {_cases(exclusions.baseline_cases)} left out"
        if len(left) == 1:
            parts.append(f"{head}: {PHRASES[left[0].reason].format(candidate=candidate)}")
        else:
            parts.append(f"{head}: " + ", ".join(f"{r.count:,} {PHRASES[r.reason].format(candidate=candidate)}"
                                                  for r in left))
    parts += [f"{_cases(r.count)} {PHRASES[r.reason].format(candidate=candidate)}"
              for r in exclusions.reasons if r.reason not in LEFT_OUT]
    # Compared, but not checked to be the same question: said wherever the verdict is read, as a case left out is.
    if exclusions.by_id_only:
        parts.append(f"{_cases(exclusions.by_id_only)} paired by id only, their content not given on both sides")
    return "; ".join(parts)


def _first(x: InputExclusion) -> str:
    """The first names, and how many more ("samples.csv", "a.csv, b.csv, c.csv and 2 more")."""
    more = x.count - len(x.examples)
    return ", ".join(x.examples) + (f" and {more:,} more" if more > 0 else "")


def input_line(x: InputExclusion, metric: str = "") -> str:
    """What the reading of the inputs left out, or counted otherwise than given, with its count, e.g. "eval-set: 1
    table not read (samples.csv): the folder is read for its harness files only"; ``metric`` names the metric
    whose rows it concerns when the others' differ."""
    of = f"{metric}: " if metric else ""
    releases = f" in {', '.join(x.examples)}" if x.examples else ""
    if x.kind == "tables_not_read":
        return (f"{x.where}: {fmt.plural(x.count, 'table')} not read ({_first(x)}): the folder is read for its "
                "harness files only")
    if x.kind == "holes_dropped":
        return (f"{fmt.plural(x.count, 'case')} dropped from the run store {x.where} (--drop-holes; "
                f"{_first(x)}): a cell of each is missing, stale or unscored")
    if x.kind == "errors_failed":
        return (f"{of}{fmt.plural(x.count, 'errored row')}{releases} counted as "
                f"{'a failure' if x.count == 1 else 'failures'} (--missing fail)")
    if x.kind == "rows_dropped":
        return f"{of}{fmt.plural(x.count, 'row')} without an outcome dropped{releases} (--missing drop)"
    return (f"{of}{fmt.plural(x.count, 'row')} without an outcome{releases} counted as "
            f"{'a failure' if x.count == 1 else 'failures'} (--missing fail)")
