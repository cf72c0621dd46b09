"""The grid of the study, the policies compared, and one cell's replications turned into shares.

The grid is not a full factorial (4 x 2 x 3 x 7 x 2 x 3 x 2 cells would not fit in ten minutes on two cores):
a base design (400 cases, baseline pass rate 0.9, 5% of cases changing, one category, no clusters, one run)
and one-factor-at-a-time variations of it, each swept over every true difference; plus a cases x changing
share cross at no difference and at a 5-point regression, where the non-inferiority margin is chosen, and nine
categories of 2,000 cases, where the correction is.
"""

from __future__ import annotations

import time
import zlib
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace

import numpy as np

from releasegate.decide import RULE_NAMES as RULES
from releasegate.decide.rules import RULES as RULE_TABLE
from releasegate.model import Decision
from releasegate.policy import Policy, make_policy

from .gates import (
    BASELINE,
    library_fast,
    library_full,
    seed_axis_gate,
    threshold_gate,
    ztest_gate,
)
from .simulate import Design, Scenario, draw

SEED = 20260511
DELTAS = (0.02, 0.0, -0.01, -0.02, -0.03, -0.05, -0.10)
BASE = Scenario()
VARIATIONS = {
    "base": {},
    "100 cases": {"n": 100},
    "2,000 cases": {"n": 2000},
    "10,000 cases": {"n": 10_000},
    "pass rate 0.6": {"p0": 0.6},
    "2% changing": {"share": 0.02},
    "15% changing": {"share": 0.15},
    "9 categories": {"categories": 9},
    "9 categories, even": {"categories": 9, "spread": "even"},
    "20 clusters": {"clusters": 20},
    "100 clusters": {"clusters": 100},
    "5 runs": {"runs": 5},
}
CROSS_N = (100, 400, 2000, 10_000)
CROSS_SHARE = (0.02, 0.05, 0.10, 0.15)
CROSS_DELTAS = (0.0, -0.05)
# Nine categories of about 222 cases: large enough for every category test to count, and for "no correction"
# to show what it costs.
LARGE_CATEGORIES = replace(BASE, n=2000, categories=9, spread="even")
LARGE_DELTAS = (0.0, -0.01, -0.02)
COMMON_GATES = ("threshold", "ztest", "seed_axis")

ALPHAS = (0.01, 0.05, 0.10)
MARGINS = (0.0, 0.02, 0.03, 0.05, 0.10)
CORRECTIONS = ("holm", "hochberg", "bh", "bonferroni", "none")


def policies() -> dict[str, Policy]:
    """The policies compared, by name; "default" is whatever releasegate.policy.Policy defaults to."""
    out = {"default": make_policy(baseline=BASELINE)}
    for alpha in ALPHAS:
        for margin in MARGINS:
            out[f"alpha {alpha:g}, margin {margin:g}"] = make_policy(baseline=BASELINE, alpha=alpha, margin=margin)
    for correction in CORRECTIONS:
        out[f"correction {correction}"] = make_policy(baseline=BASELINE, correction=correction)
    out["mcnemar midp"] = make_policy(baseline=BASELINE, mcnemar="midp")
    out["critical k00"] = make_policy(baseline=BASELINE, critical=("k00",))
    return out


@dataclass(frozen=True)
class Cell:
    """One scenario with its replications, the policies evaluated on it and the full-path cross-check size."""

    scenario: Scenario
    reps: int
    policies: tuple[str, ...] = ("default",)
    crosscheck: int = 10
    labels: tuple[str, ...] = field(default=(), compare=False)

    def seed(self) -> np.random.Generator:
        # Seeded by the scenario itself, so a cell's figures do not move when the grid around it changes.
        return np.random.default_rng([SEED, zlib.crc32(self.scenario.key().encode())])


def _sweep_names(kind: str) -> tuple[str, ...]:
    names = policies()
    if kind == "alpha-margin":
        return ("default", *[k for k in names if k.startswith("alpha")], "mcnemar midp")
    if kind == "margin":
        return ("default", *[k for k in names if k.startswith("alpha 0.05")], "mcnemar midp")
    if kind == "correction":
        return ("default", *[k for k in names if k.startswith("correction")])
    if kind == "correction-critical":
        return (*_sweep_names("correction"), "critical k00")
    return ("default",)


# Replications per cell relative to ``reps``: more where the headline is read, fewer where one replication
# costs most (a cluster bootstrap; ten comparisons per policy), so that the whole grid runs in minutes.
SCALE = {"base": 1.5, "clusters": 0.25, "categories": 0.75}


def build_grid(reps: int, crosscheck: int = 10) -> list[Cell]:
    """Every cell of the study, with ``reps`` replications scaled by SCALE, and ``crosscheck`` replications of
    each also run through the public path."""
    cells: dict[Scenario, Cell] = {}

    def add(sc: Scenario, n_reps: int, names: tuple[str, ...], label: str) -> None:
        try:
            Design(sc)
        except ValueError:
            return  # an impossible design (e.g. a 90-point drop in one category at pass rate 0.6)
        old = cells.get(sc)
        if old is None:
            cells[sc] = Cell(sc, n_reps, names, crosscheck, labels=(label,))
        else:
            merged = tuple(dict.fromkeys((*old.policies, *names)))
            cells[sc] = replace(old, reps=max(old.reps, n_reps), policies=merged, labels=(*old.labels, label))

    sweep = {"base": "alpha-margin", "100 cases": "margin", "2,000 cases": "margin", "15% changing": "margin",
             "9 categories": "correction-critical", "9 categories, even": "correction"}
    for name, change in VARIATIONS.items():
        kind = "base" if name == "base" else "clusters" if change.get("clusters") else (
            "categories" if change.get("categories", 1) > 1 else "")
        n_reps = max(10, round(reps * SCALE.get(kind, 1.0)))
        for delta in DELTAS:
            add(replace(BASE, delta=delta, **change), n_reps, _sweep_names(sweep.get(name, "")), name)
    for n in CROSS_N:
        for share in CROSS_SHARE:
            for delta in CROSS_DELTAS:
                add(replace(BASE, n=n, share=share, delta=delta), reps, _sweep_names("margin"), "cross")
    for delta in LARGE_DELTAS:
        add(replace(LARGE_CATEGORIES, delta=delta), max(10, round(reps * SCALE["categories"])),
            _sweep_names("correction"), "large categories")
    return list(cells.values())


def run_cell(cell: Cell) -> dict:
    """All replications of one cell: per policy the share of SHIP, of each rule and of blocks without the
    non-inferiority rule; per common gate its block share; and the cross-check count."""
    start, cpu = time.perf_counter(), time.process_time()
    table = policies()
    names = cell.policies
    fired = np.zeros((len(names), len(RULES)))
    blocked = np.zeros(len(names))
    ni_only = np.zeros(len(names))
    gates = dict.fromkeys(COMMON_GATES, 0.0)
    seed_axis_applies = True
    checked = 0
    # "NOT PROVEN alone": only rules that give NOT PROVEN fired (the non-inferiority rule, the critical doubt);
    # the key keeps its name, ni_only, in the published JSON.
    not_proven = [i for i, r in enumerate(RULE_TABLE) if r.fires is Decision.NOT_PROVEN]
    blocking = [i for i, r in enumerate(RULE_TABLE) if r.fires is not Decision.NOT_PROVEN]
    for i, sample in enumerate(draw(cell.scenario, cell.reps, cell.seed())):
        decisions = library_fast(sample, [table[k] for k in names])
        if i < cell.crosscheck and names:
            full = library_full(sample, [table[names[0]]])
            if full[0] != decisions[0]:
                raise AssertionError(f"{cell.scenario.key()} replication {i}: fast path {decisions[0]} "
                                     f"!= library path {full[0]}")
            checked += 1
        for j, d in enumerate(decisions):
            fired[j] += d
            blocked[j] += any(d)
            ni_only[j] += any(d[i] for i in not_proven) and not any(d[i] for i in blocking)
        gates["threshold"] += threshold_gate(sample)
        gates["ztest"] += ztest_gate(sample)
        seed = seed_axis_gate(sample)
        seed_axis_applies = seed is not None
        gates["seed_axis"] += bool(seed)
    reps = cell.reps
    result = {
        "key": cell.scenario.key(),
        "scenario": cell.scenario.__dict__ | {"one_way": cell.scenario.one_way},
        "labels": list(cell.labels),
        "reps": reps,
        "crosschecked": checked,
        "seconds": round(time.perf_counter() - start, 2),
        "cpu_seconds": round(time.process_time() - cpu, 2),
        "gates": {g: (v / reps if (g != "seed_axis" or seed_axis_applies) else None) for g, v in gates.items()},
        "policies": {},
    }
    for j, name in enumerate(names):
        shares = {rule: fired[j, k] / reps for k, rule in enumerate(RULES)}
        result["policies"][name] = {
            "ship": 1 - blocked[j] / reps,
            "blocked": blocked[j] / reps,
            "blocked_without_ni": (blocked[j] - ni_only[j]) / reps,
            "ni_only": ni_only[j] / reps,
            "rules": shares,
        }
    return result


def run_grid(cells: list[Cell], workers: int = 2) -> list[dict]:
    """Run every cell, the costliest first, on ``workers`` processes; results in the grid's order."""
    order = sorted(range(len(cells)), key=lambda i: -_cost(cells[i]))
    results: list[dict | None] = [None] * len(cells)
    if workers <= 1:
        for i in order:
            results[i] = run_cell(cells[i])
        return results  # type: ignore[return-value]
    with ProcessPoolExecutor(workers) as pool:
        futures = {i: pool.submit(run_cell, cells[i]) for i in order}
        for i, future in futures.items():
            results[i] = future.result()
    return results  # type: ignore[return-value]


def _cost(cell: Cell) -> float:
    sc = cell.scenario
    per = 0.15 + 0.08 * sc.categories * max(1, len(cell.policies) // 4) + sc.n / 20_000
    if sc.clusters:
        per = 6.0
    elif sc.runs > 1:
        per = 0.5
    return cell.reps * per
