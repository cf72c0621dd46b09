"""``releasegate plan``: options -> a design (measured from results, or from counts) -> the plan, printed
(and written with ``-o`` as JSON, Markdown or HTML: plan/outputs.py). The command line only parses the options and calls :func:`plan_command`."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

from releasegate.errors import InputError
from releasegate.plan.outputs import check_outputs, write_outputs
from releasegate.plan.suite import (
    SuiteDesign,
    SuitePlan,
    design_from_counts,
    plan_dict,
    plan_lines,
    plan_suite,
)
from releasegate.load.results import AdapterOptions
from releasegate.policy import Policy, make_policy

COUNT_OPTIONS = ("n_cases", "pass_rate", "critical_sizes", "categories", "runs")


def _sizes(texts: Sequence[str]) -> tuple[tuple[str, int], ...]:
    out = []
    for text in texts:
        name, sep, size = str(text).rpartition("=")
        if not sep or not name or not size.strip().isdigit() or int(size) < 1:
            raise InputError(f"--critical-size takes NAME=CASES with CASES a whole number >= 1, got {text!r}")
        out.append((name, int(size)))
    return tuple(out)


def design_for(results: tuple[str, ...], kw: dict[str, Any], policy: Policy, options: AdapterOptions | None = None,
               metrics: tuple[str, ...] = ()) -> SuiteDesign:
    """The design from the results (read with ``options`` and ``metrics``, as report reads them; counts refused
    beside them) or from the counts alone."""
    churn, run_churn = kw.get("churn"), kw.get("run_churn")
    for flag, value in (("--churn", churn), ("--run-churn", run_churn)):
        if value is not None and not 0 <= value < 1:
            raise InputError(f"{flag} must be a share in [0, 1), got {value:g}")
    counts = [k for k in COUNT_OPTIONS if kw.get(k) not in (None, ())]
    if results:
        if counts:
            raise InputError(f"--{counts[0].replace('_', '-')} describes a suite without results; give RESULTS "
                             "or counts, not both")
        from releasegate.load.sources import parse_source
        from releasegate.plan.measure import design_from_files

        return design_from_files([parse_source(r) for r in results], policy, kw.get("cases"), churn, options,
                                 run_churn, metrics)
    if kw.get("n_cases") is None:
        raise InputError("releasegate plan needs RESULTS (files as for report) or --n-cases N")
    try:
        return design_from_counts(kw["n_cases"], pass_rate=0.9 if kw.get("pass_rate") is None else kw["pass_rate"],
                                  critical=_sizes(kw.get("critical_sizes") or ()),
                                  categories=kw.get("categories") or 1, runs=kw.get("runs") or 1, churn=churn,
                                  run_churn=run_churn)
    except ValueError as exc:
        raise InputError(f"this suite cannot be simulated: {exc}") from None


def _progress_bar(stream: TextIO) -> Callable[[int, int], None] | None:
    """A one-line bar redrawn in place, only when ``stream`` is a terminal (logs and pipes stay clean)."""
    if not stream.isatty():
        return None

    def show(done: int, total: int) -> None:
        width = 30
        filled = round(width * done / total) if total else width
        stream.write(f"\rsimulating [{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
        if done >= total:
            stream.write("\n")
        stream.flush()

    return show


def write_json(plan: SuitePlan, path: Path, inputs: list[Path | None]) -> None:
    """The plan as JSON, written whole or not at all (a temporary file renamed into place)."""
    write_outputs([path], plan_lines(plan), plan_dict(plan), inputs)


def _gold(results: tuple[str, ...], kw: dict[str, Any], echo: Callable[[str], None], policy: Policy,
          options: AdapterOptions | None, metrics: tuple[str, ...], inputs: list[Path | None]) -> int:
    """``--gold``: the gold-label plan of every candidate (plan/gold.py) instead of the simulation."""
    from releasegate.load.sources import parse_source
    from releasegate.pipeline import run
    from releasegate.plan.gold import gold_plan_dict, gold_plan_lines, gold_plans

    if policy.gold is None:
        raise InputError("--gold-width plans the gold labels: give the labels so far with --gold FILE")
    if not results:
        raise InputError("releasegate plan --gold needs RESULTS: the judge's agreement is measured on them")
    report = run([parse_source(r) for r in results], policy, cases=kw.get("cases"), options=options,
                 metrics=metrics)
    plans = gold_plans(report, kw.get("gold_width"))
    for line in gold_plan_lines(plans):
        echo(line)
    outputs = list(kw.get("output") or ())
    if outputs:
        write_outputs(outputs, gold_plan_lines(plans), gold_plan_dict(plans), [*inputs, Path(policy.gold)])
    return 0


def plan_command(results: tuple[str, ...], kw: dict[str, Any], echo: Callable[[str], None], *,
                 policy: Policy | None = None, options: AdapterOptions | None = None,
                 metrics: tuple[str, ...] = (), **_: object) -> int:
    """Run ``releasegate plan``; 0 when it answered (bad input raises InputError: one line, exit 2). ``policy``
    and ``options`` are the command line's, read as report reads them (cli.read_inputs)."""
    replications = kw.get("replications")
    if replications is None or replications < 1:
        raise InputError(f"--replications must be at least 1, got {replications}")
    if len(metrics) > 1:
        raise InputError("releasegate plan simulates one pass/fail outcome, not --metric's several: name the one "
                         "to simulate with one --metric (a column, an Inspect scorer, an lm-eval metric)")
    from releasegate.load.sources import parse_source

    inputs = [parse_source(r).path for r in results] + [kw.get("cases"), kw.get("policy_path")]
    outputs = list(kw.get("output") or ())
    check_outputs(outputs, inputs)
    policy = policy if policy is not None else make_policy({})
    if kw.get("gold") is not None or kw.get("gold_width") is not None:
        return _gold(results, kw, echo, policy, options, metrics, inputs)
    design = design_for(results, kw, policy, options, metrics)
    plan = plan_suite(design, policy, replications=replications, seed=kw.get("seed"),
                      progress=_progress_bar(sys.stderr))
    for line in plan_lines(plan):
        echo(line)
    if outputs:
        write_outputs(outputs, plan_lines(plan), plan_dict(plan), inputs)
    return 0
