"""The context builder: one metric's section -> the plain structure every template reads (no statistics
computed here).

All formats show the same content in the same order (SPEC section 6): verdicts; summary table; rules;
per-category tables; broken cases; costs; method, parameters, warnings and provenance. The numbers stay
numbers; the templates format them with the filters of :mod:`releasegate.render.filters`. The structure is the
view models of :mod:`releasegate.render.views`.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Mapping, Sequence

from releasegate.decide.rules import RULES, detail
from releasegate.kinds import OutcomeKind
from releasegate.model import (
    Analysis,
    CandidateAnalysis,
    CaseChange,
    CostTable,
    Decision,
    MetricSection,
    Parameters,
    Provenance,
    Verdict,
)
from releasegate.model.judge import GATED_CORRECTED
from releasegate.render.answers import answer_rows, any_longer, text_columns
from releasegate.render.views import (
    CandidateView,
    CaseRows,
    CheckView,
    CostWords,
    ErroredRow,
    ErroredRows,
    Estimate,
    JudgeRow,
    JudgeView,
    NoteView,
    RuleRow,
    SummaryCosts,
    SummaryRow,
)
from releasegate.wording import checks as check_words
from releasegate.wording import churn as churn_words
from releasegate.wording import errors as error_words
from releasegate.wording import exclusions as exclusion_words
from releasegate.wording import judge as judge_words
from releasegate.wording import judged as judged_words
from releasegate.wording import plain as plain_words
from releasegate.wording import sections as section_words
from releasegate.wording import verdict as verdict_words
from releasegate.wording.method import found_policy_lines, method_lines


def _case_rows(changes: Sequence[CaseChange], limit: int | None) -> CaseRows:
    shown = changes if limit is None else changes[:limit]
    # "answers": per shown case, its per-release texts side by side with the word diff (render/answers.py).
    answers = answer_rows(shown)
    return CaseRows(list(shown), len(changes), len(changes) - len(shown), answers, any_longer(answers))


def _view_rows(cand: CandidateAnalysis, kind: str, limit: int | None) -> CaseRows:
    """The case view's "both fail" or "errored" listing (case_view.py); its total counts the unlisted too."""
    view = cand.sections.case_view
    if view is None:
        return dataclasses.replace(_case_rows((), limit), defined=False)
    rows = _case_rows(getattr(view, kind), limit)
    total = getattr(view, f"{kind}_total")
    defined = view.both_fail_defined if kind == "both_fail" else True
    return dataclasses.replace(rows, total=total, cut=total - len(rows.rows), defined=defined,
                               column=view.error_column)


def _metadata_columns(cand: CandidateAnalysis) -> list[str]:
    """The metadata shown once per case; the per-release columns are shown side by side instead."""
    for change in itertools.chain(cand.broken_cases[:1], cand.fixed_cases[:1]):
        per_release = {name for name, _ in change.baseline_texts}
        return [name for name, _ in change.metadata if name not in per_release]
    return []


def _section_words(cand: CandidateAnalysis, parameters: Parameters, baseline: str) -> dict[str, str]:
    """The sentences of the candidate's optional sections, for the templates."""
    s, out = cand.sections, {}
    group = s.clusters.cluster_column if s.clusters is not None else None
    if s.item_axis is not None:
        out["item_summary"] = section_words.item_summary(s.item_axis, parameters)
        out["worsened_rule"] = section_words.worsened_rule(s.item_axis)
    if s.run_axis is not None:
        out["run_agreement"] = section_words.run_agreement(s.run_axis, parameters, baseline, group)[0]
        out["majority_rule"] = section_words.MAJORITY_RULE
    if s.clusters is not None:
        out["cluster_explanation"] = section_words.cluster_explanation(s.clusters)
        out["cluster_verdict_method"] = section_words.cluster_verdict_method(s.clusters)
        out["cluster_floor"] = section_words.cluster_floor(s.clusters)
    if s.costs is not None:
        out["cost_clause"] = section_words.cost_clause(s.costs)
    if s.churn is not None:
        out["churn_summary"] = churn_words.churn_summary(s.churn, baseline)
    return out


def _errors(cand: CandidateAnalysis, baseline: str, limit: int | None) -> tuple[str, ErroredRows | None]:
    """The errored cases beside the verdict (a sentence, empty when none errored) and their listing."""
    e = cand.sections.errors
    if e is None or e.excluded == 0:
        return "", None
    rows = e.cases if limit is None else e.cases[:limit]
    listing = ErroredRows([ErroredRow(r, error_words.SIDE_LABELS[r.side]) for r in rows], e.excluded,
                          e.excluded - len(rows))
    return error_words.error_line(e, baseline, cand.name), listing


def _judge(cand: CandidateAnalysis, binary: bool) -> JudgeView | None:
    """The judge section's table and sentences (figures of analyze/judge.py, sentences of wording/judge.py)."""
    j = cand.sections.judge
    if j is None:
        return None
    rows = []
    for r in (j.baseline, j.candidate):
        a, k, c = r.agreement, r.agreement.kappa, r.corrected
        rows.append(JudgeRow(r.release, a.n, a.positives, a.negatives, a.defined,
                             Estimate(a.tpr.estimate, a.tpr.low, a.tpr.high),
                             Estimate(a.fpr.estimate, a.fpr.low, a.fpr.high),
                             Estimate(a.youden.estimate, a.youden.low, a.youden.high),
                             Estimate(k.estimate, k.low, k.high),
                             Estimate(r.raw_rate, r.raw_ci_low, r.raw_ci_high), Estimate(c.estimate, c.low, c.high),
                             j.corrected.defined and c.defined and not c.degenerate))
    d = j.difference
    # A degenerate corrected figure is no figure to the rules (stats.ppi.shows_no_judge_error): the table shows
    # n/a, as the sentences say, never an interval that counts none of the judge's error.
    return JudgeView(j.units, rows, *(Estimate(f.estimate, f.low, f.high) for f in (d.tpr, d.fpr, d.youden)),
                     Estimate(j.raw_diff, j.raw_ci_low, j.raw_ci_high),
                     Estimate(j.corrected.estimate, j.corrected.low, j.corrected.high),
                     d.youden.defined, j.corrected.defined and not j.corrected.degenerate,
                     judge_words.summary(j, binary), judge_words.method(j), judge_words.plan_line(j, binary),
                     j.gated == GATED_CORRECTED, judge_words.gated_line(j, binary, bool(cand.categories)),
                     judge_words.unmeasured_line(j))


def build_context(section: MetricSection, provenance: Provenance, case_limit: int | None = None,
                  category_limit: int | None = None, typographic: bool = False) -> NoteView:
    """Everything the templates need of one metric's section, in reading order. Limits cut long lists (the
    Markdown size cap). Each candidate's view (:func:`_candidate_view`), the summary table
    (:func:`_summary_rows`) and the case count (:func:`_case_count`) are made apart."""
    analysis, verdicts, prov = section.analysis, section.verdicts, provenance
    by_name = {c.name: c for c in analysis.candidates}
    binary = analysis.mcnemar_path
    # Each rule's sentence, written from the figures it compared (decide.rules.detail), in the rules' order.
    checks = {v.candidate: [CheckView(c.rule, c.fired, detail(c, analysis)) for c in v.checks] for v in verdicts}
    plain = plain_words.section_paragraphs(section)
    candidates = [_candidate_view(by_name[v.candidate], v, checks[v.candidate], analysis, plain[v.candidate],
                                  case_limit, category_limit) for v in verdicts]
    rules = [RuleRow(rule.name, rule.title, [next(c for c in checks[v.candidate] if c.rule == rule.name)
                                             for v in verdicts])
             for rule in RULES]
    cost_table = analysis.sections.costs
    # With cases on one side only (--allow-missing) each rate is read over the cases compared, as the difference
    # is, never each release over its own cases; the unpaired cases are counted apart (summary_note).
    excluded = [c for c in analysis.candidates if c.exclusions.unpaired or c.exclusions.of("content_changed")]
    paired_bases = {(c.judged_overall.baseline.n, c.judged_overall.baseline.value) for c in excluded}
    n_cases, n_errored = _case_count(analysis)
    summary_costs, cost_words = _cost_views(cost_table, analysis.parameters)
    return NoteView(
        title=prov.title,
        date=prov.generated_at[:10],
        generated_at=prov.generated_at,
        version=prov.tool_version,
        baseline=analysis.baseline,
        n_cases=n_cases,
        n_errored=n_errored,
        binary=binary,
        outcome_kind=analysis.outcome_kind,
        rate_name=section_words.rate_name(analysis.outcome_kind == OutcomeKind.BINARY),
        ship_all=section.ship_all,
        decision=section.decision,
        not_proven_allowed=prov.policy.get("not_proven") == "warn",
        verdicts=list(verdicts),
        candidates=candidates,
        summary=_summary_rows(analysis, by_name, excluded, len(paired_bases) == 1),
        summary_note=" ".join(x for x in (
            verdict_words.compared_cases_note(analysis.baseline, excluded, len(paired_bases) == 1),
            judge_words.summary_gated_note([c.name for c in analysis.candidates if c.judged is not None]))
            if x),
        summary_costs=summary_costs,
        rules=rules,
        rules_lead=check_words.rules_lead([r.name for r in RULES if r.fires == Decision.NOT_PROVEN]),
        parameters=analysis.parameters,
        notes=list(analysis.notes),
        not_judged=judged_words.not_judged_lines(analysis.not_judged, [c.name for c in analysis.candidates]),
        excluded=[exclusion_words.input_line(item) for item in analysis.excluded],
        uncalibrated=judge_words.uncalibrated_note(prov.inputs, any(c.judge for c in candidates)),
        provenance=prov,
        has_categories=analysis.has_categories,
        has_runs=analysis.has_runs,
        has_clusters=analysis.has_clusters,
        cost_table=cost_table,
        cost_words=cost_words,
        ni_level=section_words.ni_level(analysis.parameters),
        method_lines=method_lines(analysis, verdicts, typographic) + found_policy_lines(prov.policy_file),
        candidates_total=len(candidates),
        rule_verdicts=list(verdicts),
    )


def _candidate_view(cand: CandidateAnalysis, verdict: Verdict, checks: list[CheckView], analysis: Analysis,
                    plain: str, case_limit: int | None, category_limit: int | None) -> CandidateView:
    """One candidate's part of the note: its verdict and checks, its categories (cut at ``category_limit``) and
    case lists (cut at ``case_limit``), its sections and their words."""
    # Critical categories first, then by change (worst first), as a reviewer reads them.
    categories = sorted(cand.categories, key=lambda c: (not c.critical, c.diff, c.label))
    shown = categories if category_limit is None else categories[:category_limit]
    error_line, errored_cases = _errors(cand, analysis.baseline, case_limit)
    return CandidateView(
        name=cand.name,
        verdict=verdict,
        checks=checks,
        overall=cand.overall,
        categories=shown,
        categories_cut=len(categories) - len(shown),
        broken=_case_rows(cand.broken_cases, case_limit),
        fixed=_case_rows(cand.fixed_cases, case_limit),
        both_fail=_view_rows(cand, "both_fail", case_limit),
        errored=_view_rows(cand, "errored", case_limit),
        metadata_columns=_metadata_columns(cand),
        text_columns=text_columns(cand.broken_cases, cand.fixed_cases),
        exclusions=cand.exclusions,
        power=cand.power,
        sections=cand.sections,
        words=_section_words(cand, analysis.parameters, analysis.baseline),
        error_line=error_line,
        errored_cases=errored_cases,
        judge=_judge(cand, analysis.mcnemar_path),
        plain=plain,
    )


def _summary_rows(analysis: Analysis, by_name: Mapping[str, CandidateAnalysis], excluded: list[CandidateAnalysis],
                  one_paired_base: bool) -> list[SummaryRow]:
    """The summary table: each release's rate, its comparison with the baseline and (SPEC 6) its p50/p95 latency
    and cost per 1,000 cases when the data has them. A candidate with cases left out (``excluded``) shows its rate
    over the cases compared, and so does the baseline when all of them left out the same cases."""
    cost_table = analysis.sections.costs
    cost_rows = {r.name: r for r in cost_table.releases} if cost_table is not None else {}
    excluded_names = {c.name for c in excluded}
    summary = []
    for release in analysis.releases:
        cand = by_name.get(release.name)
        rate = release.rate
        if cand is not None and cand.name in excluded_names:
            rate = cand.judged_overall.candidate
        elif release.is_baseline and one_paired_base:
            rate = excluded[0].judged_overall.baseline
        # The judge's own comparison (the outcomes as given) even when the rules read a corrected one: the
        # summary's rates are the judge's; the judge section shows the corrected figures and says which is read.
        summary.append(SummaryRow(release, rate, cand.judged_overall if cand else None, cost_rows.get(release.name)))
    return summary


def _cost_views(cost_table: CostTable | None, parameters: Parameters) -> tuple[SummaryCosts, CostWords | None]:
    """Which cost columns the summary shows, and the cost section's method sentences (None without costs)."""
    shown = SummaryCosts(latency=bool(cost_table is not None and cost_table.has_latency),
                         cost=bool(cost_table is not None and cost_table.has_cost))
    if cost_table is None:
        return shown, None
    return shown, CostWords(section_words.cost_interval_method(cost_table, parameters),
                            section_words.QUANTILE_METHOD, section_words.cost_notes(cost_table))


def _case_count(analysis: Analysis) -> tuple[int, int]:
    """The cases the header counts and how many of them errored. One count of cases everywhere: with errored
    cases the header counts every case, as the banner does ("11 of 300 cases errored")."""
    errors = [c.sections.errors for c in analysis.candidates if c.sections.errors is not None]
    n_errored = max((e.excluded for e in errors), default=0)
    n_cases = max((e.n_cases for e in errors), default=analysis.n_cases) if n_errored else analysis.n_cases
    return n_cases, n_errored
