"""Operating characteristics of issue 21's new tests against today's rules, on releasegate.plan's simulator.

    PYTHONPATH=src:bench python bench/plan_measurements.py [reps]

Every gate below is built from the library's functions (releasegate.stats.*; "today, all rules" runs the
library's own plan through bench/opchar/gates.library_fast). Seeded; prints one line per cell with the block
rate and its Monte Carlo standard error. 400 cases, baseline pass rate 0.9 throughout. Churn 20% is impossible
at p0 = 0.9 for independent runs (at most 2 p0 (1 - p0) = 18%): the top churn is 17%.

"split w" is the weighted alternative to the discrete step-down for the gate: the overall test at w alpha and
the categories by discrete Holm at (1 - w) alpha (Bonferroni split, so the family-wise error stays <= alpha).
"""

from __future__ import annotations

import sys
import time
from dataclasses import replace

import numpy as np

from releasegate.plan.evaluate import operating_characteristics
from releasegate.plan.simulate import ReleaseScenario
from releasegate.stats.critical import (
    critical_majority,
    critical_mcnemar,
    critical_sign_test,
    exchangeability_test,
)
from releasegate.stats.discrete import discrete_holm, tarone_holm
from releasegate.stats.mcnemar import mcnemar_test
from releasegate.stats.multiplicity import holm_adjust

ALPHA, CRITICAL_ALPHA = 0.05, 0.10
CHURNS = (0.05, 0.10, 0.17)


def _crit(sample):
    return sample.category == 0


def gate_any(sample):  # today: any broken critical case blocks (with runs: any drop of a case's mean)
    inside = _crit(sample)
    return ("critical any",) if np.any(sample.cand[inside] < sample.base[inside]) else ()


def gate_mcnemar(sample):
    inside = _crit(sample)
    return ("critical test",) if critical_mcnemar(sample.base[inside], sample.cand[inside], CRITICAL_ALPHA).blocks else ()


def gate_majority(sample):
    inside = _crit(sample)
    r = critical_majority(sample.base_runs[:, inside], sample.cand_runs[:, inside], CRITICAL_ALPHA)
    return ("critical majority",) if r.blocks else ()


def gate_sign(sample):
    inside = _crit(sample)
    r = critical_sign_test(sample.base_runs[:, inside], sample.cand_runs[:, inside], CRITICAL_ALPHA)
    return ("critical sign",) if r.blocks else ()


def gate_exchange(sample):
    inside = _crit(sample)
    r = exchangeability_test(sample.base_runs[0, inside], sample.rerun_runs[0, inside],
                             sample.cand_runs[0, inside], CRITICAL_ALPHA)
    return ("critical exchangeability",) if r.blocks else ()


def _family(sample):
    """Overall and per-category exact one-sided McNemar: discordant counts and p-values."""
    base, cand = sample.base, sample.cand
    groups = [np.ones(base.size, bool)] + [sample.category == k for k in np.unique(sample.category)]
    ns, ps = [], []
    for g in groups:
        broke = int(np.count_nonzero((base[g] == 1) & (cand[g] == 0)))
        fixed = int(np.count_nonzero((base[g] == 0) & (cand[g] == 1)))
        ns.append(broke + fixed)
        ps.append(mcnemar_test(fixed, broke).p_regression)
    return ns, np.array(ps)


def family_gate(method):
    def gate(sample):
        ns, ps = _family(sample)
        if method == "holm":
            rejected = holm_adjust(ps) <= ALPHA
        elif method == "discrete holm":
            rejected = np.array(discrete_holm(ns, ps).rejected(ALPHA))
        elif method.startswith("split "):  # overall at w alpha, categories by discrete holm at (1 - w) alpha
            w = float(method.split()[1])
            rest = np.array(discrete_holm(ns[1:], ps[1:]).rejected((1 - w) * ALPHA))
            rejected = np.concatenate([[ps[0] <= w * ALPHA], rest])
        elif method == "tarone holm":
            rejected = np.array(tarone_holm(ns, ps, ALPHA).rejected)
        else:  # "overall alone": the ceiling of the overall test's power
            rejected = np.array([ps[0] <= ALPHA])
        out = []
        if rejected[0]:
            out.append("overall")
        if np.any(rejected[1:]):
            out.append("category")
        return tuple(out)
    return gate


def library_gate(policy_name):
    """Today's full plan (every rule) through the study's fast path on the library's functions."""
    from opchar.gates import library_fast
    from opchar.simulate import Sample

    from releasegate.decide import RULES
    from releasegate.policy import make_policy

    policy = make_policy(baseline="baseline", **({"critical": ("k00",)} if policy_name == "critical k00" else {}))

    def gate(sample):
        runs = sample.base_runs.shape[0] > 1
        s = Sample(sample.base.astype(float) if runs else sample.base, sample.cand.astype(float) if runs else sample.cand,
                   sample.category if np.unique(sample.category).size > 1 else None, sample.cluster,
                   sample.base_runs if runs else None, sample.cand_runs if runs else None)
        fired = library_fast(s, [policy])[0]
        return tuple(rule for rule, f in zip(RULES, fired) if f)
    return gate


def show(title, gate, scenarios, reps):
    t = time.time()
    for cell in operating_characteristics(gate, scenarios, reps):
        sc = cell.scenario
        rules = ", ".join(f"{name} {r.rate:.3f}" for name, r in cell.by_rule)
        print(f"{title:<34} churn {sc.churn:.2f} crit {sc.critical or '-'} runs {sc.runs} drop {sc.drop:g}"
              f"/{sc.critical_drop:g} {sc.mode:<6} k{sc.categories}: {cell.kind} {cell.block.rate:.3f} "
              f"+- {cell.block.se:.3f}   [{rules}]", flush=True)
    print(f"   ({time.time() - t:.0f} s)", flush=True)


def family_cells():
    base = ReleaseScenario(n=400, p0=0.9)
    return [replace(base, churn=0.05, categories=9), replace(base, churn=0.05, categories=9, drop=0.02, mode="tilted"),
            replace(base, churn=0.10, categories=9), replace(base, churn=0.10, categories=9, drop=0.02),
            replace(base, churn=0.05, critical=(50,), categories=8, critical_drop=0.2),
            replace(base, churn=0.10, critical=(50,), categories=8, critical_drop=0.2)]


def main(reps: int) -> None:
    base = ReleaseScenario(n=400, p0=0.9)
    crit = [replace(base, churn=s, critical=(c,)) for s in CHURNS for c in (30, 50, 100)]
    show("critical: any broken (today)", gate_any, crit, reps)
    show("critical: exact McNemar 0.10", gate_mcnemar, crit, reps)
    show("critical: exchangeability 0.10", gate_exchange, [replace(c, rerun=True) for c in crit], reps)
    runs5 = [replace(c, runs=5) for c in crit]
    show("critical 5 runs: any drop (today)", gate_any, runs5, reps)
    show("critical 5 runs: majority 0.10", gate_majority, runs5, reps)
    show("critical 5 runs: sign test 0.10", gate_sign, runs5, reps)
    drop = [replace(base, churn=s, critical=(50,), critical_drop=0.2) for s in CHURNS]
    show("critical 20pt drop: McNemar", gate_mcnemar, drop, reps)
    show("critical 20pt drop: exchangeability", gate_exchange, [replace(c, rerun=True) for c in drop], reps)
    show("critical 20pt drop: majority 5 runs", gate_majority, [replace(c, runs=5) for c in drop], reps)
    show("critical 20pt drop: sign 5 runs", gate_sign, [replace(c, runs=5) for c in drop], reps)
    fam = family_cells()
    for method in ("holm", "discrete holm", "tarone holm", "overall alone", "split 0.8", "split 0.5"):
        show(f"family of 10: {method}", family_gate(method), fam, reps)
    lib = [replace(base, churn=s) for s in CHURNS] + [replace(base, churn=s, drop=0.05) for s in CHURNS]
    show("today, all rules (default)", library_gate("default"), lib, max(200, reps // 4))
    show("today, all rules (critical 50)", library_gate("critical k00"),
         [replace(base, churn=s, critical=(50,)) for s in CHURNS], max(200, reps // 4))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2000)
