"""How much of a large report the HTML (and so the PDF) lays out; the JSON keeps everything.

400 releases took WeasyPrint 3 minutes and 2.4 GB (a rules table 400 columns wide, 400 sections of cases);
every renderer must handle every size validation admits. Past these limits a list is cut, worst first, and
the page says how many more there are and where they are (the JSON).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from releasegate.render.views import CandidateView, NoteView, SummaryRow

MAX_DETAILED_CANDIDATES = 20  # verdict cards, rule columns, category tables and case tables
MAX_CATEGORY_ROWS = 100  # per candidate
MAX_CASE_ROWS = 200  # broken (and fixed) cases per candidate
MAX_SUMMARY_ROWS = 200  # releases in the summary table


def _worst_first(candidate: CandidateView) -> tuple[Any, ...]:
    diff = candidate.overall.diff
    return (candidate.verdict.ship, diff if isinstance(diff, (int, float)) and math.isfinite(diff) else math.inf,
            candidate.name)


def limit_context(context: NoteView, max_candidates: int = MAX_DETAILED_CANDIDATES) -> NoteView:
    """Cut the view of :func:`releasegate.render.context.build_context` to what a page can lay out
    (``max_candidates`` detailed: a several-metric page shares the limit among its metrics)."""
    candidates, rules = context.candidates, context.rules
    cut = 0
    if len(candidates) > max_candidates:
        keep = {c.name for c in sorted(candidates, key=_worst_first)[:max_candidates]}
        index = [i for i, c in enumerate(candidates) if c.name in keep]
        candidates = [candidates[i] for i in index]
        cut = len(context.candidates) - len(index)
        rules = [dataclasses.replace(rule, checks=[rule.checks[i] for i in index]) for rule in rules]
    summary = context.summary
    if len(summary) > MAX_SUMMARY_ROWS:
        detailed = {c.name for c in candidates}
        # The baseline and the detailed candidates first, then the rest worst first (DON'T SHIP, largest drop).
        ship = {v.candidate: v.ship for v in context.verdicts}

        def rank(row: SummaryRow) -> tuple[Any, ...]:
            name, overall = row.release.name, row.overall
            diff = overall.diff if overall is not None and math.isfinite(overall.diff) else math.inf
            return (not row.release.is_baseline, name not in detailed, ship.get(name, True), diff)

        keep_rows = {id(row) for row in sorted(summary, key=rank)[:MAX_SUMMARY_ROWS]}
        summary = [row for row in summary if id(row) in keep_rows]
    return dataclasses.replace(context, candidates=candidates, rules=rules, candidates_total=len(context.candidates),
                               candidates_cut=cut, rule_verdicts=[c.verdict for c in candidates], summary=summary,
                               summary_cut=len(context.summary) - len(summary))


def shared_limits(n_metrics: int) -> tuple[int, int, int]:
    """The case rows (per list), category rows and detailed candidates of each metric's section when a page holds
    ``n_metrics``: one report's limits shared among them, with a floor, so that three metrics lay out about as
    much as one and each section still shows its worst cases."""
    n = max(1, n_metrics)
    return (max(MAX_CASE_ROWS // n, 10), max(MAX_CATEGORY_ROWS // n, 5), max(MAX_DETAILED_CANDIDATES // n, 1))
