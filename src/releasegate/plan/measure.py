"""A suite's design measured from its results (``releasegate plan RESULTS...``): the baseline's cases, pass
rate, category sizes (the policy's critical ones by name), runs, and churn (from a baseline rerun or the
baseline's own runs, :func:`releasegate.analyze.churn.measure_churn`; else assumed and said so)."""

from __future__ import annotations

from pathlib import Path

from releasegate.analyze.churn import measure_churn
from releasegate.analyze.errors import split_errored
from releasegate.errors import InputError
from releasegate.load.results import AdapterOptions, load_results
from releasegate.load.sources import Source
from releasegate.plan.suite import ASSUMED_CHURN, SuiteDesign
from releasegate.policy import Policy
from releasegate.validate import ValidatedResults, validate


def design_of(data: ValidatedResults, policy: Policy, churn: float | None = None) -> SuiteDesign:
    """The design of the validated suite; ``churn`` (given) wins over a measured or assumed one."""
    if data.outcome_kind != "binary":
        raise InputError("releasegate plan simulates pass/fail suites; these outcomes are scores (give "
                         "--pass-threshold to gate on pass/fail)")
    data = split_errored(data, policy)
    rows = data.table[data.table["release"] == data.baseline]
    per_case = rows.groupby("case_id", observed=True, sort=True)
    n = int(per_case.ngroups)
    p0 = float(per_case["outcome"].mean().mean())
    runs = int(per_case["outcome"].count().max())
    critical: list[tuple[str, int]] = []
    others = 1
    if data.has_categories:
        sizes = per_case["category"].first().astype(str).value_counts()
        critical = [(name, int(sizes.get(name, 0))) for name in policy.critical]
        others = max(1, int(sum(1 for name in sizes.index if name not in policy.critical)))
    if not 0 < p0 < 1:
        raise InputError(f"the baseline {data.baseline!r} passes {100 * p0:.1f}% of its cases: a suite it always "
                         "passes or always fails cannot be simulated (no room for churn or a regression)")
    measured = measure_churn(data, policy)
    if churn is not None:
        share, source = churn, "given"
    elif measured is None:
        share, source = ASSUMED_CHURN, "assumed"
    elif measured.source == "rerun":
        share, source = measured.churn.share, f"measured from the rerun {measured.rerun}"
    else:
        share, source = measured.churn.share, f"measured from {measured.churn.runs_max} runs of {data.baseline}"
    ceiling = 2 * p0 * (1 - p0)
    if share > ceiling and source == "given":
        raise InputError(f"--churn {share:g} is impossible at pass rate {p0:.3f}: two independent runs disagree "
                         f"on at most 2 p (1 - p) = {ceiling:.3f} of cases")
    if share > ceiling:
        # Independent runs at this pass rate cannot disagree more often; the measured excess is pass-rate
        # variation between the runs, which the simulation cannot reproduce.
        source += f"; capped at {100 * ceiling:.1f}%, the most independent runs at this pass rate give"
        share = ceiling
    design = SuiteDesign(n, p0, tuple(critical), others, runs, float(share), source,
                         rerun=policy.baseline_rerun is not None and runs == 1)
    try:
        design.scenario()
    except ValueError as exc:
        raise InputError(f"this suite cannot be simulated: {exc}") from None
    return design


def design_from_files(sources: list[Source], policy: Policy, cases: Path | None = None,
                      churn: float | None = None, options: AdapterOptions | None = None) -> SuiteDesign:
    """Load and validate the results as ``releasegate report`` does (``options``: its format, adapter options
    and input shapes), then measure the design."""
    loaded = load_results(sources, columns=policy.columns, cases=cases, options=options)
    return design_of(validate(loaded.table, policy, loaded.metadata_columns), policy, churn)
