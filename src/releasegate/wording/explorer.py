"""The sentences of the HTML note's case explorer: what it holds, why the unchanged cases are or are not listed,
and how many rows a very large note leaves to the JSON report. The figures come from render/explorer.py."""

from __future__ import annotations

from collections.abc import Sequence

from releasegate import fmt
from releasegate.model.cases import UNCHANGED_LISTED_UP_TO


def _cases(k: int) -> str:
    return fmt.plural(k, "case")


def json_place(case_file: bool) -> str:
    """Where the JSON report holds every case: the note itself, or past its bound (render/json_cases.py) the case
    file beside it, the note keeping each listing's first cases."""
    return "the JSON report's case file (NOTE.cases.parquet beside NOTE.json)" if case_file else "the JSON report"


def lead(rows: int, baseline: str, several_metrics: bool, unchanged_listed: bool,
         unchanged_counted: Sequence[tuple[str, int]], kept_each: int, cut: int, case_file: bool = False) -> str:
    """The explorer's first paragraph: ``rows`` in the page; ``unchanged_listed`` when every candidate's unchanged
    cases are among them, else ``unchanged_counted`` (who, how many) for those only counted; ``cut`` rows left
    to the JSON when each candidate keeps ``kept_each`` (to its case file when ``case_file``)."""
    out = [f"The cases behind the verdicts, with both releases' answers: every case that changed from {baseline} "
           f"on a candidate{', and every unchanged one' if unchanged_listed else ''}; {rows:,} "
           f"row{'s' if rows != 1 else ''}, one per case of a candidate{' and metric' if several_metrics else ''}."]
    if unchanged_listed:
        out.append(f"The unchanged cases are listed because the suite has at most {UNCHANGED_LISTED_UP_TO:,} cases.")
    elif unchanged_counted:
        where = "; ".join(f"{_cases(n)} on {who}" for who, n in unchanged_counted[:5])
        more = (f" and {fmt.plural(len(unchanged_counted) - 5, 'more candidate')}" if len(unchanged_counted) > 5
                else "")
        out.append(f"Unchanged cases are counted, not listed, above {UNCHANGED_LISTED_UP_TO:,} cases: "
                   f"{where}{more}.")
    if cut:
        first = "the first row" if kept_each == 1 else f"the first {kept_each:,} rows"
        out.append(f"To keep the page light it holds {first} of each candidate, broken cases first; "
                   f"{_cases(cut)} more are in {json_place(case_file)}.")
    return " ".join(out)
