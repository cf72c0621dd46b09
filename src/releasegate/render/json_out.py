"""JSON: the whole Analysis, Verdicts and provenance; the machine interface (SPEC section 6).

Every JSON shape is written here, the optional sections' included; their sentences come from
releasegate.wording, as in the other formats. One metric: its report. Several metrics (docs/json.md,
"Several metrics"): the combined verdicts with the candidate x metric grid, and each metric's own report under
``metrics``.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from releasegate.decide.rules import detail
from releasegate.model import (
    LEFT_OUT,
    CandidateAnalysis,
    CaseChange,
    Comparison,
    CostComparison,
    CostTable,
    CriticalSection,
    ErroredCases,
    Exclusions,
    MetricSection,
    Parameters,
    Provenance,
    Rate,
    Report,
)
from releasegate.model.costs import RatioResult
from releasegate.model.sections import CASE_VIEW_LISTED
from releasegate.render.grid import GridRow, grid, section_provenance
from releasegate.render.json_text import Records
from releasegate.wording import exclusions as exclusion_words
from releasegate.wording import churn as churn_words
from releasegate.wording import judge as judge_words
from releasegate.wording import sections as words

if TYPE_CHECKING:  # made only with their input (model/axes.py)
    from releasegate.model.axes import ClusterAnalysis, ItemAxis, RunAxis

# 1.1: provenance ``loading`` (how the inputs were read), so that `releasegate verify` can rerun a note, and
# ``policy_file`` (the policy file read, with its sha256). 1.2: ``cases_file`` (past a bound the case listings
# are in a Parquet file beside the note, render/json_cases.py) and each candidate's ``cases_listed``.
SCHEMA_VERSION = "1.3"


_INPUT_FIELDS = ("path", "sha256", "rows", "format", "release")


def _clean(value: Any) -> Any:
    """JSON has no NaN or infinity: they become null."""
    if value is None or type(value) in (str, int, bool):  # most leaves: answered before the slower checks
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    if isinstance(value, Records):
        return _clean(value.as_dicts())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _clean(dataclasses.asdict(value))
    if hasattr(value, "item") and callable(value.item):  # numpy scalars
        return _clean(value.item())
    return value


def _rate(r: Rate) -> dict[str, Any]:
    return {"n": r.n, "value": r.value, "ci_low": r.ci_low, "ci_high": r.ci_high}


def comparison_dict(c: Comparison) -> dict[str, Any]:
    return {
        "n": c.n,
        "baseline_rate": c.baseline.value,
        "candidate_rate": c.candidate.value,
        "diff": c.diff,
        "ci_low": c.ci_low,
        "ci_high": c.ci_high,
        "ni_low": c.ni_low,
        "ni_high": c.ni_high,
        "fixed": c.fixed,
        "broke": c.broke,
        "both_pass": c.both_pass,
        "both_fail": c.both_fail,
        "p_value": c.p_value,
        "p_midp": c.p_midp,
        "p_one_sided": c.p_one_sided,
        "p_adjusted": c.p_adjusted,
        "p_value_adjusted": c.p_value_adjusted,
        "method": c.method,
        "degenerate": c.degenerate,
        "baseline": _rate(c.baseline),
        "candidate": _rate(c.candidate),
    }


CASE_KEYS = ("case_id", "category", "cluster", "critical", "baseline_outcome", "candidate_outcome", "metadata",
             "answers")


def _case(change: CaseChange) -> tuple[Any, ...]:
    """One case's values, in the order of CASE_KEYS."""
    metadata = dict(change.metadata) if change.metadata else {}
    # Each per-release column (output, reason, error) whole, for both sides; "metadata" is the candidate's row.
    answers = ({name: {"baseline": text, "candidate": metadata.get(name, "")} for name, text in change.baseline_texts}
               if change.baseline_texts else {})
    return (change.case_id, change.category, change.cluster, change.critical, change.baseline_outcome,
            change.candidate_outcome, metadata, answers)


def _cases(changes: Sequence[CaseChange]) -> Records:
    """A case listing: the same keys for every case, given once (render/json_text.Records)."""
    return Records(CASE_KEYS, [_case(c) for c in changes])


def case_view_json(view: Any) -> dict[str, Any]:
    """The case view (model.CaseView): cases failing on both releases and errored cases, as the broken ones."""
    return {"both_fail_total": view.both_fail_total, "both_fail": _cases(view.both_fail),
            "errored_total": view.errored_total, "errored": _cases(view.errored),
            "error_column": view.error_column, "listed_at_most": CASE_VIEW_LISTED,
            "both_fail_defined": view.both_fail_defined}


def to_json_dict(report: Report) -> dict[str, Any]:
    """The report as a JSON-ready dict, ``schema_version`` first (SPEC section 6's required keys)."""
    return _clean(_report_dict(report))


def _report_dict(report: Report, case_file: dict[str, Any] | None = None) -> dict[str, Any]:
    """The report's dict before cleaning: may hold NaN, tuples, numpy scalars and dataclasses. ``case_file``: the
    record of the case file the listings are in (render/json_cases.py); None, the note lists every case."""
    kept = case_file["listed_in_note"] if case_file else None
    if not report.several:
        return section_dict(report.sections[0], report.provenance, kept, case_file)
    return {"schema_version": SCHEMA_VERSION, "kind": "several_metrics",
            "baseline": report.sections[0].analysis.baseline, "metrics_gated": list(report.metrics),
            "ship": report.ship_all, "candidates": [_grid_row(row) for row in grid(report)],
            "cases_file": case_file,
            "metrics": {s.metric: section_dict(s, section_provenance(report, i), kept, root=False)
                        for i, s in enumerate(report.sections)}}


def _grid_row(row: GridRow) -> dict[str, Any]:
    """Per candidate: the combined verdict and each metric's verdict, difference and interval."""
    v = row.verdict
    return {"name": row.name, "verdict": v.decision.value, "headline": v.headline,
            "blocking_metrics": list(v.blocking),
            "metrics": {c.metric: {"verdict": c.decision.value, "diff": c.diff, "ci_low": c.ci_low,
                                   "ci_high": c.ci_high, "p_one_sided": c.p_one_sided, "p_adjusted": c.p_adjusted,
                                   "rules_fired": list(c.rules_fired), "binary": c.binary}
                        for c in row.cells}}


def section_dict(section: MetricSection, prov: Provenance, kept: int | None = None,
                 case_file: dict[str, Any] | None = None, root: bool = True) -> dict[str, Any]:
    """One metric's report: its analysis, its verdicts and the provenance of the run. ``kept``: each case
    listing's first cases only (the whole listings are in the case file, ``case_file`` its record, at the root
    of the note: a several-metric note's metrics have none of their own)."""
    a = section.analysis
    verdicts = {v.candidate: v for v in section.verdicts}
    candidates = []
    for cand in a.candidates:
        v = verdicts[cand.name]
        entry: dict[str, Any] = {
            "name": cand.name,
            "verdict": v.decision.value,
            "headline": v.headline,
            "reasons": [{"rule": r.rule, "message": r.message} for r in v.reasons],
            # Each rule's figures beside its sentence (docs/json.md, "reasons[] and checks[]").
            "checks": [{"rule": c.rule, "fired": c.fired, "detail": detail(c, a), "applies": c.applies,
                        "critical_rule": c.critical_rule, "figures": [dataclasses.asdict(f) for f in c.figures]}
                       for c in v.checks],
            "warnings": list(v.warnings),
            "smallest_margin_ruled_out": v.smallest_margin_ruled_out,
            "overall": comparison_dict(cand.overall),
            # With gold labels and judge_correction = "ppi": the judge's own overall comparison beside the
            # corrected one the rules read (absent otherwise).
            **({"judged": comparison_dict(cand.judged)} if cand.judged is not None else {}),
            "categories": [
                {"category": c.label, "critical": c.critical, **comparison_dict(c), "powerless": c.powerless,
                 "discordant_needed": c.discordant_needed}
                for c in cand.categories
            ],
            "broken_cases": _cases(cand.broken_cases[:kept]),
            "fixed_cases": _cases(cand.fixed_cases[:kept]),
            "excluded_cases": {"only_baseline": list(cand.exclusions.ids("only_baseline")[:kept]),
                               "only_candidate": list(cand.exclusions.ids("only_candidate")[:kept])},
            "cases_listed": {"broken_cases": len(cand.broken_cases), "fixed_cases": len(cand.fixed_cases),
                             "only_baseline": len(cand.exclusions.ids("only_baseline")),
                             "only_candidate": len(cand.exclusions.ids("only_candidate")), "in_note_at_most": kept},
            "exclusions": exclusions_json(cand.exclusions, v.excluded),
            "power": dataclasses.asdict(cand.power),
        }
        entry.update(_sections(cand, a.parameters, a.baseline))
        candidates.append(entry)
    return {
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "releasegate", "version": prov.tool_version},
        "title": prov.title,
        "generated_at": prov.generated_at,
        "command_line": prov.command_line,
        "baseline": a.baseline,
        "outcome_kind": a.outcome_kind,
        "n_cases": a.n_cases,
        "ship": section.ship_all,
        # The adapter's choices are listed only when set, so a tidy table's record keeps its five fields.
        "inputs": [{k: v for k, v in dataclasses.asdict(f).items() if v is not None or k in _INPUT_FIELDS}
                   for f in prov.inputs],
        "parameters": dataclasses.asdict(a.parameters),
        "policy": prov.policy,
        "policy_file": dataclasses.asdict(prov.policy_file) if prov.policy_file is not None else None,
        "loading": prov.loading,
        "packages": prov.packages,
        "releases": [{"name": r.name, "n_cases": r.n_cases, "is_baseline": r.is_baseline, "rate": _rate(r.rate)}
                     for r in a.releases],
        # Release-level optional sections: the per-release latency, tokens and cost table.
        **({"costs": cost_table_json(a.sections.costs, a.parameters)} if a.sections.costs is not None else {}),
        "candidates": candidates,
        # Past a bound the case listings are in a Parquet file beside the note (render/json_cases.py).
        **({"cases_file": case_file} if root else {}),
        # Releases of the data that no verdict is about: a policy's short list of candidates, the baseline rerun.
        "not_judged": [{"release": n.release, "reason": n.reason} for n in a.not_judged],
        # What the reading of the inputs left out of every comparison (absent when nothing was).
        **({"input_exclusions": [{**dataclasses.asdict(x), "examples": list(x.examples),
                                  "line": exclusion_words.input_line(x)} for x in a.excluded]} if a.excluded else {}),
        # The outcomes are an LLM judge's verdicts (an adapter says so): calibrated against gold labels or not.
        **_judge_metric(prov, a),
        "notes": list(a.notes),
    }


def _judge_metric(prov: Any, a: Any) -> dict[str, Any]:
    """``judge_metric`` (docs/json.md): present when an input says its outcomes are a judge's verdicts."""
    judges = judge_words.judge_sources(prov.inputs)
    calibrated = any(c.sections.judge is not None for c in a.candidates)
    if not judges:
        return {}
    return {"judge_metric": {"judges": judges, "calibrated": calibrated,
                             "note": judge_words.uncalibrated_note(prov.inputs, calibrated) or None}}


def _sections(cand: CandidateAnalysis, parameters: Parameters, baseline: str) -> dict[str, Any]:
    """The candidate's optional sections, by name in name order."""
    s = cand.sections
    group = s.clusters.cluster_column if s.clusters is not None else None
    writers = {
        "clusters": lambda k: cluster_json(k, parameters),
        "costs": cost_comparison_json,
        "critical": critical_json,
        "errors": errors_json,
        "item_axis": lambda i: item_axis_json(i, parameters),
        "run_axis": lambda r: run_axis_json(r, parameters, baseline, group),
        "case_view": case_view_json,
        "churn": lambda c: churn_json(c, baseline),
        "budget": dataclasses.asdict,
        "settle": lambda t: {"source": t.source, **dataclasses.asdict(t.plan), "observed_diff": t.observed_diff,
                             "observed": None if t.observed is None else dataclasses.asdict(t.observed)},
        "judge": dataclasses.asdict,  # issue 35: every figure of the judge section, by its dataclass fields
    }
    return {name: writers[name](section) for name, section in s.present().items()}


def churn_json(c: Any, baseline: str) -> dict[str, Any]:
    """The baseline's churn (docs/json.md, "churn"): overall and per category, and the fragile verdicts."""
    return {**{k: getattr(c, k) for k in ("source", "rerun", "cases", "runs_min", "runs_max", "share", "one_run")},
            "definition": churn_words.definition(c), "summary": churn_words.churn_summary(c, baseline),
            "by_category": [dataclasses.asdict(g) for g in c.by_category],
            "fragile": [dataclasses.asdict(f) for f in c.fragile]}


def exclusions_json(x: Exclusions, clause: str) -> dict[str, Any]:
    """What the comparison set apart, as the pairing decided it (docs/json.md, "exclusions"), with the clause
    every format shows beside the verdict (each reason's first case ids, as the pairing keeps them)."""
    return {"baseline_cases": x.baseline_cases, "compared": x.compared, "left_out": x.left_out,
            "pairing": x.basis, "paired_by_id_only": x.by_id_only, "clause": clause,
            "reasons": [{"reason": r.reason, "count": r.count, "left_out": r.reason in LEFT_OUT,
                         "case_ids": list(r.case_ids)} for r in x.reasons]}


def errors_json(e: ErroredCases) -> dict[str, Any]:
    """The errored cases of one comparison (docs/json.md, "errors"): counts, the paired error-rate increase
    with its interval, and the first cases with their messages."""
    r = e.rate
    return {
        "n_cases": e.n_cases, "compared": e.compared, "excluded": e.excluded,
        "counted_as_failures": e.counted_as_failures,
        # Three disjoint counts (schema 1.2; 1.1 wrote each side's total under the first two).
        "baseline_errored": e.baseline_only, "candidate_errored": e.candidate_only, "both_errored": e.both,
        "error_rate": {"baseline": r.baseline_rate, "candidate": r.candidate_rate, "increase": r.increase,
                       "ci_low": r.low, "ci_high": r.high, "confidence": r.confidence,
                       "method": "Newcombe paired (method 10) on the error indicators",
                       "p_one_sided": e.p_one_sided, "p_adjusted": e.p_adjusted,
                       "test": "exact one-sided McNemar: cases only the candidate errored on against those only "
                               "the baseline errored on"},
        "cases": [dataclasses.asdict(c) for c in e.cases],
        "cases_not_listed": e.listed_cut,
    }


_ITEM_FIGURES = ("n", "mean_diff", "sd_diff", "se", "t", "df", "p_value", "p_one_sided", "ci_low", "ci_high",
                 "signflip_p_value", "signflip_p_one_sided")


def item_axis_json(i: ItemAxis, parameters: Parameters) -> dict[str, Any]:
    return {**{k: getattr(i, k) for k in _ITEM_FIGURES}, "signflip_method": words.signflip_method(i, parameters.seed),
            "improved": i.improved, "worsened": i.worsened, "unchanged": i.unchanged,
            "worsened_rule": words.worsened_rule(i), "summary": words.item_summary(i, parameters), "warnings": []}


_RUN_FIGURES = ("runs_baseline", "runs_candidate", "runs_per_case_min", "runs_per_case_max", "per_run",
                "baseline_run_sd", "candidate_run_sd", "run_diff", "run_ci_low", "run_ci_high", "run_t", "run_df",
                "run_p_value", "run_defined", "case_diff", "case_ci_low", "case_ci_high", "case_p_value",
                "case_method", "run_decisive", "case_decisive", "disagree")


def critical_json(k: CriticalSection) -> dict[str, Any]:
    """The critical categories' own tests (issue 21): the rule, its level and each category's test."""
    return {"rule": k.rule, "alpha": k.alpha, "weight": k.weight, "tests": [dataclasses.asdict(t) for t in k.tests],
            # a critical metric: the overall test, and how many tests share critical_weight (weight = it / split)
            **({"overall": dataclasses.asdict(k.overall), "split": k.split} if k.overall is not None else {})}


def run_axis_json(r: RunAxis, parameters: Parameters, baseline: str, group: str | None) -> dict[str, Any]:
    majority = None
    if r.majority is not None:
        majority = {"rule": words.MAJORITY_RULE, **dataclasses.asdict(r.majority)}
    return {**{k: getattr(r, k) for k in _RUN_FIGURES},
            "agreement": words.run_agreement(r, parameters, baseline, group)[0], "majority": majority,
            "warnings": words.run_warnings(r, parameters, baseline, group)}


_CLUSTER_FIGURES = (
    "cluster_column", "n_cases", "n_clusters", "smallest_cluster", "median_cluster", "largest_cluster", "estimate",
    "naive_method", "naive_ci_low", "naive_ci_high", "naive_p_value", "naive_p_one_sided", "naive_se",
    "bootstrap_ci_low", "bootstrap_ci_high", "bootstrap_ni_low", "bootstrap_ni_high", "n_resamples", "seed",
    "confidence", "cr2_se", "cr2_df", "cr2_t", "cr2_p_value", "cr2_p_one_sided", "cr2_ci_low", "cr2_ci_high",
    "cr1_se", "durkalski_chi2", "durkalski_p_value", "durkalski_p_one_sided", "signflip_p_value",
    "signflip_p_one_sided", "signflip_exact", "smallest_p_two_sided", "smallest_p_one_sided", "design_effect",
    "effective_n", "width_ratio", "verdict_p_value", "verdict_p_one_sided", "clustered_ci_low", "clustered_ci_high")


def cluster_json(k: ClusterAnalysis, parameters: Parameters) -> dict[str, Any]:
    from releasegate.model.axes import COMPARISON_ONLY_P  # grouped cases only

    return {**{f: getattr(k, f) for f in _CLUSTER_FIGURES}, "verdict_method": words.cluster_verdict_method(k),
            "verdict_test": k.verdict_test, "comparison_only": list(COMPARISON_ONLY_P),
            "explanation": words.cluster_explanation(k),
            "floor": words.cluster_floor(k), "few_cluster_categories": k.few_cluster_categories,
            "warnings": words.cluster_warnings(k, parameters)}


def cost_table_json(table: CostTable, parameters: Parameters) -> dict[str, Any]:
    releases = []
    for row in table.releases:
        entry = dataclasses.asdict(row)
        entry["latency_ms"] = entry.pop("latency")
        releases.append(entry)
    return {"releases": releases, "has_latency": table.has_latency, "has_tokens": table.has_tokens,
            "has_cost": table.has_cost, "quantile_method": words.QUANTILE_METHOD,
            "interval_method": words.cost_interval_method(table, parameters),
            "histogram_edges": table.histogram_edges, "notes": words.cost_notes(table)}


def cost_comparison_json(k: CostComparison) -> dict[str, Any]:
    """SPEC section 6's ``costs.latency_ms`` keys, plus tokens, cost and the guardrail bounds."""
    bl, cl = k.baseline_latency, k.candidate_latency
    gm, p95 = k.latency_mean_ratio, k.latency_p95_ratio
    latency = None
    if bl is not None and cl is not None and gm is not None and p95 is not None:
        latency = {
            "baseline_mean": bl.mean, "candidate_mean": cl.mean, "baseline_p50": bl.p50,
            "candidate_p50": cl.p50, "baseline_p95": bl.p95, "candidate_p95": cl.p95,
            "ratio": gm.ratio, "ratio_ci_low": gm.low, "ratio_ci_high": gm.high,
            "ratio_method": "geometric mean of per-case ratios, " + gm.method,
            "p95_ratio": p95.ratio, "p95_ratio_ci_low": p95.low, "p95_ratio_ci_high": p95.high,
            "p95_ratio_method": p95.method, "n": gm.n, "excluded": gm.excluded,
        }
    return {
        "latency_ms": latency,
        "tokens": _totals_json(k.tokens_ratio, k.baseline_tokens_per_case, k.candidate_tokens_per_case),
        "cost": _totals_json(k.cost_ratio, k.baseline_cost_per_case, k.candidate_cost_per_case),
        "quantile_method": words.QUANTILE_METHOD,
        "guardrail_bounds": {name: {"estimate": v[0], "ci_low": v[1], "ci_high": v[2]}
                             for name, v in k.bounds().items()},
        "summary": words.cost_clause(k),
        "warnings": words.cost_warnings(k),
    }


def _totals_json(r: RatioResult | None, base: float, cand: float) -> dict[str, Any] | None:
    if r is None:
        return None
    return {"baseline_per_case": base, "candidate_per_case": cand, "ratio": r.ratio, "ci_low": r.low,
            "ci_high": r.high, "method": r.method, "n": r.n, "excluded": r.excluded}


def render_json(report: Report, case_file: dict[str, Any] | None = None) -> str:
    """The note's text; ``case_file`` (render/json_cases.json_files): its listings are in that file."""
    from releasegate.render.json_text import dumps_indented

    # The same text as json.dumps(to_json_dict(report), indent=2, ensure_ascii=False), in a third of the time.
    return dumps_indented(_report_dict(report, case_file), _clean) + "\n"
