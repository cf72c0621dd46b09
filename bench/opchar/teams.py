"""The grid real teams meet (issue 21 item 7): churn 5 / 10 / 17%, regressions of 2 / 3 / 5 points tilted and
added on top of the churn, one critical category of 30 / 50 / 100 cases and 8 others (9 categories in all, the
design docs/operating-characteristics.md names; issue 34 item 9), 1 and 5 runs, 10 and 40 clusters at
intra-cluster correlation 0.1 and 0.3 (declared and undeclared), every rule together and each alone, the
common gates beside them, and the new defaults beside the old ones on the same simulated releases. Each
policy's verdicts are counted apart: DON'T SHIP, NOT PROVEN (only the non-inferiority rule fired) and SHIP,
by the rule table's own verdict (plan.evaluate.verdict_of).

The releases come from ``releasegate.plan.simulate.draw_releases`` (churn measured as the share of cases whose
outcome differs between two runs of the same release); every verdict from the library's own plan and rules
(``releasegate.plan.gate.plan_gate``). 20% churn is not on the grid: with independent runs at pass rate 0.9 two
runs disagree on at most 2 p0 (1 - p0) = 18% of cases, so 17% stands for "about 20%".

One shortcut: the plan's minimum detectable drop (an exact power search, 97% of a replication's time) enters no
rule, so the study swaps it for the normal formula while it runs (``fast_power``); the first replications of
every cell are also decided with the library untouched and the run stops if any verdict or rule differs.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import dataclass, replace

import numpy as np

from releasegate.analyze import candidate as candidate_module
from releasegate.model import Decision
from releasegate.plan.evaluate import scenario_seed, verdict_of
from releasegate.plan.gate import plan_gate
from releasegate.plan.simulate import ReleaseSample, ReleaseScenario, draw_releases
from releasegate.policy import make_policy

from .gates import BASELINE, seed_axis_gate, threshold_gate, ztest_gate
from .simulate import Sample

SEED = 20261201
CHURNS = (0.05, 0.10, 0.17)
DROPS = (0.02, 0.03, 0.05)
CRITICAL_SIZES = (30, 50, 100)
CRITICAL_DROP = 0.20
CATEGORIES = 8  # non-critical categories beside the critical one: 9 in all
CLUSTERS = (10, 40)
ICCS = (0.1, 0.3)
COMMON = ("threshold", "ztest", "seed_axis")

# The policies compared on the same releases. "new" is the library's default (since issue 34: one error budget,
# critical_weight 10); "old" is the default before issue 21 (Holm; any broken critical case blocks). The other
# rows are the alternatives the defaults were chosen among.
POLICY_ARGS = {
    "new defaults": {},
    "old defaults": {"correction": "holm", "critical_rule": "any"},
    # The alternatives in the order the JSON (sort_keys) records them, so the page and its JSON agree.
    "new, critical_weight 1": {"critical_weight": 1},
    "new, critical_weight 30": {"critical_weight": 30},
    "new, margin 0.07": {"margin": 0.07},
}


def team_policies() -> dict:
    return {name: make_policy(baseline=BASELINE, **args) for name, args in POLICY_ARGS.items()}


@dataclass(frozen=True)
class TeamCell:
    """A scenario, its replications, and whether its clusters are also decided as if undeclared."""

    scenario: ReleaseScenario
    reps: int
    label: str
    undeclared: bool = False


def build_team_grid(reps: int) -> list[TeamCell]:
    """Every cell, ``reps`` replications each (a quarter in the clustered cells, whose cluster bootstrap makes
    one replication some 20 times dearer)."""
    cells: list[TeamCell] = []
    for churn in CHURNS:
        for size in CRITICAL_SIZES:
            for runs in (1, 5):
                cells.append(TeamCell(ReleaseScenario(churn=churn, critical=(size,), runs=runs,
                                                      categories=CATEGORIES), reps, "null"))
        for mode in ("tilted", "added"):
            for drop in DROPS:
                cells.append(TeamCell(ReleaseScenario(churn=churn, critical=(50,), drop=drop, mode=mode,
                                                      categories=CATEGORIES), reps, "regression"))
        for drop in DROPS:
            cells.append(TeamCell(ReleaseScenario(churn=churn, critical=(50,), drop=drop, runs=5,
                                                  categories=CATEGORIES), reps, "regression"))
    for size in CRITICAL_SIZES:
        for runs in (1, 5):
            cells.append(TeamCell(ReleaseScenario(churn=0.10, critical=(size,), critical_drop=CRITICAL_DROP,
                                                  runs=runs, categories=CATEGORIES), reps, "critical drop"))
    for groups in CLUSTERS:
        for icc in ICCS:
            for drop in (0.0, 0.05):
                cells.append(TeamCell(ReleaseScenario(churn=0.10, critical=(50,), drop=drop, clusters=groups,
                                                      icc=icc, categories=CATEGORIES), max(10, reps // 4),
                                      "clusters", undeclared=True))
    return cells


@contextmanager
def fast_power():
    """The plan's power by the normal formula while the study runs (it enters no rule)."""
    original = candidate_module.power_of

    def normal_power(*args, **kwargs):
        return original(*args, **{**kwargs, "exact": False})

    candidate_module.power_of = normal_power
    try:
        yield
    finally:
        candidate_module.power_of = original


def as_study_sample(s: ReleaseSample) -> Sample:
    """The common gates' view of a release pair (bench/opchar/gates.py): runs only when there are several."""
    several = s.base_runs.shape[0] > 1
    return Sample(s.base.astype(float), s.cand.astype(float), s.category, s.cluster,
                  s.base_runs if several else None, s.cand_runs if several else None)


def run_team_cell(cell: TeamCell, crosscheck: int = 5) -> dict:
    """One cell: per policy (and, with clusters, per declared / undeclared) the block share and each rule's
    firing share; the common gates' block shares."""
    start, cpu = time.perf_counter(), time.process_time()
    pols = team_policies()
    gates = {name: plan_gate(p) for name, p in pols.items()}
    variants = ("declared", "undeclared") if cell.undeclared else ("declared",)
    blocked = {(v, k): 0 for v in variants for k in pols}
    not_proven = dict.fromkeys(blocked, 0)
    fired: dict[tuple[str, str], dict[str, int]] = {key: {} for key in blocked}
    common = dict.fromkeys(COMMON, 0)
    seed_axis = True
    rng = np.random.default_rng(scenario_seed(SEED, cell.scenario))
    checked = 0
    for i, sample in enumerate(draw_releases(cell.scenario, cell.reps, rng)):
        views = {"declared": sample}
        if cell.undeclared:
            views["undeclared"] = replace(sample, cluster=None)
        with fast_power():
            decisions = {(v, k): gates[k](views[v]) for v in variants for k in pols}
        if i < crosscheck:
            full = gates["new defaults"](sample)
            if full != decisions[("declared", "new defaults")]:
                raise AssertionError(f"{cell.scenario.key()} replication {i}: {full} != "
                                     f"{decisions[('declared', 'new defaults')]}")
            checked += 1
        for key, rules in decisions.items():
            blocked[key] += bool(rules)
            not_proven[key] += verdict_of(rules) is Decision.NOT_PROVEN
            for rule in rules:
                fired[key][rule] = fired[key].get(rule, 0) + 1
        study = as_study_sample(sample)
        common["threshold"] += threshold_gate(study)
        common["ztest"] += ztest_gate(study)
        axis = seed_axis_gate(study)
        seed_axis = axis is not None
        common["seed_axis"] += bool(axis)
    reps = cell.reps
    sc = cell.scenario
    return {
        "key": sc.key(),
        "label": cell.label,
        "scenario": {"n": sc.n, "p0": sc.p0, "churn": sc.churn, "drop": sc.drop, "mode": sc.mode,
                     "categories": sc.categories + len(sc.critical),
                     "critical": list(sc.critical), "critical_drop": sc.critical_drop, "runs": sc.runs,
                     "clusters": sc.clusters, "icc": sc.icc},
        "reps": reps,
        "crosschecked": checked,
        "seconds": round(time.perf_counter() - start, 2),
        "cpu_seconds": round(time.process_time() - cpu, 2),
        "gates": {g: (v / reps if g != "seed_axis" or seed_axis else None) for g, v in common.items()},
        "policies": {f"{k}{'' if v == 'declared' else ', clusters undeclared'}": {
            "blocked": blocked[(v, k)] / reps,
            "dont_ship": (blocked[(v, k)] - not_proven[(v, k)]) / reps, "not_proven": not_proven[(v, k)] / reps,
            "rules": {r: c / reps for r, c in sorted(fired[(v, k)].items())}} for (v, k) in blocked},
    }


def run_team_grid(cells: list[TeamCell], workers: int = 2) -> list[dict]:
    """Every cell on ``workers`` processes (the clustered ones first: they cost most); results in order."""
    from concurrent.futures import ProcessPoolExecutor

    if workers <= 1:
        return [run_team_cell(c) for c in cells]
    order = sorted(range(len(cells)), key=lambda i: not cells[i].undeclared)
    with ProcessPoolExecutor(workers) as pool:
        futures = {i: pool.submit(run_team_cell, cells[i]) for i in order}
        return [futures[i].result() for i in range(len(cells))]


# The settle design's rows (plan/settle.py, issue 34 item 3): the two-phase rule against one look, on the
# teams' design (400 cases, one 50-case critical category and 8 others, run-to-run churn that reruns average).
SETTLE_ROWS = (("no change, 5% churn", {"churn": 0.05}), ("no change, 10% churn", {"churn": 0.10}),
               ("no change, 17% churn", {"churn": 0.17}),
               ("no change, 10% case-level change", {"churn": 0.0, "change": 0.10}),
               ("5 points added, 10% churn", {"churn": 0.10, "drop": 0.05}),
               ("3 points added, 10% churn", {"churn": 0.10, "drop": 0.03}),
               ("20 points in the critical category, 10% churn", {"churn": 0.10, "critical_drop": 0.20}))


def run_settle_row(label: str, args: dict, reps: int) -> dict:
    """One row: one look (the one-run gate at alpha) and the two-phase rule on the same design."""
    from releasegate.plan.evaluate import operating_characteristics
    from releasegate.plan.settle import two_phase_characteristics

    cpu = time.process_time()
    policy = make_policy(baseline=BASELINE)
    sc = ReleaseScenario(n=400, critical=(50,), categories=CATEGORIES, noise="reproduce", **args)
    with fast_power():
        one = operating_characteristics(plan_gate(replace(policy, guardrails={})), [sc], reps, seed=SEED)[0]
        two = two_phase_characteristics(sc, policy, reps=reps, seed=SEED)
    return {"label": label, "key": sc.key(), "reps": reps, "cpu_seconds": round(time.process_time() - cpu, 2),
            "one_look": {"dont_ship": one.dont_ship.rate, "not_proven": one.not_proven.rate},
            "settled": {"dont_ship": two.dont_ship.rate, "not_proven": two.not_proven.rate, "ship": two.ship.rate,
                        "second_look": two.second_look.rate, "mean_calls": two.mean_calls}}


def run_settle_rows(reps: int, workers: int = 2) -> list[dict]:
    from concurrent.futures import ProcessPoolExecutor

    if workers <= 1:
        return [run_settle_row(label, args, reps) for label, args in SETTLE_ROWS]
    with ProcessPoolExecutor(workers) as pool:
        futures = [pool.submit(run_settle_row, label, args, reps) for label, args in SETTLE_ROWS]
        return [f.result() for f in futures]
