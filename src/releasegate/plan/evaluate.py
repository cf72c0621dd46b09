"""A gate's operating characteristics on simulated releases: how often it blocks, and which rules fire.

A gate is any callable ``gate(sample) -> tuple of fired rule names`` (empty = SHIP). For each scenario of a
grid the gate runs on ``reps`` seeded replications (``releasegate.plan.simulate.draw_releases``); each
replication is DON'T SHIP when a rule that shows the candidate worse fires, NOT PROVEN when only rules that
cannot settle it fire (``not_non_inferior``, ``critical_doubt``, ``judge_unreliable``: the rule table's
``fires``), SHIP otherwise. The block
rate (DON'T SHIP or NOT PROVEN) is a false-block rate when the scenario changes nothing
(``drop == critical_drop == 0``) and a detection rate otherwise. Every rate comes with its Monte Carlo
standard error sqrt(r (1 - r) / reps).
"""

from __future__ import annotations

import math
import zlib
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from releasegate.decide.rules import decision_of
from releasegate.model import Decision
from releasegate.plan.simulate import ReleaseSample, ReleaseScenario, draw_releases

Gate = Callable[[ReleaseSample], Sequence[str]]


def verdict_of(rules: Sequence[str]) -> Decision:
    """DON'T SHIP, NOT PROVEN or SHIP from the rules that fired: the rule table's own verdict of each
    (decide.rules.decision_of, the one the notes give), so the plan's three outcomes are the gate's."""
    return decision_of(rules)


@dataclass(frozen=True, slots=True)
class Rate:
    """A share of replications with its Monte Carlo standard error."""

    rate: float
    se: float
    count: int
    reps: int


def rate_of(count: int, reps: int) -> Rate:
    r = count / reps if reps else math.nan
    return Rate(r, math.sqrt(r * (1 - r) / reps) if reps else math.nan, int(count), int(reps))


@dataclass(frozen=True, slots=True)
class CellRates:
    """One scenario's result: the block rate and each rule's firing rate (rules sorted by name)."""

    scenario: ReleaseScenario
    block: Rate
    by_rule: tuple[tuple[str, Rate], ...]
    dont_ship: Rate | None = None
    not_proven: Rate | None = None

    @property
    def changes_nothing(self) -> bool:
        return self.scenario.drop == 0 and self.scenario.critical_drop == 0

    @property
    def kind(self) -> str:
        return "false blocks" if self.changes_nothing else "detection"


def scenario_seed(seed: int, scenario: ReleaseScenario) -> int:
    """A seed per scenario from the grid seed and the scenario's key: a cell's result does not depend on
    which other cells the grid holds, nor on their order."""
    return (int(seed) * 1_000_003 + zlib.crc32(scenario.key().encode())) % 2**63


def operating_characteristics(gate: Gate, scenarios: Iterable[ReleaseScenario], reps: int = 1000,
                              seed: int = 20261201,
                              progress: Callable[[int, int], None] | None = None) -> list[CellRates]:
    """Run ``gate`` on ``reps`` replications of every scenario; ``progress(done, total)`` after each cell."""
    if reps < 1:
        raise ValueError("reps must be at least 1")
    grid = list(scenarios)
    out = []
    for i, sc in enumerate(grid):
        rng = np.random.default_rng(scenario_seed(seed, sc))
        verdicts: Counter[Decision] = Counter()
        fired: Counter[str] = Counter()
        for sample in draw_releases(sc, reps, rng):
            rules = tuple(gate(sample))
            verdicts[verdict_of(rules)] += 1
            fired.update(set(rules))
        out.append(CellRates(sc, rate_of(reps - verdicts[Decision.SHIP], reps),
                             tuple((name, rate_of(fired[name], reps)) for name in sorted(fired)),
                             rate_of(verdicts[Decision.DONT_SHIP], reps), rate_of(verdicts[Decision.NOT_PROVEN], reps)))
        if progress is not None:
            progress(i + 1, len(grid))
    return out
