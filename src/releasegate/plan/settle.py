"""Settling a NOT PROVEN by rerunning (issue 34 item 3), as pure functions: a two-phase design with its alpha
spent over the two looks, and its operating characteristics on simulated releases. ``releasegate run CONFIG
--settle`` (run/settle.py) applies the same rule to a run store; this is the rule and its measurement.

The rule. Look 1: one run of every case on both releases, decided with the policy at level ``first_alpha``
(the one error budget and the non-inferiority interval, 1 - 2 first_alpha). SHIP and DON'T SHIP stop there.
NOT PROVEN: ``extra_runs`` more runs of every case on both releases, and look 2 decides on all the runs at
level ``second_alpha``; its verdict is final (a NOT PROVEN there stays NOT PROVEN).

Its error rates hold by Bonferroni over the two looks (alpha spending with two looks, the simplest spending
function; Lan & DeMets 1983 give the general form): a release that changes nothing is told DON'T SHIP at look 1
with probability at most first_alpha and at look 2 at most second_alpha, so at most first_alpha + second_alpha
= alpha overall; a candidate worse by the margin ships at look 1 at most first_alpha of the time and at look 2
at most second_alpha. No look's level is raised by the other look: the second look only ever sees releases the
first could not settle, and its test is valid at its own level on all the data. More runs settle run-to-run
noise; they cannot settle case-level change (a rerun repeats what the candidate changed), which only more cases
can (stats.settle).

Settle only where runs help (issue 46 item 2). With two runs or more of every case already in hand, the
discordance is split before look 1 into the part a rerun repeats and the part it averages away
(:func:`releasegate.stats.settle.discordance_split`; nothing in it reads which way the changed cases went). When
the design's added runs could not give an 80% chance of showing non-inferiority at look 2's level even with the
run-to-run part gone (:func:`runs_can_settle`), no run is added: the release is decided by one look at the full
alpha, as ``check`` decides it, so nothing is spent and NOT PROVEN is not raised. The choice is made from the
split alone, before any verdict, so each branch keeps its own error rates: one look at alpha, or the two looks'
first_alpha + second_alpha = alpha. With one run of each release the split cannot be measured, and the design
runs as before.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from releasegate.model import Decision
from releasegate.plan.evaluate import Rate, rate_of, verdict_of
from releasegate.plan.gate import plan_gate
from releasegate.plan.simulate import ReleaseSample, ReleaseScenario, draw_releases
from releasegate.policy import Policy
from releasegate.stats.settle import DiscordanceSplit, discordance_split, settle_noninferiority


@dataclass(frozen=True)
class TwoPhase:
    """The design: levels of the two looks (they sum to the policy's alpha) and the runs added on a NOT
    PROVEN."""

    first_alpha: float = 0.04
    second_alpha: float = 0.01
    extra_runs: int = 4

    def check(self, alpha: float) -> None:
        if not (0 < self.first_alpha < 0.5 and 0 < self.second_alpha < 0.5 and self.extra_runs >= 1):
            raise ValueError("both looks need a level in (0, 0.5) and the second at least one more run")
        if self.first_alpha + self.second_alpha > alpha + 1e-12:
            raise ValueError(f"the looks spend {self.first_alpha + self.second_alpha:g}, more than alpha {alpha:g}")

    @classmethod
    def for_alpha(cls, alpha: float, extra_runs: int = 4) -> TwoPhase:
        """The design at a policy's alpha: four fifths of it at look 1 and one fifth at look 2 (0.04 and 0.01
        at the default 0.05, the levels docs/operating-characteristics.md measured)."""
        return cls(first_alpha=alpha * 0.8, second_alpha=alpha * 0.2, extra_runs=extra_runs)


def settled_decision(first: Decision, second: Decision | None) -> Decision:
    """The two-phase rule on verdicts: look 1's SHIP or DON'T SHIP is final; its NOT PROVEN takes look 2's
    verdict (which may stay NOT PROVEN). Look 2 is never consulted when look 1 settled the release."""
    if first is not Decision.NOT_PROVEN:
        return first
    if second is None:
        raise ValueError("look 1 was NOT PROVEN: look 2's verdict is needed")
    return second


def settled_verdict(first: Sequence[str], second: Sequence[str] | None) -> tuple[Decision, int]:
    """The verdict of the two-phase rule from the rules fired at look 1 and (when look 1 was NOT PROVEN) at
    look 2, and the number of looks taken."""
    verdict = verdict_of(first)
    if verdict is not Decision.NOT_PROVEN:
        return verdict, 1
    if second is None:
        raise ValueError("look 1 was NOT PROVEN: look 2's rules are needed")
    return settled_decision(verdict, verdict_of(second)), 2


def first_run(sample: ReleaseSample, runs: int = 1) -> ReleaseSample:
    """Look 1's data: the first ``runs`` runs of each release (and of the rerun)."""
    rerun = None if sample.rerun_runs is None else sample.rerun_runs[:runs]
    return replace(sample, base_runs=sample.base_runs[:runs], cand_runs=sample.cand_runs[:runs], rerun_runs=rerun)


def runs_can_settle(split: DiscordanceSplit, margin: float, design: TwoPhase, target: float = 0.8) -> bool:
    """Whether the design's added runs can settle the non-inferiority question on these cases: the runs of every
    case that give a ``target`` chance at look 2's level (stats.settle, the variance c + r / R of the split) exist
    and are at most what look 2 will hold. False when the case-level part alone is too wide, and with the
    margin off (nothing to settle)."""
    if not 0 < margin < 1 or split.n < 1:
        return False
    run_share = min(1.0, max(0.0, split.run_part))
    plan = settle_noninferiority(split.n, max(0.0, split.total), margin, design.second_alpha, runs=split.runs,
                                 run_share=run_share, targets=(target,))
    needed = plan.runs_needed[0]
    return needed is not None and needed <= split.runs * (1 + design.extra_runs)


@dataclass(frozen=True)
class TwoPhaseRates:
    """The final verdicts' shares, how often look 2 was taken, and the mean calls relative to one run of each
    release (1 + the share that went to look 2 times the extra runs)."""

    scenario: ReleaseScenario
    ship: Rate
    dont_ship: Rate
    not_proven: Rate
    second_look: Rate  # the share NOT PROVEN at look 1 where runs could settle it
    mean_calls: float
    one_look: Rate | None = None  # with several runs: the share decided by one look at alpha (runs cannot help)
    # The same releases decided by one look at alpha on look 1's runs, as check decides them: the paired
    # comparison of what settling changed.
    single_dont_ship: Rate | None = None
    single_not_proven: Rate | None = None


def two_phase_characteristics(scenario: ReleaseScenario, policy: Policy, design: TwoPhase = TwoPhase(),
                              reps: int = 300, seed: int = 20261201) -> TwoPhaseRates:
    """The two-phase rule on ``reps`` seeded releases of ``scenario`` (its ``runs`` are look 1's; drawn with
    runs x (1 + extra_runs); look 1 reads the first). With two runs or more, a release whose split says runs
    cannot settle it is decided by one look at the policy's alpha (module docstring). Cost guardrails are left
    out, as in the plan (simulated releases have no costs)."""
    design.check(policy.alpha)
    runs = scenario.runs
    drawn = replace(scenario, runs=runs * (1 + design.extra_runs))
    base = replace(policy, guardrails={}, prices={})
    one = plan_gate(base)
    look1 = plan_gate(replace(base, alpha=design.first_alpha))
    look2 = plan_gate(replace(base, alpha=design.second_alpha))
    rng = np.random.default_rng((int(seed), zlib.crc32(drawn.key().encode())))
    counts = dict.fromkeys(Decision, 0)
    single = dict.fromkeys(Decision, 0)
    second = alone = 0
    for sample in draw_releases(drawn, reps, rng):
        first = first_run(sample, runs)
        one_verdict = verdict_of(one(first))
        single[one_verdict] += 1
        if runs > 1 and not runs_can_settle(discordance_split(first.base_runs, first.cand_runs), policy.margin,
                                            design):
            counts[one_verdict] += 1
            alone += 1
            continue
        fired = look1(first)
        verdict, looks = settled_verdict(fired, look2(sample) if verdict_of(fired) is Decision.NOT_PROVEN else None)
        counts[verdict] += 1
        second += looks == 2
    mean_calls = 1 + design.extra_runs * second / reps
    return TwoPhaseRates(scenario, rate_of(counts[Decision.SHIP], reps), rate_of(counts[Decision.DONT_SHIP], reps),
                         rate_of(counts[Decision.NOT_PROVEN], reps), rate_of(second, reps), mean_calls,
                         rate_of(alone, reps) if runs > 1 else None, rate_of(single[Decision.DONT_SHIP], reps),
                         rate_of(single[Decision.NOT_PROVEN], reps))
