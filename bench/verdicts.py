"""Three verdicts on simulated releases, from a generator of its own (issue 34, item 7 of the build).

An outside-style study: the releases are drawn here (not by ``releasegate.plan.simulate``), every verdict comes
from the library's own plan on arrays (``releasegate.analyze.candidate.plan_arrays``) and its rules
(``releasegate.decide.decide_candidate``) under the default policy with the critical category named, and each
release is classified three ways from the rules that fired: DON'T SHIP when a regression, critical,
error-rate or guardrail rule fires; NOT PROVEN when only ``not_non_inferior`` or ``critical_doubt`` fires; SHIP
otherwise.

The design (the issue's): 400 cases, baseline pass rate 0.9, 9 categories of which one critical (30, 50 or 100
cases; the other eight share the rest equally), one run per release unless said.

- *Churn* s is the share of cases whose outcome differs between the baseline and a harmless candidate: each
  case falls in (both pass, broke, fixed, both fail) with probabilities (p0 - s/2, s/2, s/2, 1 - p0 - s/2),
  so 20% churn at p0 = 0.9 is feasible (every failing case is then fixed, as many passing ones broken).
- *A spread regression* of d points: on top of the churn every case's candidate outcome, if a pass, is broken
  with probability d / p0 (the candidate's pass rate drops d points, in every category alike).
- *A drop in the critical category*: its candidate passes are broken with probability 0.20 / p0.
- *Runs* (5 per release): the case's latent outcome for each release is drawn as above (so the change between
  releases is case-level and does not average away); each run reproduces it with probability 0.8 and is
  otherwise a fresh draw at p0 (run-to-run noise).
- *A baseline rerun* (``--study rerun``): run-to-run noise only, one run per release; each run reproduces the
  case's latent outcome with probability rho and is otherwise a fresh draw at p0 (rho set so that two runs of
  the same release disagree on the churn's share of cases); the rerun is the baseline's latent outcomes run
  again. Every release is decided with and without the rerun.
- *the critical test's ceiling* (``--study ceiling``): the exact power of the critical category's one-sided exact
  McNemar test on this generator's 20-point drop at levels 0.04-0.10, what no critical_weight can exceed (the
  budget never gives one member more than alpha): ``releasegate.stats.power.exact_mcnemar_power`` beside an
  enumeration with scipy's binomial.
- *issue 46's targets* (``--study done``): harmless releases at 5, 10 and 20% churn with one run and with five
  (run-level churn, or case-level), a 3-point regression at 5% churn, 2-, 3- and 5-point ones at 10%, a 20-point
  drop in the critical category; each with the share that ships under ``not_proven = "warn"``.
- *following the advice* (``--study advice``): harmless releases compared again after adding the cases their NOT
  PROVEN note names for a 95% chance, the second comparison given the first's note (a later look).
- *plan against this study* (``--study plan``): harmless releases with 5 runs and case-level churn decided
  here, beside what ``releasegate plan`` predicts for the same design (its own generator), from the true
  churn figures and from the figures it measures on one release pair drawn here.

    PYTHONPATH=src python bench/verdicts.py [--study grid|rerun|plan|ceiling|done|advice] [--reps 300]
                                            [--workers 1] [--critical-weight 4] [--critical-doubt 0]

prints the tables (markdown) with one Monte Carlo standard error per rate.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
import zlib
from dataclasses import dataclass, replace

import numpy as np

from releasegate.analyze import parameters_of
from releasegate.analyze.candidate import plan_arrays
from releasegate.decide import decide_candidate, decision_of
from releasegate.model import Analysis, CandidateAnalysis, CandidateSections, Exclusions
from releasegate.policy import make_policy

N, P0, CATEGORIES = 400, 0.9, 9
CRITICAL = "Critical"
REPRODUCE = 0.8  # a run reproduces the case's latent outcome with this probability
SEED = 34_2026
BLOCKING = ("critical_broken", "overall_regression", "category_regression", "guardrail")


@dataclass(frozen=True)
class Cell:
    """One simulated design: churn, spread drop, critical drop, critical size, runs."""

    churn: float
    critical: int = 50
    drop: float = 0.0
    critical_drop: float = 0.0
    runs: int = 1
    level: str = "case"  # "case": the churn is case-level change; "run": run-to-run noise only (runs > 1)

    @property
    def key(self) -> str:
        level = "-run" if self.level == "run" else ""  # the case-level cells keep their seeds
        return f"s{self.churn:g}-c{self.critical}-d{self.drop:g}-cd{self.critical_drop:g}-r{self.runs}{level}"


def labels(critical: int) -> tuple[np.ndarray, list[str]]:
    """Category codes (0 = the critical category, the first ``critical`` cases) and names, sorted as the
    library sorts them."""
    codes = np.zeros(N, dtype=np.int64)
    rest = N - critical
    codes[critical:] = 1 + (np.arange(rest) * (CATEGORIES - 1)) // rest
    names = [CRITICAL] + [f"k{j}" for j in range(1, CATEGORIES)]
    return codes, names


def draw(cell: Cell, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """One release pair: (runs, N) 0/1 arrays of baseline and candidate (and None: no rerun here)."""
    s = 0.0 if cell.level == "run" else cell.churn
    p = np.clip([P0 - s / 2, s / 2, s / 2, 1 - P0 - s / 2], 0.0, 1.0)
    cells = rng.choice(4, size=N, p=p / p.sum())
    z_base = np.isin(cells, (0, 1)).astype(np.int8)  # both pass, broke
    z_cand = np.isin(cells, (0, 2)).astype(np.int8)  # both pass, fixed
    broken = rng.random(N) < cell.drop / P0
    if cell.critical_drop:
        broken |= (np.arange(N) < cell.critical) & (rng.random(N) < cell.critical_drop / P0)
    z_cand = np.where(broken, 0, z_cand).astype(np.int8)

    # Run-level churn: the same latent outcomes on both releases, each run reproducing them with the rho at which
    # two runs of one release disagree on the churn's share of cases.
    rho = reproduce_for(cell.churn) if cell.level == "run" else REPRODUCE

    def runs_of(z: np.ndarray, count: int) -> np.ndarray:
        if cell.runs == 1 and count == 1 and cell.level != "run":
            return z[None, :]
        keep = rng.random((count, N)) < rho
        fresh = (rng.random((count, N)) < P0).astype(np.int8)
        return np.where(keep, z[None, :], fresh).astype(np.int8)

    return runs_of(z_base, cell.runs), runs_of(z_cand, cell.runs), None


def verdict_of(fired: tuple[str, ...]) -> str:
    """The rule table's own verdict of the rules that fired (decide.rules.decision_of: what the notes say)."""
    verdict = decision_of(fired)
    # The study's own reading of the rules, kept as a check that the table says what this docstring says.
    assert verdict == ("dont_ship" if any(r in BLOCKING for r in fired) else
                       "not_proven" if {"not_non_inferior", "critical_doubt"} & set(fired) else "ship"), fired
    return verdict


def gate(policy, base_runs: np.ndarray, cand_runs: np.ndarray, rerun, codes, names) -> tuple[str, ...]:
    """The fired rules of the library's plan and rules on one release pair."""
    runs = base_runs.shape[0] > 1
    base = base_runs.mean(0) if runs else base_runs[0].astype(np.float64)
    cand = cand_runs.mean(0) if runs else cand_runs[0].astype(np.float64)
    result = plan_arrays(base, cand, policy, mcnemar=not runs, rates=True, runs=runs, category_codes=codes,
                         category_labels=names, verdict_only=True,
                         rerun=None if rerun is None or runs else rerun.astype(np.float64))
    cand_a = CandidateAnalysis("candidate", result.overall, result.categories, (), (), Exclusions(), result.power,
                               CandidateSections(result.item_axis, None, None, critical=result.critical,
                                                 budget=result.budget))
    analysis = Analysis("baseline", "binary", N, (), (cand_a,), parameters_of(policy), True, False, runs)
    return tuple(c.rule for c in decide_candidate(cand_a, analysis, policy).checks if c.fired)


def run_cell(cell: Cell, reps: int, critical_weight: float | None = None, critical_test: str | None = None,
             critical_doubt: float | None = None) -> dict:
    args = {"baseline": "baseline", "critical": (CRITICAL,)}
    if critical_doubt is not None:
        args["critical_doubt"] = critical_doubt
    if critical_weight is not None:
        args["critical_weight"] = critical_weight
    if critical_test is not None:
        args["critical_test"] = critical_test
    policy = make_policy(**args)
    # Simulated releases have no latency or cost (no guardrail to measure) and no error column.
    policy = replace(policy, guardrails={})
    codes, names = labels(cell.critical)
    rng = np.random.default_rng((SEED, zlib.crc32(cell.key.encode())))
    counts = {"dont_ship": 0, "not_proven": 0, "ship": 0}
    rules: dict[str, int] = {}
    start = time.perf_counter()
    for _ in range(reps):
        base, cand, rerun = draw(cell, rng)
        fired = gate(policy, base, cand, rerun, codes, names)
        counts[verdict_of(fired)] += 1
        for r in fired:
            rules[r] = rules.get(r, 0) + 1
    return {"cell": cell, "reps": reps, "counts": counts, "rules": rules, "seconds": time.perf_counter() - start}


def rate(count: int, reps: int) -> str:
    r = count / reps
    return f"{100 * r:.1f}% ({100 * math.sqrt(r * (1 - r) / reps):.1f})"


def cells() -> list[Cell]:
    out = [Cell(churn, critical) for churn in (0.05, 0.10, 0.20) for critical in (30, 50, 100)]
    out += [Cell(0.10, 50, drop=0.05), Cell(0.10, 50, drop=0.03)]
    out += [Cell(0.10, critical, critical_drop=0.20) for critical in (30, 50, 100)]
    return out


# ------------------------------------------------------------------------------------------- the rerun


def reproduce_for(churn: float) -> float:
    """rho with which two runs of one release disagree on ``churn`` of the cases (at most 2 p0 (1 - p0))."""
    def disagree(rho: float) -> float:
        hit, miss = rho + (1 - rho) * P0, (1 - rho) * P0
        return P0 * 2 * hit * (1 - hit) + (1 - P0) * 2 * miss * (1 - miss)

    lo, hi = 0.0, 1.0  # disagree falls as rho rises
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if disagree(mid) > churn else (lo, mid)
    return (lo + hi) / 2


def run_rerun_cell(churn: float, critical: int, critical_drop: float, reps: int) -> dict:
    policy = replace(make_policy(baseline="baseline", critical=(CRITICAL,)), guardrails={})
    codes, names = labels(critical)
    rho = reproduce_for(churn)
    rng = np.random.default_rng((SEED, zlib.crc32(f"rerun-{churn:g}-{critical}-{critical_drop:g}".encode())))
    counts = {"with": {"dont_ship": 0, "critical": 0}, "without": {"dont_ship": 0, "critical": 0}}
    worse = 0  # releases blocked with the rerun and not without it
    for _ in range(reps):
        latent = (rng.random(N) < P0).astype(np.int8)

        def one_run(z: np.ndarray) -> np.ndarray:
            return np.where(rng.random(N) < rho, z, (rng.random(N) < P0).astype(np.int8)).astype(np.int8)

        base, cand, again = one_run(latent), one_run(latent), one_run(latent)
        if critical_drop:
            # The candidate's critical cases break for good (fail in its run) with probability drop / p0.
            cand[(np.arange(N) < critical) & (rng.random(N) < critical_drop / P0)] = 0
        blocked = {}
        for name, rerun in (("with", again), ("without", None)):
            fired = gate(policy, base[None, :], cand[None, :], rerun, codes, names)
            blocked[name] = verdict_of(fired) == "dont_ship"
            counts[name]["dont_ship"] += blocked[name]
            counts[name]["critical"] += "critical_broken" in fired
        worse += blocked["with"] and not blocked["without"]
    return {"churn": churn, "critical": critical, "critical_drop": critical_drop, "reps": reps, "counts": counts,
            "worse": worse}


def rerun_study(reps: int) -> None:
    print("| churn | critical cases | release | DON'T SHIP without the rerun | with it | critical rule without | "
          "with | blocked with and not without |")
    print("|--:|--:|---|--:|--:|--:|--:|--:|")
    for churn in (0.05, 0.10, 0.17):
        for critical_drop in (0.0, 0.20):
            r = run_rerun_cell(churn, 50, critical_drop, reps)
            c, n = r["counts"], r["reps"]
            what = "harmless" if not critical_drop else "20 points in the critical category"
            print(f"| {100 * churn:.0f}% | 50 | {what} | {rate(c['without']['dont_ship'], n)} | "
                  f"{rate(c['with']['dont_ship'], n)} | {rate(c['without']['critical'], n)} | "
                  f"{rate(c['with']['critical'], n)} | {r['worse']} of {n} |", flush=True)


# ------------------------------------------------------------------------------------ plan against this


def plan_study(reps: int) -> None:
    """5 runs with case-level churn s: the rates decided here beside releasegate plan's prediction."""
    import pandas as pd

    from releasegate.plan.evaluate import operating_characteristics
    from releasegate.plan.gate import plan_gate
    from releasegate.plan.measure import design_of
    from releasegate.plan.suite import design_from_counts
    from releasegate.validate import validate

    policy = make_policy(baseline="baseline", critical=(CRITICAL,))
    print("| case-level churn | critical cases | here: DON'T SHIP | here: NOT PROVEN | plan (true churn): DON'T "
          "SHIP | NOT PROVEN | plan (measured): DON'T SHIP | NOT PROVEN | churn between releases, run-to-run |")
    print("|--:|--:|--:|--:|--:|--:|--:|--:|---|")
    for churn in (0.05, 0.10, 0.20):
        for critical in (30, 50, 100):
            cell = Cell(churn, critical, runs=5)
            here = run_cell(cell, reps)
            k = here["counts"]
            # The true figures of this generator: one run of each release disagrees on D1, two of one on r.
            hit, miss = REPRODUCE + (1 - REPRODUCE) * P0, (1 - REPRODUCE) * P0
            r_true = P0 * 2 * hit * (1 - hit) + (1 - P0) * 2 * miss * (1 - miss)
            p_pass, p_fail = P0 - churn / 2, 1 - P0 - churn / 2
            d1 = (p_pass * 2 * hit * (1 - hit) + p_fail * 2 * miss * (1 - miss)
                  + churn * (hit * (1 - miss) + miss * (1 - hit)))
            true = design_from_counts(N, pass_rate=P0, critical=((CRITICAL, critical),), categories=CATEGORIES - 1,
                                      runs=5, churn=d1, run_churn=r_true)
            # One release pair drawn here, measured as releasegate plan measures results.
            rng = np.random.default_rng((SEED, critical, int(1000 * churn)))
            base, cand, _ = draw(cell, rng)
            codes, names = labels(critical)
            ids = [f"c{i:04d}" for i in range(N)]
            rows = [{"release": rel, "case_id": ids[i], "run": j, "category": names[codes[i]],
                     "passed": int(runs[j, i])}
                    for rel, runs in (("baseline", base), ("candidate", cand)) for j in range(5) for i in range(N)]
            data = validate(pd.DataFrame(rows), policy)
            measured = design_of(data, policy)
            # What releasegate plan prints for a release that changes nothing (plan_suite's first cell).
            gate = plan_gate(replace(policy, guardrails={}))
            plans = [operating_characteristics(gate, [d.scenario()], reps)[0] for d in (true, measured)]
            cells = " | ".join(f"{rate(p.dont_ship.count, reps)} | {rate(p.not_proven.count, reps)}" for p in plans)
            print(f"| {100 * churn:.0f}% | {critical} | {rate(k['dont_ship'], reps)} | {rate(k['not_proven'], reps)} "
                  f"| {cells} | true {100 * d1:.1f}%, {100 * r_true:.1f}%; measured {100 * measured.churn:.1f}%, "
                  f"{100 * measured.run_share:.1f}% |", flush=True)


def critical_cells(churn: float = 0.10, drop: float = 0.20) -> tuple[float, float]:
    """P(broke), P(fixed) of a critical case under ``draw``: the churn's cells, then the candidate's passes broken
    with probability drop / p0."""
    q = drop / P0
    return churn / 2 + (P0 - churn / 2) * q, churn / 2 * (1 - q)


def ceiling_study() -> None:
    from scipy.stats import binom

    from releasegate.stats.power import exact_mcnemar_power

    broke, fixed = critical_cells()
    print("| critical cases | level | exact power (releasegate.stats.power) | enumeration with scipy |")
    print("|--:|--:|--:|--:|")
    for n in (30, 50, 100):
        for level in (0.04, 0.05, 0.10):
            total = sum(binom.pmf(m, n, broke + fixed) * binom.pmf(b, m, broke / (broke + fixed))
                        for m in range(n + 1) for b in range(m + 1) if binom.sf(b - 1, m, 0.5) <= level)
            print(f"| {n} | {level:g} | {100 * exact_mcnemar_power(n, broke, fixed, level).power:.1f}% | "
                  f"{100 * total:.1f}% |")


def done_cells() -> list[tuple[str, Cell]]:
    """Issue 46's targets: harmless releases at 5, 10 and 20% churn (one run; five runs with run-level churn,
    which cannot exceed 2 p0 (1 - p0) = 18% at p0 = 0.9, so 17% there, and with case-level churn), a 3-point
    regression at 5% churn, 2-, 3- and 5-point regressions at 10% churn, a 20-point drop in the 50-case critical
    category at 10% churn."""
    out = [(f"harmless, {round(100 * s)}% churn, 1 run", Cell(s)) for s in (0.05, 0.10, 0.20)]
    out += [(f"harmless, {round(100 * s)}% run-level churn, 5 runs", Cell(s, runs=5, level="run"))
            for s in (0.05, 0.10, 0.17)]
    out += [(f"harmless, {round(100 * s)}% case-level churn, 5 runs", Cell(s, runs=5)) for s in (0.05, 0.10, 0.20)]
    out += [("3 points, 5% churn", Cell(0.05, drop=0.03))]
    out += [(f"{d} points, 10% churn", Cell(0.10, drop=d / 100)) for d in (2, 3, 5)]
    out += [("20 points in the critical category, 10% churn", Cell(0.10, critical_drop=0.20))]
    return out


def done_study(reps: int, workers: int, critical_weight: float | None, critical_test: str | None,
               critical_doubt: float | None = None) -> None:
    named = done_cells()
    start, cpu = time.perf_counter(), time.process_time()
    grid = [c for _, c in named]
    if workers > 1:
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(workers) as pool:
            results = list(pool.map(run_cell, grid, [reps] * len(grid), [critical_weight] * len(grid),
                                    [critical_test] * len(grid), [critical_doubt] * len(grid)))
    else:
        results = [run_cell(c, reps, critical_weight, critical_test, critical_doubt) for c in grid]
    print("| release | DON'T SHIP | NOT PROVEN | SHIP | not SHIP | ships under not_proven = \"warn\" |")
    print("|---|--:|--:|--:|--:|--:|")
    for (name, _), r in zip(named, results):
        k = r["counts"]
        print(f"| {name} | {rate(k['dont_ship'], reps)} | {rate(k['not_proven'], reps)} | {rate(k['ship'], reps)} | "
              f"{rate(reps - k['ship'], reps)} | {rate(reps - k['dont_ship'], reps)} |")
    print(f"\n{len(grid)} cells x {reps} replications, {time.perf_counter() - start:.0f} s wall, "
          f"{time.process_time() - cpu:.0f} CPU-s in this process", file=sys.stderr)


# ------------------------------------------------------------------------------------------ the advice


def _pair_cells(churn: float, size: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``size`` harmless cases of the grid's one-run model: (both pass, broke, fixed, both fail) at churn."""
    p = np.clip([P0 - churn / 2, churn / 2, churn / 2, 1 - P0 - churn / 2], 0.0, 1.0)
    cells = rng.choice(4, size=size, p=p / p.sum())
    return np.isin(cells, (0, 1)).astype(np.float64), np.isin(cells, (0, 2)).astype(np.float64)


def _advised(overall, policy) -> int | None:
    """The suite size the NOT PROVEN note gives for a 95% chance (analyze/settle.py's figures): at no true
    difference when these cases are too few, else at the loss measured, else none."""
    from releasegate.stats.settle import settle_noninferiority

    n, v = overall.n, (overall.fixed + overall.broke) / overall.n
    plan = settle_noninferiority(n, v, policy.margin, policy.alpha, pass_rate=overall.baseline.value)
    if plan.cases_needed[1] is not None and plan.cases_needed[1] > n:
        return plan.cases_needed[1]
    left = policy.margin + overall.diff
    if overall.diff < 0 and 0 < left < 1:
        observed = settle_noninferiority(n, v, left, policy.alpha, pass_rate=overall.baseline.value)
        return observed.cases_needed[1]
    return None


def advice_study(reps: int, most: int = 4000) -> None:
    """Harmless releases (one run, 9 categories of which a 50-case critical one, 400 cases): look 1; on NOT
    PROVEN the cases the note names for a 95% chance are added (the same model, up to ``most``) and the releases
    compared again, given look 1's note (--previous: its regression tests at what look 1 left). DON'T SHIP at
    either look is a false block."""
    from releasegate.model.budget import PreviousLook

    policy = replace(make_policy(baseline="baseline", critical=(CRITICAL,)), guardrails={})
    codes, names = labels(50)
    print("| churn | look 1: DON'T SHIP | look 1: NOT PROVEN | compared again | look 2: DON'T SHIP | DON'T SHIP at "
          "either look | the same with look 2 at alpha | mean look 2 level | cases at look 2 (median) |")
    print("|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
    for churn in (0.10, 0.17, 0.20):
        rng = np.random.default_rng((SEED, zlib.crc32(f"advice-{churn:g}".encode())))
        first = again = second = naive = 0
        not_proven = 0
        levels, sizes = [], []
        for _ in range(reps):
            base, cand = _pair_cells(churn, N, rng)
            look1 = plan_arrays(base, cand, policy, mcnemar=True, category_codes=codes, category_labels=names,
                                verdict_only=True)
            fired = _fired(look1, policy, False)
            verdict = verdict_of(fired)
            first += verdict == "dont_ship"
            if verdict != "not_proven":
                continue
            not_proven += 1
            size = _advised(look1.overall, policy)
            if size is None:
                continue
            size = min(size, most)
            extra_base, extra_cand = _pair_cells(churn, size - N, rng)
            more_codes = np.r_[codes, 1 + np.arange(size - N) % (CATEGORIES - 1)]
            previous = PreviousLook(1, look1.budget.left, "look 1")
            both = (np.r_[base, extra_base], np.r_[cand, extra_cand])
            look2 = plan_arrays(*both, policy, mcnemar=True, category_codes=more_codes, category_labels=names,
                                verdict_only=True, previous=previous)
            plain = plan_arrays(*both, policy, mcnemar=True, category_codes=more_codes, category_labels=names,
                                verdict_only=True)
            again += 1
            levels.append(look1.budget.left)
            sizes.append(size)
            second += verdict_of(_fired(look2, policy, False)) == "dont_ship"
            naive += verdict_of(_fired(plain, policy, False)) == "dont_ship"
        print(f"| {100 * churn:.0f}% | {rate(first, reps)} | {rate(not_proven, reps)} | {rate(again, reps)} | "
              f"{rate(second, reps)} | {rate(first + second, reps)} | {rate(first + naive, reps)} | "
              f"{np.mean(levels) if levels else float('nan'):.4f} | {int(np.median(sizes)) if sizes else 0} |",
              flush=True)


def _fired(result, policy, runs: bool) -> tuple[str, ...]:
    cand_a = CandidateAnalysis("candidate", result.overall, result.categories, (), (), Exclusions(), result.power,
                               CandidateSections(result.item_axis, None, None, critical=result.critical,
                                                 budget=result.budget))
    analysis = Analysis("baseline", "binary", int(result.overall.n), (), (cand_a,), parameters_of(policy), True,
                        False, runs)
    return tuple(c.rule for c in decide_candidate(cand_a, analysis, policy).checks if c.fired)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--study", choices=("grid", "rerun", "plan", "ceiling", "done", "advice"), default="grid")
    parser.add_argument("--reps", type=int, default=300)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--critical-weight", type=float, default=None)
    parser.add_argument("--critical-test", choices=("unconditional", "conditional"), default=None)
    parser.add_argument("--critical-doubt", type=float, default=None)
    parser.add_argument("--cells", default=None, help="comma-separated indices of the grid's cells (default: all)")
    args = parser.parse_args(argv)
    if args.study == "rerun":
        rerun_study(args.reps)
        return 0
    if args.study == "plan":
        plan_study(args.reps)
        return 0
    if args.study == "ceiling":
        ceiling_study()
        return 0
    if args.study == "advice":
        advice_study(args.reps)
        return 0
    if args.study == "done":
        done_study(args.reps, args.workers, args.critical_weight, args.critical_test, args.critical_doubt)
        return 0
    grid = cells()
    if args.cells:
        grid = [grid[int(k)] for k in args.cells.split(",")]
    start, cpu = time.perf_counter(), time.process_time()
    if args.workers > 1:
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(args.workers) as pool:
            results = list(pool.map(run_cell, grid, [args.reps] * len(grid), [args.critical_weight] * len(grid),
                                    [args.critical_test] * len(grid)))
    else:
        results = [run_cell(c, args.reps, args.critical_weight, args.critical_test) for c in grid]
    print("| churn | critical cases | regression | DON'T SHIP | NOT PROVEN | SHIP | not SHIP | rules that fired |")
    print("|--:|--:|---|--:|--:|--:|--:|---|")
    for r in results:
        c, k, reps = r["cell"], r["counts"], r["reps"]
        what = ("none" if not c.drop and not c.critical_drop else f"{round(100 * c.drop)} points spread" if c.drop
                else f"{round(100 * c.critical_drop)} points in the critical category")
        fired = ", ".join(f"{name} {100 * n / reps:.1f}%" for name, n in sorted(r["rules"].items()))
        print(f"| {100 * c.churn:.0f}% | {c.critical} | {what} | {rate(k['dont_ship'], reps)} | "
              f"{rate(k['not_proven'], reps)} | {rate(k['ship'], reps)} | {rate(reps - k['ship'], reps)} | {fired} |")
    print(f"\n{len(grid)} cells x {args.reps} replications, {time.perf_counter() - start:.0f} s wall, "
          f"{time.process_time() - cpu:.0f} CPU-s in this process", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
