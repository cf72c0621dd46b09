"""A suite's design measured from its results (``releasegate plan RESULTS...``): the baseline's cases, pass
rate, category sizes (the policy's critical ones by name), runs, and churn (issue 34 item 8):

- the churn between releases, from the pair's own discordance when the results hold a candidate: per case the
  chance that one run of the baseline and one of the candidate disagree, p_b (1 - p_c) + (1 - p_b) p_c with
  p the case's share of passing runs, averaged over the cases (one run each: the share of cases that differ);
  the largest over the candidates. Without a candidate, from a rerun or the baseline's runs (no case-level
  change then seen), else assumed and said so;
- its run-to-run part, from a baseline rerun or the baseline's own runs
  (:func:`releasegate.analyze.churn.measure_churn`); unknown otherwise, and then all the churn is simulated as
  case-level change, which runs do not average away."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from releasegate.analyze.churn import measure_churn
from releasegate.analyze.errors import split_errored
from releasegate.errors import InputError
from releasegate.kinds import OutcomeKind
from releasegate.load.results import AdapterOptions
from releasegate.load.sources import Source
from releasegate.plan.suite import ASSUMED_CHURN, SuiteDesign
from releasegate.policy import Policy
from releasegate.validate import ValidatedResults


def _pair_churn(data: ValidatedResults, per_case) -> tuple[float, str] | None:
    """The largest between-release discordance over the candidates, and the candidate's name."""
    base = per_case["outcome"].mean()
    best = None
    for release in data.candidates:
        if release == data.baseline:
            continue
        rows = data.table[data.table["release"] == release]
        cand = rows.groupby("case_id", observed=True, sort=True)["outcome"].mean()
        both = base.index.intersection(cand.index)
        if len(both) == 0:
            continue
        pb, pc = base.reindex(both).to_numpy(float), cand.reindex(both).to_numpy(float)
        share = float(np.mean(pb * (1 - pc) + (1 - pb) * pc))
        if best is None or share > best[0]:
            best = (share, release)
    return best


def design_of(data: ValidatedResults, policy: Policy, churn: float | None = None,
              run_churn: float | None = None) -> SuiteDesign:
    """The design of the validated suite; ``churn`` and ``run_churn`` (given) win over measured or assumed
    ones."""
    if data.outcome_kind != OutcomeKind.BINARY:
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
    run_share, run_source = None, ""
    if run_churn is not None:
        run_share, run_source = float(run_churn), "given"
    elif measured is not None and measured.source == "rerun":
        run_share, run_source = measured.churn.share, f"measured from the rerun {measured.rerun}"
    elif measured is not None:
        run_share, run_source = measured.churn.share, f"measured from {measured.churn.runs_max} runs of {data.baseline}"
    pair = _pair_churn(data, per_case)
    if churn is not None:
        share, source = churn, "given"
    elif pair is not None:
        share, source = pair[0], f"measured between {data.baseline} and {pair[1]}"
    elif run_share is not None:
        share, source = run_share, run_source + " (no candidate: no case-level change seen)"
    else:
        share, source = ASSUMED_CHURN, "assumed"
    ceiling = 2 * min(p0, 1 - p0)
    if share > ceiling and source == "given":
        raise InputError(f"--churn {share:g} is impossible at pass rate {p0:.3f}: one run of each release can "
                         f"disagree on at most 2 min(p, 1 - p) = {ceiling:.3f} of cases when nothing changed")
    if share > ceiling:
        source += f"; capped at {100 * ceiling:.1f}%, the most a harmless candidate can differ at this pass rate"
        share = ceiling
    if run_share is not None and run_share > share and source != "given":
        # Two runs of the baseline disagreeing more than the baseline and the candidate do is luck of the pair:
        # the churn is at least the run-to-run churn.
        share, source = run_share, f"{source}; raised to the run-to-run churn, {run_source}"
    if run_share is not None:
        run_ceiling = min(share, 2 * p0 * (1 - p0))
        if run_share > run_ceiling and run_source == "given":
            raise InputError(f"--run-churn {run_share:g} is impossible: at most the churn between releases and "
                             f"2 p (1 - p) = {2 * p0 * (1 - p0):.3f} at pass rate {p0:.3f}")
        if run_share > run_ceiling:
            run_source += f"; capped at {100 * run_ceiling:.1f}%"
            run_share = run_ceiling
    design = SuiteDesign(n, p0, tuple(critical), others, runs, float(share), source,
                         rerun=policy.baseline_rerun is not None and runs == 1,
                         run_churn=None if run_share is None else float(run_share), run_churn_source=run_source)
    try:
        design.scenario()
    except ValueError as exc:
        raise InputError(f"this suite cannot be simulated: {exc}") from None
    return design


def design_from_files(sources: list[Source], policy: Policy, cases: Path | None = None,
                      churn: float | None = None, options: AdapterOptions | None = None,
                      run_churn: float | None = None, metrics: tuple[str, ...] = ()) -> SuiteDesign:
    """Load and validate the results as ``releasegate report`` does (``options``: its format, adapter options
    and input shapes; ``metrics``: at most one, the metric simulated), then measure the design."""
    import dataclasses

    from releasegate.load.per_metric import load_gated
    from releasegate.validate.metric_tables import metric_tables

    # The policy's [metrics.NAME] tables of other metrics are the gate's business, not this simulation's.
    policy = dataclasses.replace(policy, metrics={k: v for k, v in policy.metrics.items() if k in metrics})
    loaded = load_gated(sources, columns=policy.columns, cases=cases, options=options, metrics=metrics)
    (table,) = metric_tables(loaded.table, loaded.metadata_columns, policy, loaded.metrics)
    return design_of(table.data, table.policy, churn, run_churn)
