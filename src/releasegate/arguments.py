"""Command-line options -> the arguments of the library's one pipeline (pipeline.run), for report, check and
verify: the policy from its file and the flags (flags win), the reading of the inputs from the adapter and shape
flags. The command line (cli.py) only declares the options; this is what they mean."""

from __future__ import annotations

import dataclasses
import shlex
import sys
from pathlib import Path

from releasegate.load.adapters import OPTIONS as ADAPTER_OPTIONS

COLUMN_FLAGS = (
    ("case_col", "case_id"), ("release_col", "release"), ("passed_col", "passed"), ("score_col", "score"),
    ("category_col", "category"), ("cluster_col", "cluster"), ("run_col", "run"), ("latency_col", "latency_ms"),
    ("error_col", "error"),
)


def run_arguments(kw: dict, note=None) -> dict:
    """Options -> the arguments of the library's one pipeline (pipeline.run). For `verify`, ``note`` (a note read
    back, audit/notes.py) gives the policy and the reading of the inputs that its flags do not."""
    from releasegate.load.sources import parse_source
    from releasegate.pipeline import input_formats, rerun_arguments
    from releasegate.policy import load_policy_file, make_policy

    sources = [parse_source(text) for text in kw["results"]]
    policy_path = kw.get("policy_path")
    if policy_path is None and not kw.get("no_policy") and note is None:
        from releasegate.load.policy_file import find_policy, shown

        policy_path = find_policy([s.path for s in sources], Path.cwd())
        if policy_path is not None:
            # Said with the verdicts, so that a run refused for bad input prints one line.
            kw["found_policy"] = (f"policy: {shown(policy_path, Path.cwd())} (found; --policy FILE for another, "
                                  "--no-policy for none)")
    file_values = load_policy_file(policy_path) if policy_path else note.policy_values if note else {}
    columns = {canonical: kw[flag] for flag, canonical in COLUMN_FLAGS if kw.get(flag)}
    policy = make_policy(
        file_values,
        baseline=kw.get("baseline"),
        baseline_rerun=kw.get("baseline_rerun"),
        candidates=tuple(kw.get("candidates") or ()),
        critical=tuple(kw.get("critical") or ()),
        critical_rule=kw.get("critical_rule"),
        critical_alpha=kw.get("critical_alpha"),
        margin=kw.get("margin"),
        alpha=kw.get("alpha"),
        correction=kw.get("correction"),
        mcnemar=kw.get("mcnemar"),
        pass_threshold=kw.get("pass_threshold"),
        missing=kw.get("missing"),
        allow_missing=kw.get("allow_missing"),
        seed=kw.get("seed"),
        n_resamples=kw.get("n_resamples"),
        title=kw.get("title"),
        gold=kw.get("gold"),
        columns=columns,
    )
    base = rerun_arguments(note.loading if note else {})
    recorded = base["options"]
    values = {**recorded.values, **{o.name: kw[o.name] for o in ADAPTER_OPTIONS
                                    if not o.repeatable and kw.get(o.name) is not None}}
    metrics = tuple(kw.get("metric") or ()) or base["metrics"]
    input_format = kw.get("input_format") or recorded.format
    if len(metrics) == 1 and "lm-eval" in input_formats(sources, input_format):
        from releasegate.load.per_metric import lm_eval_choice

        # One lm-eval metric (NAME or NAME,FILTER) is read by the adapter alone, as a single-metric run;
        # several are gated at once, each read as it would be alone (load/per_metric.py).
        values.update(lm_eval_choice(metrics[0], values))
        metrics = ()
    options = dataclasses.replace(
        recorded, format=input_format, values=values,
        drop_holes=bool(kw.get("drop_holes")) or recorded.drop_holes, wide=bool(kw.get("wide")) or recorded.wide,
        latency_unit=kw.get("latency_unit") or recorded.latency_unit,
        release_cols=tuple(c.strip() for c in (kw.get("release_cols") or "").split(",") if c.strip())
        or recorded.release_cols)
    return {"sources": sources, "policy": policy, "cases": kw.get("cases"), "options": options,
            "command_line": "releasegate " + shlex.join(sys.argv[1:]), "metrics": metrics,
            "default_title": base["default_title"]}
