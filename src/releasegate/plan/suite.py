"""``releasegate plan``: the gate's own plan and rules (plan/gate.py) on simulated releases like one suite.

A :class:`SuiteDesign` describes the suite (cases, baseline pass rate, critical categories and their sizes,
other categories, runs, churn and whether a baseline rerun is given); :func:`plan_suite` answers, on seeded
replications of releases drawn by :func:`releasegate.plan.simulate.draw_releases` (churn as the share of
cases whose outcome differs between one run of the baseline and one of a harmless candidate, made of
run-to-run noise, which more runs average away, and case-level change, which they do not; a regression added
on top of the churn), each release DON'T SHIP, NOT PROVEN or SHIP (plan.evaluate.verdict_of):

- how often the gate says DON'T SHIP, NOT PROVEN and SHIP to a release that changes nothing;
- how often it catches a 2-, 3- and 5-point drop of the overall pass rate;
- how often it catches a 20-point drop in each critical category (the rest of the suite unchanged);
- the smallest suite, scaled from this one (every category in proportion), at which a 3-point drop is caught
  80% of the time with at most 5% false blocks, both measured on the same number of replications.

Every rate carries its Monte Carlo standard error. The non-critical categories are simulated as equal blocks
of the cases outside the critical ones (their number as in the suite); cost guardrails are not simulated
(the samples have no latency or tokens). Measuring the design from the data is :mod:`releasegate.plan.measure`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from releasegate.errors import InputError
from releasegate.plan.defaults import DEFAULT_REPLICATIONS, DEFAULT_SEED
from releasegate.plan.evaluate import Rate, operating_characteristics
from releasegate.plan.gate import plan_gate
from releasegate.plan.simulate import ReleaseScenario, reproduce_for
from releasegate.policy import Policy
from releasegate.stats.settle import settle_noninferiority, smallest_margin
from releasegate.wording import plan as words

ASSUMED_CHURN = 0.10  # without a rerun or runs: the middle of the 5-20% that published LLM figures give
DROPS = (0.02, 0.03, 0.05)
CRITICAL_DROP = 0.20
TARGET_DROP, TARGET_DETECTION, MAX_FALSE_BLOCKS = 0.03, 0.80, 0.05
TARGET_REACH = 0.80  # the chance at which a suite's smallest margin is stated
SCALES = (1.5, 2.0, 3.0, 4.0, 6.0, 8.0)  # suite sizes tried for the target, in this order
# What one plan may simulate, refused at once beyond (issue 28: 100,000,000 cases asked for 112 GiB, 100,000
# categories ran past a minute). Per scenario: cases x runs x replications draws (at the limit, 66,666 cases
# at 150 replications: 4.0 s and 556 MiB here); categories x replications category tests (50 categories at 150:
# 6.4 s of CPU; 100: 11.8 s; 400: 56 s); and replications past where the Monte Carlo error (0.5 point at
# 10,000) stops shrinking usefully.
MAX_DRAWS = 10_000_000
MAX_CATEGORY_TESTS = 7_500  # categories x replications: 50 categories at the default 150
MAX_REPLICATIONS = 10_000


@dataclass(frozen=True)
class SuiteDesign:
    """A suite as the simulation sees it. ``critical`` is (name, cases) per critical category;
    ``categories`` the number of other categories (1 = none); ``churn`` the share of cases whose outcome
    differs between one run of the baseline and one of a harmless candidate, ``churn_source`` where it came
    from ("assumed", "given", the pair's own discordance, a rerun, the baseline's runs); ``run_churn`` its
    run-to-run part (two runs of the same release: from a rerun or the baseline's runs), None when unknown,
    in which case all the churn is taken as case-level change (runs then average none of it away: the
    cautious reading)."""

    n: int
    p0: float
    critical: tuple[tuple[str, int], ...] = ()
    categories: int = 1
    runs: int = 1
    churn: float = ASSUMED_CHURN
    churn_source: str = "assumed"
    rerun: bool = False
    run_churn: float | None = None
    run_churn_source: str = ""

    @property
    def run_share(self) -> float:
        """The run-to-run churn simulated: the measured or given one, at most the churn and what independent
        runs at this pass rate can give; 0 when unknown."""
        ceiling = 2 * self.p0 * (1 - self.p0)
        return min(self.run_churn or 0.0, self.churn, ceiling)

    @property
    def case_share(self) -> float:
        """The case-level change simulated (plan.simulate's reproduce model): one run of each release disagrees
        on r + c rho^2 of the cases, so c = (churn - r) / rho^2, at most 2 min(p0, 1 - p0) (as many passes
        changed into fails as fails into passes)."""
        rho = reproduce_for(self.run_share, self.p0)
        return min(max(0.0, self.churn - self.run_share) / (rho * rho), self.case_ceiling)

    @property
    def case_ceiling(self) -> float:
        return 2 * min(self.p0, 1 - self.p0)

    @property
    def simulated_churn(self) -> float:
        """The between-release churn the simulation gives: r + c rho^2 (the churn unless capped)."""
        rho = reproduce_for(self.run_share, self.p0)
        return self.run_share + self.case_share * rho * rho

    def scenario(self, *, drop: float = 0.0, critical_first: int | None = None, critical_drop: float = 0.0,
                 scale: float = 1.0) -> ReleaseScenario:
        """The design as a simulated scenario; ``critical_first`` puts that critical category first, the one
        ``critical_drop`` hits; ``scale`` multiplies every size."""
        sizes = [max(1, round(size * scale)) for _, size in self.critical]
        if critical_first is not None:
            sizes.insert(0, sizes.pop(critical_first))
        n = max(round(self.n * scale), sum(sizes) + self.categories)
        sc = ReleaseScenario(n=n, p0=self.p0, churn=self.run_share, drop=drop, critical=tuple(sizes),
                             critical_drop=critical_drop, categories=self.categories, runs=self.runs,
                             rerun=self.rerun, change=self.case_share, noise="reproduce")
        sc.check()
        return sc


@dataclass(frozen=True)
class TargetSize:
    """The smallest scaled suite tried that reaches the target, or the largest tried when none does."""

    scale: float
    cases: int
    false_blocks: Rate
    detection: Rate
    reached: bool


@dataclass(frozen=True)
class SuiteReach:
    """What the suite can show (issue 46 item 5): the smallest margin its cases show no worse with the ``chance``
    (80%) at its churn and runs, the policy's margin, and the runs of every case that would reach that margin (None
    with ``runs_reason`` "case-level change" or "unknown", as stats.settle says; the runs it has when they do)."""

    smallest_margin: float
    margin: float
    runs: int
    runs_needed: int | None
    runs_reason: str
    chance: float = TARGET_REACH


def suite_reach(design: SuiteDesign, policy: Policy) -> SuiteReach | None:
    """The reach from the design's churn: at R runs a case's difference has mean square c + r / R, the
    run-to-run churn r and the rest case-level change c; with r unknown all of it is case-level (runs then
    average none of it away). None with the margin off."""
    if not 0 < policy.margin < 1 or design.n < 1:
        return None
    runs = max(1, design.runs)
    run = design.run_churn
    case = design.churn if run is None else max(0.0, design.churn - run)
    variance = case + (0.0 if run is None else run / runs)
    pass_rate = design.p0 if runs == 1 else None
    smallest = smallest_margin(design.n, variance, policy.alpha, TARGET_REACH, pass_rate)
    if variance == 0:
        return SuiteReach(smallest, policy.margin, runs, runs, "")
    settle = settle_noninferiority(design.n, variance, policy.margin, policy.alpha, runs=runs,
                                   run_share=None if run is None else min(1.0, run), targets=(TARGET_REACH,))
    return SuiteReach(smallest, policy.margin, runs, settle.runs_needed[0], settle.runs_reason)


@dataclass(frozen=True)
class SuitePlan:
    """What :func:`plan_suite` measured: rates with their Monte Carlo standard errors."""

    design: SuiteDesign
    replications: int
    seed: int
    false_blocks: Rate
    regressions: tuple[tuple[float, Rate], ...]
    critical_drops: tuple[tuple[str, Rate], ...]
    target: TargetSize
    false_blocks_by_rule: tuple[tuple[str, Rate], ...] = ()  # each rule's firing rate on the harmless release
    # The three verdicts (issue 34): on the harmless release DON'T SHIP and NOT PROVEN (``false_blocks`` is
    # their sum); per regression and critical drop, the DON'T SHIP rate beside the not-SHIP one.
    false_dont_ship: Rate | None = None
    false_not_proven: Rate | None = None
    regressions_dont_ship: tuple[tuple[float, Rate], ...] = ()
    critical_drops_dont_ship: tuple[tuple[str, Rate], ...] = ()
    reach: SuiteReach | None = None  # what the suite can show (issue 46 item 5)

    @property
    def current(self) -> TargetSize:
        """The suite as it is, judged against the target."""
        det = dict(self.regressions).get(TARGET_DROP)
        return TargetSize(1.0, self.design.n, self.false_blocks, det,
                          _meets(self.false_blocks, det))


def _meets(false_blocks: Rate, detection: Rate | None) -> bool:
    return detection is not None and detection.rate >= TARGET_DETECTION and false_blocks.rate <= MAX_FALSE_BLOCKS


def plan_suite(design: SuiteDesign, policy: Policy, *, replications: int = DEFAULT_REPLICATIONS,
               seed: int = DEFAULT_SEED, progress: Callable[[int, int], None] | None = None,
               scales: Sequence[float] = SCALES) -> SuitePlan:
    """The gate's rates on ``replications`` seeded simulated releases of every scenario (same seed, same
    result); ``progress(done, total)`` after each scenario (the size search counts as its worst case);
    ``scales``: the suite sizes tried, in order, when this one misses the target (empty: none tried)."""
    if replications < 1:
        raise ValueError("replications must be at least 1")
    check_size(design, replications)
    # Simulated releases have no latency, tokens or cost: a guardrail would find nothing to measure and block
    # (fail closed) every time. The plan is of the pass/fail rules; cost guardrails are left out and said so.
    gate = plan_gate(replace(policy, guardrails={}, prices={}))
    cells = [design.scenario()] + [design.scenario(drop=d) for d in DROPS]
    cells += [design.scenario(critical_first=i, critical_drop=CRITICAL_DROP) for i in range(len(design.critical))]
    total = len(cells) + 2 * len(scales)
    done = 0

    def tick(count: int) -> None:
        nonlocal done
        done += count
        if progress is not None:
            progress(done, total)

    measured = operating_characteristics(gate, cells, replications, seed, lambda i, n: tick(1))
    rates = [c.block for c in measured]
    hard = [c.dont_ship for c in measured]
    false_blocks, regressions = rates[0], tuple(zip(DROPS, rates[1:1 + len(DROPS)]))
    critical = tuple((name, r) for (name, _), r in zip(design.critical, rates[1 + len(DROPS):]))
    target = _target(design, gate, replications, seed, tick, false_blocks, dict(regressions)[TARGET_DROP], scales)
    if progress is not None and done < total:
        progress(total, total)
    return SuitePlan(design, replications, seed, false_blocks, regressions, critical, target, measured[0].by_rule,
                     measured[0].dont_ship, measured[0].not_proven, tuple(zip(DROPS, hard[1:1 + len(DROPS)])),
                     tuple((name, r) for (name, _), r in zip(design.critical, hard[1 + len(DROPS):])),
                     suite_reach(design, policy))


def check_size(design: SuiteDesign, replications: int) -> None:
    """Refuse, before any draw, a plan beyond the limits above (each named with its limit)."""
    if replications > MAX_REPLICATIONS:
        raise InputError(f"--replications {replications} is more than {MAX_REPLICATIONS:,}: the Monte Carlo error "
                         "is already 0.5 point there; the default 150 is enough to compare suites")
    categories = design.categories + len(design.critical)
    if categories * replications > MAX_CATEGORY_TESTS:
        raise InputError(f"{categories} categories x {replications} replications are more than a plan simulates "
                         f"({MAX_CATEGORY_TESTS:,} category tests per scenario: every category's test runs on every "
                         f"simulated release); give fewer --replications (at {replications}, at most "
                         f"{max(1, MAX_CATEGORY_TESTS // replications)} categories)")
    runs = f" x {design.runs} runs" if design.runs > 1 else ""
    if design.n * design.runs * replications > MAX_DRAWS:
        raise InputError(f"{design.n:,} cases{runs} x {replications} replications are more than a plan simulates "
                         f"({MAX_DRAWS:,} draws per scenario); give fewer --replications, or plan a sample of the "
                         f"suite (at {replications} replications, at most "
                         f"{MAX_DRAWS // (replications * design.runs):,} cases{runs})")


def _target(design, gate, replications, seed, tick, false_blocks: Rate, detection: Rate,
            scales: Sequence[float]) -> TargetSize:
    here = TargetSize(1.0, design.n, false_blocks, detection, _meets(false_blocks, detection))
    if here.reached:
        return here
    last = here
    for scale in scales:
        try:
            null, drop = design.scenario(scale=scale), design.scenario(scale=scale, drop=TARGET_DROP)
        except ValueError:
            break
        if null.n * null.runs * replications > MAX_DRAWS:
            break  # larger suites than a plan simulates: "not reached up to" the last one tried
        fb, det = (c.block for c in operating_characteristics(gate, [null, drop], replications, seed,
                                                              lambda i, n: tick(1)))
        last = TargetSize(scale, null.n, fb, det, _meets(fb, det))
        if last.reached:
            return last
    return last


def design_from_counts(n_cases: int, *, pass_rate: float = 0.9, critical: tuple[tuple[str, int], ...] = (),
                       categories: int = 1, runs: int = 1, churn: float | None = None,
                       rerun: bool = False, run_churn: float | None = None) -> SuiteDesign:
    """A design from counts alone (``releasegate plan --n-cases``); the churn is assumed when not given, and
    without ``run_churn`` all of it is case-level change."""
    if int(n_cases) < 1 or int(categories) < 1 or int(runs) < 1 or any(int(b) < 1 for _, b in critical):
        raise ValueError("cases, categories, runs and every critical category's cases must be at least 1")
    if run_churn is not None and churn is not None and run_churn > churn:
        raise ValueError(f"the run-to-run churn {run_churn:g} cannot exceed the churn between releases {churn:g}")
    ceiling = 2 * min(pass_rate, 1 - pass_rate)
    if churn is not None and churn > ceiling + 1e-12:
        raise ValueError(f"churn {churn:g} is impossible at pass rate {pass_rate:g}: one run of each release can "
                         f"disagree on at most 2 min(p, 1 - p) = {ceiling:.3f} of cases when nothing changed")
    if run_churn is not None and run_churn > 2 * pass_rate * (1 - pass_rate) + 1e-12:
        raise ValueError(f"run-to-run churn {run_churn:g} is impossible at pass rate {pass_rate:g}: two runs "
                         f"disagree on at most 2 p (1 - p) = {2 * pass_rate * (1 - pass_rate):.3f} of cases")
    if int(categories) > int(n_cases) - sum(int(b) for _, b in critical):
        raise ValueError(f"{categories} categories need at least one case each, and the suite has "
                         f"{int(n_cases) - sum(int(b) for _, b in critical)} outside its critical categories")
    design = SuiteDesign(int(n_cases), float(pass_rate), tuple((str(a), int(b)) for a, b in critical),
                         int(categories), int(runs), ASSUMED_CHURN if churn is None else float(churn),
                         "assumed" if churn is None else "given", bool(rerun),
                         None if run_churn is None else float(run_churn), "" if run_churn is None else "given")
    design.scenario()  # ValueError naming what is impossible
    return design


def plan_dict(plan: SuitePlan) -> dict[str, Any]:
    """The plan as plain data (``-o plan.json``)."""
    d = plan.design

    def rate(r: Rate) -> dict[str, Any]:
        return {"rate": r.rate, "se": r.se, "blocked": r.count, "replications": r.reps}

    def size(t: TargetSize) -> dict[str, Any]:
        return {"scale": t.scale, "cases": t.cases, "false_blocks": rate(t.false_blocks),
                "detection": rate(t.detection), "reached": t.reached}

    return {
        "design": {"cases": d.n, "baseline_pass_rate": d.p0, "critical": [{"category": a, "cases": b}
                                                                          for a, b in d.critical],
                   "other_categories": d.categories, "runs": d.runs, "churn": d.churn,
                   "churn_source": d.churn_source, "baseline_rerun": d.rerun,
                   "run_churn": d.run_churn, "run_churn_source": d.run_churn_source,
                   "simulated_run_share": d.run_share, "simulated_case_share": d.case_share,
                   "simulated_churn": d.simulated_churn, "simulated_case_ceiling": d.case_ceiling},
        "replications": plan.replications,
        "seed": plan.seed,
        "reach": None if plan.reach is None else dataclasses.asdict(plan.reach),
        "false_blocks": rate(plan.false_blocks),
        "harmless": {"dont_ship": rate(plan.false_dont_ship), "not_proven": rate(plan.false_not_proven),
                     "ship": rate(_ship(plan))},
        "false_blocks_by_rule": {name: rate(r) for name, r in plan.false_blocks_by_rule},
        "regressions": [{"drop": drop, "detection": rate(r), "dont_ship": rate(h)}
                        for (drop, r), (_, h) in zip(plan.regressions, plan.regressions_dont_ship)],
        "critical_drops": [{"category": name, "drop": CRITICAL_DROP, "detection": rate(r), "dont_ship": rate(h)}
                           for (name, r), (_, h) in zip(plan.critical_drops, plan.critical_drops_dont_ship)],
        "target": {"drop": TARGET_DROP, "detection": TARGET_DETECTION, "max_false_blocks": MAX_FALSE_BLOCKS,
                   "current": size(plan.current), "smallest_reaching": size(plan.target)},
    }


def _ship(plan: SuitePlan) -> Rate:
    f = plan.false_blocks
    ship = f.reps - f.count
    r = ship / f.reps
    return Rate(r, (r * (1 - r) / f.reps) ** 0.5, ship, f.reps)


def plan_lines(plan: SuitePlan) -> list[str]:
    """The plan in plain lines (what the command prints), written by wording/plan.py from :func:`plan_dict`."""
    return words.plan_lines(plan_dict(plan))
