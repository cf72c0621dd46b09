"""JSON: the whole Analysis, Verdicts and provenance; the machine interface (SPEC section 6)."""

from __future__ import annotations

import dataclasses
import json
import math
from typing import Any

from releasegate.model import CaseChange, Comparison, Rate, Report

SCHEMA_VERSION = "1.0"


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


def _case(change: CaseChange) -> dict[str, Any]:
    return {
        "case_id": change.case_id,
        "category": change.category,
        "cluster": change.cluster,
        "critical": change.critical,
        "baseline_outcome": change.baseline_outcome,
        "candidate_outcome": change.candidate_outcome,
        "metadata": dict(change.metadata),
        # Each per-release column (output, reason, error) whole, for both sides; "metadata" is the candidate's row.
        "answers": {name: {"baseline": text, "candidate": dict(change.metadata).get(name, "")}
                    for name, text in change.baseline_texts},
    }


case_dict = _case  # public: the case view (case_view.py) writes its cases as the broken and fixed ones


def to_json_dict(report: Report) -> dict[str, Any]:
    """The report as a JSON-ready dict, ``schema_version`` first (SPEC section 6's required keys)."""
    a, prov = report.analysis, report.provenance
    verdicts = {v.candidate: v for v in report.verdicts}
    candidates = []
    for cand in a.candidates:
        v = verdicts[cand.name]
        entry: dict[str, Any] = {
            "name": cand.name,
            "verdict": "ship" if v.ship else "dont_ship",
            "headline": v.headline,
            "reasons": [{"rule": r.rule, "message": r.message} for r in v.reasons],
            "checks": [{"rule": c.rule, "fired": c.fired, "detail": c.detail} for c in v.checks],
            "warnings": list(v.warnings),
            "smallest_margin_ruled_out": v.smallest_margin_ruled_out,
            "overall": comparison_dict(cand.overall),
            "categories": [
                {"category": c.label, "critical": c.critical, **comparison_dict(c), "powerless": c.powerless,
                 "discordant_needed": c.discordant_needed}
                for c in cand.categories
            ],
            "broken_cases": [_case(x) for x in cand.broken_cases],
            "fixed_cases": [_case(x) for x in cand.fixed_cases],
            "excluded_cases": {"only_baseline": list(cand.exclusions.only_baseline),
                               "only_candidate": list(cand.exclusions.only_candidate)},
            "power": dataclasses.asdict(cand.power),
        }
        for name, extra in sorted(cand.extras.items()):
            entry[name] = extra.to_json() if hasattr(extra, "to_json") else extra
        candidates.append(entry)
    return _clean({
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "releasegate", "version": prov.tool_version},
        "title": prov.title,
        "generated_at": prov.generated_at,
        "command_line": prov.command_line,
        "baseline": a.baseline,
        "outcome_kind": a.outcome_kind,
        "n_cases": a.n_cases,
        "ship": report.ship_all,
        "inputs": [dataclasses.asdict(f) for f in prov.inputs],
        "parameters": dataclasses.asdict(a.parameters),
        "policy": prov.policy,
        "packages": prov.packages,
        "releases": [{"name": r.name, "n_cases": r.n_cases, "is_baseline": r.is_baseline, "rate": _rate(r.rate)}
                     for r in a.releases],
        # Release-level optional sections (e.g. "costs": the per-release latency, tokens and cost table).
        **{name: extra.to_json() if hasattr(extra, "to_json") else extra for name, extra in sorted(a.extras.items())},
        "candidates": candidates,
        "notes": list(a.notes),
    })


def render_json(report: Report) -> str:
    return json.dumps(to_json_dict(report), indent=2, ensure_ascii=False, allow_nan=False) + "\n"
