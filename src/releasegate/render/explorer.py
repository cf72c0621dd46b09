"""The case explorer of the HTML note: every listed case of every candidate as one row, for the page's script to
search, filter and open, and for ``note.cases(search=...)`` to filter the same way (render/explorer_query.py).

A row is one case of one candidate on one metric: the broken and fixed cases (worsened and improved for scores,
every one the analysis lists), the errored ones (as far as the case view lists them), and the unchanged ones when
the candidate has at most :data:`releasegate.model.cases.UNCHANGED_LISTED_UP_TO` paired cases. Each (metric,
candidate) keeps its first :data:`MAX_ROWS` / (metrics x candidates) rows in the note's order (broken first,
critical categories and the largest changes first); the rest are counted, and the JSON report lists them.

:func:`explorer_data` is the plain value the page carries: every text once in a string table, each row a list.
Text is cut at :data:`releasegate.render.answers.WHOLE` characters and shows its control characters as codes
(text.visible), as the rest of the page does; :func:`shown` is that one rule. The word diff of both answers is
drawn by the script when a case is opened, by render/answers.py's method and parameters (difflib's
SequenceMatcher over words without its junk heuristic, short matches absorbed, unmarked below ALIKE or above
DIFF_WORDS), ported to JavaScript: computed here it cost 0.8 ms a case, 5 s of a 6,000-case note, for answers
most readers never open (tests/render/test_explorer_browser.py checks the two draw the same marks).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from releasegate import fmt
from releasegate.model import CaseChange, MetricSection, Report
from releasegate.render import json_cases
from releasegate.render.json_cases import listed_count
from releasegate.render.answers import ALIKE, DIFF_WORDS, MIN_MATCH, WHOLE
from releasegate.text import visible
from releasegate.wording import explorer as explorer_words

# Measured (bench/explorer.py, bench/RESULTS.md): answers of 40-120 words take 1.9 kB a row as JSON and 0.67 kB
# compressed in base64, so 30,000 rows reach the page's 16 MiB of data (render/explorer_page.py); a search
# over 24,600 rows took 0.09-0.4 s in Chromium on a loaded machine, its own work 0.02-0.07 s.
MAX_ROWS = 30_000
CHANGES = {True: ("broken", "fixed", "errored", "unchanged"), False: ("worsened", "improved", "errored", "unchanged")}
INPUT_COLUMNS = ("input", "prompt", "question", "query")
REFERENCE_COLUMNS = ("target", "expected", "reference", "ideal", "expected_output", "answer")


def shown(text: str | None) -> str:
    """A text as the explorer shows and searches it: its first :data:`WHOLE` characters ("…" after a cut),
    controls and bidirectional overrides as codes."""
    if not text:
        return ""
    return visible(text if len(text) <= WHOLE else text[:WHOLE] + "…")


@dataclass(frozen=True)
class ExplorerRow:
    """One case of one candidate on one metric, as the explorer lists it."""

    metric: str
    candidate: str
    change: str  # one of CHANGES
    case: CaseChange
    binary: bool  # the metric's outcomes are pass/fail with one run
    latency_change: float  # candidate - baseline, ms; NaN when either side has none
    cost_change: float
    error_column: str | None = None  # the case view's error column: an errored side shows "errored"

    @property
    def score_change(self) -> float:
        return self.case.candidate_outcome - self.case.baseline_outcome

    @property
    def texts(self) -> list[tuple[str, str, str]]:
        """(column, baseline's text, candidate's text) of each per-release column (output, grader's reason)."""
        candidate = dict(self.case.metadata)
        return [(column, base, candidate.get(column, "")) for column, base in self.case.baseline_texts]

    @property
    def metadata(self) -> list[tuple[str, str]]:
        """The case's other columns (input, reference, difficulty), shown once."""
        per_release = {column for column, _ in self.case.baseline_texts}
        return [(name, value) for name, value in self.case.metadata if name not in per_release]

    def searched(self) -> list[str]:
        """Every text a search reads, as shown: case id, category, metadata, both releases' texts."""
        return [shown(t) for t in (self.case.case_id, self.case.category or "", *(v for _, v in self.metadata),
                                   *(x for _, b, c in self.texts for x in (b, c)))]


@dataclass(frozen=True)
class Listed:
    """What one (metric, candidate) holds: rows kept, rows cut, and the unchanged cases and whether listed."""

    metric: str
    candidate: str
    kept: int
    cut: int
    unchanged_total: int
    unchanged_listed: bool


@dataclass(frozen=True)
class Explorer:
    """Every row of the page's explorer and the choices its selects offer."""

    baseline: str
    metrics: tuple[str, ...]
    binary: tuple[bool, ...]  # per metric
    candidates: tuple[str, ...]
    categories: tuple[str, ...]  # sorted as shown
    changes: tuple[str, ...]
    rows: tuple[ExplorerRow, ...]
    listed: tuple[Listed, ...]
    case_file: bool = False  # the JSON report moves its listings to its case file (render/json_cases.py)

    @property
    def lead(self) -> str:
        several = len(self.metrics) > 1
        counted = [(x.candidate + (f" ({x.metric})" if several else ""), x.unchanged_total) for x in self.listed
                   if not x.unchanged_listed and x.unchanged_total]
        cut = [x for x in self.listed if x.cut]
        return explorer_words.lead(len(self.rows), self.baseline, several,
                                   bool(self.listed) and all(x.unchanged_listed for x in self.listed), counted,
                                   cut[0].kept if cut else 0, sum(x.cut for x in cut), self.case_file)


def build_explorer(report: Report, max_rows: int = MAX_ROWS) -> Explorer:
    """Every row of the explorer, in the note's order: metric by metric, candidate by candidate (the verdicts'
    order), broken, fixed, errored, then unchanged."""
    pairs = [(section, name) for section in report.sections for name in (v.candidate for v in section.verdicts)]
    share = max(1, max_rows // max(1, len(pairs)))
    rows: list[ExplorerRow] = []
    listed: list[Listed] = []
    for section, name in pairs:
        cand_rows, unchanged_total, unchanged_listed = _candidate_rows(section, name)
        rows.extend(cand_rows[:share])
        listed.append(Listed(section.metric, name, min(share, len(cand_rows)), max(0, len(cand_rows) - share),
                             unchanged_total, unchanged_listed))
    binary = tuple(s.analysis.mcnemar_path for s in report.sections)
    changes = tuple(dict.fromkeys(c for b in dict.fromkeys(binary) for c in CHANGES[b]))
    categories = tuple(sorted({shown(r.case.category) for r in rows if r.case.category}))
    return Explorer(report.sections[0].analysis.baseline, report.metrics, binary,
                    tuple(dict.fromkeys(name for _, name in pairs)), categories, changes, tuple(rows), tuple(listed),
                    listed_count(report) > json_cases.CASES_IN_NOTE)


def _candidate_rows(section: MetricSection, name: str) -> tuple[list[ExplorerRow], int, bool]:
    cand = next(c for c in section.analysis.candidates if c.name == name)
    binary = section.analysis.mcnemar_path
    worse, better, errored, same = CHANGES[binary]
    details = cand.details
    view = cand.sections.case_view
    lists = [(worse, cand.broken_cases), (better, cand.fixed_cases),
             (errored, view.errored if view is not None else ()),
             (same, details.unchanged if details is not None else ())]
    latency = details.latency_change if details is not None else {}
    cost = details.cost_change if details is not None else {}
    seen: set[str] = set()
    rows = []
    for change, listing in lists:
        for case in listing:
            if case.case_id in seen:  # an errored case counted as a failure (--missing fail) is listed as broken
                continue
            seen.add(case.case_id)
            rows.append(ExplorerRow(section.metric, name, change, case, binary, latency.get(case.case_id, math.nan),
                                    cost.get(case.case_id, math.nan), view.error_column if view else None))
    unchanged_total = details.unchanged_total if details is not None else 0
    return rows, unchanged_total, details is not None and len(details.unchanged) == unchanged_total


# --------------------------------------------------------------------------------------------------------
# the page's data


def explorer_data(explorer: Explorer) -> dict[str, Any]:
    """The plain value the page's script reads (templates/explorer.js): every string once in ``strings``, each
    row a list of numbers and string indices (``fields`` names them)."""
    strings: dict[str, int] = {}

    def s(text: str | None) -> int:
        return strings.setdefault(shown(text), len(strings))

    meta_columns = list(dict.fromkeys(name for r in explorer.rows for name, _ in r.metadata))
    text_columns = list(dict.fromkeys(column for r in explorer.rows for column, _, _ in r.texts))
    metric_at = {m: i for i, m in enumerate(explorer.metrics)}
    candidate_at = {c: i for i, c in enumerate(explorer.candidates)}
    category_at = {c: i for i, c in enumerate(explorer.categories)}
    change_at = {c: i for i, c in enumerate(explorer.changes)}
    rows = []
    for r in explorer.rows:
        case, meta, texts = r.case, dict(r.metadata), {column: (b, c) for column, b, c in r.texts}
        answers = [[s(texts[column][0]), s(texts[column][1])] if column in texts else None
                   for column in text_columns]
        rows.append([
            metric_at[r.metric], candidate_at[r.candidate], s(case.case_id),
            category_at.get(shown(case.category), -1) if case.category else -1, case.critical,
            change_at[r.change], r.score_change, r.latency_change, r.cost_change,
            s(_outcome(case.baseline_outcome, r.binary, r, baseline=True)),
            s(_outcome(case.candidate_outcome, r.binary, r, baseline=False)),
            s(_signed_change(r)), s(_latency(r.latency_change)), s(_cost(r.cost_change)),
            [s(meta[c]) if c in meta else -1 for c in meta_columns], answers,
        ])
    return {
        "version": 1,
        "baseline": explorer.baseline,
        "metrics": [{"name": m, "binary": b} for m, b in zip(explorer.metrics, explorer.binary)],
        "candidates": list(explorer.candidates),
        "categories": list(explorer.categories),
        "changes": list(explorer.changes),
        "columns": {"meta": meta_columns, "texts": text_columns,
                    "input": next((c for c in meta_columns if c.lower() in INPUT_COLUMNS), None),
                    "reference": next((c for c in meta_columns if c.lower() in REFERENCE_COLUMNS), None)},
        "fields": list(ROW_FIELDS),
        "diff": {"words": DIFF_WORDS, "alike": ALIKE, "min_match": MIN_MATCH},
        "strings": list(strings),
        "rows": rows,
    }


ROW_FIELDS = ("metric", "candidate", "case_id", "category", "critical", "change", "score_change", "latency_change",
              "cost_change", "baseline_outcome", "candidate_outcome", "score_change_text", "latency_change_text",
              "cost_change_text", "metadata", "answers")


def _outcome(value: float, binary: bool, row: ExplorerRow, *, baseline: bool) -> str:
    """A side's outcome as the row shows it: pass/fail (pass/fail with one run), the score, or "errored"."""
    if value != value:  # no outcome: the side errored, or the case left the comparison on the other side
        texts = dict(row.case.baseline_texts) if baseline else dict(row.case.metadata)
        return "errored" if row.error_column and texts.get(row.error_column, "").strip() else "–"
    if binary and value in (0.0, 1.0):
        return "pass" if value == 1.0 else "fail"
    return fmt.number(value)


def _signed_change(row: ExplorerRow) -> str:
    d = row.score_change
    if d != d:
        return ""
    return fmt.signed(d, 0 if row.binary else 3)


def _latency(x: float) -> str:
    return f"{fmt.signed(x, 0)} ms" if x == x else ""


def _cost(x: float) -> str:
    if x != x:
        return ""
    return f"{'-' if x < 0 else '+'}{fmt.money(abs(x), 5)}"
