"""``releasegate run CONFIG --settle``: a NOT PROVEN store settled by more runs, with plan/settle.py's two-phase
rule (issue 34 item 3).

Look 1 decides the store's runs (the config's ``runs``) at the design's first level (four fifths of the
policy's alpha). SHIP or DON'T SHIP there is final and nothing more is called. On NOT PROVEN the config's
runs are multiplied by 1 + ``extra_runs`` (the store's own cells: new run indices of the same cases and
systems, so an interrupted second phase resumes like any run), and look 2 decides on all the runs at the
second level (the last fifth); candidates look 1 settled keep look 1's verdict. No third look: a NOT PROVEN
at look 2 is final. The budget caps the second phase's calls before anything is called: the runs it adds are
as many of the design's as one run of every case on every system fits in, fixed by the design, the case
count and the budget, never by the data, so the second look's level holds whatever the budget buys.

Settle only where runs help (issue 46 item 2): when the store already holds two runs or more of every case, the
discordance of every candidate with the baseline is split before look 1 into what a rerun repeats and what it
averages away (plan.settle.runs_can_settle). When no candidate could be settled by the added runs, nothing is
called: the store is decided by one look at the policy's full alpha, as ``check STORE`` decides it, and the
line says why. With one run of each system the split cannot be measured and the two looks run as above.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from releasegate.errors import InputError
from releasegate.model import Decision
from releasegate.plan.settle import TwoPhase, runs_can_settle, settled_decision
from releasegate.run.config import RunConfig
from releasegate.stats.settle import DiscordanceSplit


@dataclass(frozen=True)
class Look:
    """One look: the runs it read, its level, each candidate's verdict and the gate's; ``policy`` the policy it
    decided under, as the report's provenance records it."""

    runs: int
    alpha: float
    verdicts: Mapping[str, Decision]
    policy: Mapping[str, Any] = dataclasses.field(default_factory=dict)

    @property
    def decision(self) -> Decision:
        return Decision.worst(self.verdicts.values())


@dataclass(frozen=True)
class Settled:
    """The two-phase outcome: look 1, look 2 (None when look 1 settled it or the budget bought no run), the
    final verdict per candidate and the gate's, the calls the budget allowed and whether it passes."""

    first: Look
    second: Look | None
    verdicts: Mapping[str, Decision]
    extra_runs: int
    budget_calls: int | None
    passes: bool

    @property
    def decision(self) -> Decision:
        return Decision.worst(self.verdicts.values())


def gate_inputs(config: RunConfig, cwd: Path) -> tuple[dict[str, Any], str, Path | None]:
    """The policy ``check STORE`` would use (releasegate.toml beside the store; never one only in ``cwd``) and
    the baseline: the policy's, else the sweep's, else the config's first system."""
    from releasegate.load.policy_file import find_policy
    from releasegate.policy import load_policy_file

    path = find_policy([config.store])
    values = load_policy_file(path) if path is not None else {}
    baseline = values.get("baseline") or config.grid_baseline or config.systems[0].name
    return values, str(baseline), path


def look(config: RunConfig, policy: Mapping[str, Any], baseline: str, alpha: float) -> tuple[Look, bool]:
    """The store's comparison at ``alpha`` (the same pipeline as ``check STORE``); and whether the policy lets
    a NOT PROVEN pass (``not_proven = "warn"``)."""
    from releasegate.api import compare

    values = {k: v for k, v in policy.items() if k not in ("baseline", "alpha")}
    result = compare(str(config.store), policy=values, baseline=baseline, alpha=alpha)
    verdicts = {v.candidate: v.decision for v in result.verdicts}
    return (Look(config.runs, alpha, verdicts, result.report.provenance.policy),
            bool(result.report.not_proven_allowed))


def extra_runs_within(design: TwoPhase, config: RunConfig, cases: int, budget: int | None) -> int:
    """The runs the second phase adds: the design's (extra_runs times the config's runs), or as many whole runs
    of every case on every system as the budget pays for."""
    wanted = design.extra_runs * config.runs
    per_run = cases * len(config.systems)
    if budget is None:
        return wanted
    return min(wanted, budget // per_run) if per_run else 0


def settle(config: RunConfig, *, budget: int | None, execute: Callable[[RunConfig], Any], cases: int,
           cwd: Path, echo: Callable[[str], None]) -> Settled | None:
    """Look 1 on the store (complete: the caller ran phase one), then, on NOT PROVEN, ``execute`` the config
    with the added runs and look 2. Returns None when the second phase left holes (run again to resume)."""
    policy, baseline, _ = gate_inputs(config, cwd)
    from releasegate.policy import make_policy

    made = make_policy(policy)
    alpha = made.alpha
    design = TwoPhase.for_alpha(alpha)
    design.check(alpha)
    forget_settled(config)  # this store is decided anew: look 1 reads it as any store
    splits = store_splits(config, baseline, made.candidates)
    if splits and not any(runs_can_settle(split, made.margin, design) for split in splits.values()):
        one, warn = look(config, policy, baseline, alpha)
        parts = "; ".join(f"{name}: {100 * s.case_part:.1f}% of cases changed for good, {100 * s.run_part:.1f}% "
                          "run-to-run" for name, s in splits.items())
        echo(f"settle: more runs cannot settle it ({parts}; more cases can): no run added, one look at alpha "
             f"{alpha:g}: {one.decision.label}")
        return record_settled(config, alpha, baseline, _settled(one, None, 0, budget, warn))
    first, warn = look(config, policy, baseline, design.first_alpha)
    echo(f"settle: look 1 ({config.runs} run(s) a case, alpha {design.first_alpha:g}): {first.decision.label}")
    if first.decision is not Decision.NOT_PROVEN:
        return record_settled(config, alpha, baseline, _settled(first, None, 0, budget, warn))
    added = extra_runs_within(design, config, cases, budget)
    per_run = cases * len(config.systems)
    if added == 0:
        echo(f"settle: the budget of {budget} call(s) cannot pay for one more run of every case ({per_run} "
             "calls): NOT PROVEN stays")
        return record_settled(config, alpha, baseline, _settled(first, None, 0, budget, warn))
    second_config = dataclasses.replace(config, runs=config.runs + added)
    echo(f"settle: {added} more run(s) of {cases} cases on {len(config.systems)} systems (at most {added * per_run} "
         f"call(s){'' if budget is None else f', budget {budget}'})")
    result = execute(second_config)
    if not result.complete:
        return None
    second, _ = look(second_config, policy, baseline, design.second_alpha)
    echo(f"settle: look 2 ({second_config.runs} run(s) a case, alpha {design.second_alpha:g}): "
         f"{second.decision.label}")
    return record_settled(second_config, alpha, baseline, _settled(first, second, added, budget, warn))


def store_splits(config: RunConfig, baseline: str, candidates: tuple[str, ...] | list[str] | None
                 ) -> dict[str, DiscordanceSplit] | None:
    """Each candidate's discordance with the baseline split into its case-level and run-to-run parts, from the
    store's runs (cases with an outcome in every run of both); None with one run a case, where it cannot be."""
    import numpy as np

    from releasegate.load.store_table import read_store
    from releasegate.stats.settle import discordance_split

    if config.runs < 2:
        return None
    table = read_store(config.store, texts=False).table
    column = "passed" if "passed" in table.columns else "score"
    wide = table.pivot_table(index="case_id", columns=["release", "run"], values=column, aggfunc="first")
    names = [s.name for s in config.systems if s.name != baseline and (not candidates or s.name in candidates)]
    out = {}
    for name in names:
        if baseline not in wide.columns.get_level_values(0) or name not in wide.columns.get_level_values(0):
            continue
        pair = wide[[baseline, name]].dropna()
        if len(pair) == 0:
            continue
        base = pair[baseline].to_numpy(np.float64).T
        cand = pair[name].to_numpy(np.float64).T
        if base.shape == cand.shape and base.shape[0] >= 2:
            out[name] = discordance_split(base, cand)
    return out or None


def forget_settled(config: RunConfig) -> None:
    """Remove the store's settled record (load/settled.py) before its looks are taken again."""
    from releasegate.load.settled import META_KEY
    from releasegate.run.store import Store

    with Store(config.store, create=False) as store:
        store.delete_meta(META_KEY)


def record_settled(config: RunConfig, alpha: float, baseline: str, settled: Settled) -> Settled:
    """Record the looks and the final verdicts in the store (meta ``settled``) with the fingerprints of the cells
    and the policy they decided, so that ``check STORE`` reads the settled decision (pipeline.settled_level)."""
    from releasegate.load.settled import (
        META_KEY,
        SettledLook,
        SettledRecord,
        pinned_values,
        policy_fingerprint,
        table_fingerprint,
    )
    from releasegate.load.store_table import read_store
    from releasegate.run.store import Store

    looks = tuple(SettledLook(one.runs, one.alpha, {name: d.value for name, d in one.verdicts.items()})
                  for one in (settled.first, settled.second) if one is not None)
    policy = {k: v for k, v in settled.first.policy.items() if k != "metric"}
    record = SettledRecord(alpha, baseline, looks, {name: d.value for name, d in settled.verdicts.items()},
                           table_fingerprint(read_store(config.store, texts=False).table),
                           policy_fingerprint(policy), pinned_values(policy))
    with Store(config.store, create=False) as store:
        store.set_meta(META_KEY, record.as_meta())
    return settled


def _settled(first: Look, second: Look | None, added: int, budget: int | None, warn: bool) -> Settled:
    verdicts = {}
    for candidate, verdict in first.verdicts.items():
        if verdict is Decision.NOT_PROVEN and second is not None:
            verdicts[candidate] = settled_decision(verdict, second.verdicts[candidate])
        else:
            verdicts[candidate] = verdict  # settled at look 1, or no second look was affordable
    final = Decision.worst(verdicts.values())
    passes = final is Decision.SHIP or (final is Decision.NOT_PROVEN and warn)
    return Settled(first, second, verdicts, added, budget, passes)


def check_settle_options(*, settle: bool, budget: int | None, dry_run: bool, only: str | None) -> None:
    if budget is not None and not settle:
        raise InputError("--settle-budget without --settle: the budget is for the calls that settle a NOT PROVEN")
    if budget is not None and budget < 0:
        raise InputError(f"--settle-budget {budget}: give a number of calls, 0 or more")
    if settle and dry_run:
        raise InputError("--settle and --dry-run together: a dry run calls nothing, so it cannot settle anything")
    if settle and only is not None:
        raise InputError("--settle and --only together: settling reruns every system, so it cannot run only one")
