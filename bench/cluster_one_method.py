"""Coverage and agreement of the clustered verdict's interval and p, which now come from one method
(analyze.clustered_verdict: the inverted cluster sign-flip below 20 groups, CR2 from there on). Seeded.

Two designs, per number of groups G:
- pass/fail: releasegate.plan's simulated releases (400 cases, p0 0.9, churn 10%, a 3-point drop added on top,
  cluster shifts with ICC 0.2); "blocks" is the share of releases that change nothing (drop 0) whose one-sided
  p is below alpha 0.05;
- scores: skewed, size-related cluster effects (sizes 2-30, effect grows with size, exponential cluster noise),
  the truth being the ratio-of-sums mean the interval estimates.
"agree" is the share of replications where the 95% interval excludes 0 exactly when the two-sided p < 0.05
(and the 90% one exactly when the one-sided p < 0.05): it should be 1.000.

    PYTHONPATH=src python bench/cluster_one_method.py [replications]
"""

from __future__ import annotations

import sys

import numpy as np

from releasegate.analyze.clustered_verdict import clustered_verdict
from releasegate.plan.simulate import ReleaseScenario, draw_releases
from releasegate.policy import make_policy

POLICY = make_policy(n_resamples=2000)


def agrees(v) -> bool:
    two = (v.p_value < 0.05) == (v.ci_low > 0 or v.ci_high < 0)
    one = (v.p_one_sided < 0.05) == (v.ni_high < 0)
    return bool(two and one)


def binary_cell(g: int, reps: int) -> str:
    truth = -0.03
    hits = agree = blocks = 0
    methods = set()
    for s in draw_releases(ReleaseScenario(n=400, churn=0.10, drop=0.03, clusters=g, icc=0.2), reps,
                           np.random.default_rng(1000 + g)):
        d = s.cand.astype(float) - s.base
        v = clustered_verdict(d, s.cluster, POLICY, bounded=True)
        hits += v.ci_low <= truth <= v.ci_high
        agree += agrees(v)
        methods.add(v.test)
    for s in draw_releases(ReleaseScenario(n=400, churn=0.10, clusters=g, icc=0.2), reps,
                           np.random.default_rng(2000 + g)):
        v = clustered_verdict(s.cand.astype(float) - s.base, s.cluster, POLICY, bounded=True)
        blocks += v.p_one_sided < 0.05
    return (f"pass/fail {g:>2} groups ({'/'.join(sorted(methods))}): coverage {hits / reps:.3f}, agree "
            f"{agree / reps:.3f}, blocks a release that changes nothing {blocks / reps:.3f}")


def scores_cell(g: int, reps: int) -> str:
    rng = np.random.default_rng(3000 + g)
    sizes = rng.integers(2, 31, size=g)
    cluster = np.repeat(np.arange(g), sizes)
    mean_g = 0.05 + 0.1 * (sizes - sizes.mean()) / sizes.std()  # bigger groups gain more
    truth = float((sizes * mean_g).sum() / sizes.sum())
    hits = agree = 0
    methods = set()
    for _ in range(reps):
        u = (rng.exponential(0.3, size=g) - 0.3)[cluster]  # skewed cluster noise, mean 0
        d = mean_g[cluster] + u + rng.normal(0, 1.0, size=cluster.size)
        v = clustered_verdict(d, cluster, POLICY, bounded=False)
        hits += v.ci_low <= truth <= v.ci_high
        agree += agrees(v)
        methods.add(v.test)
    return f"scores    {g:>2} groups ({'/'.join(sorted(methods))}): coverage {hits / reps:.3f}, agree {agree / reps:.3f}"


def main(reps: int = 200) -> None:
    print(f"95% coverage, {reps} replications each (Monte Carlo se {np.sqrt(0.95 * 0.05 / reps):.3f})", flush=True)
    for g in (6, 10, 19, 20, 30, 40):
        print(binary_cell(g, reps), flush=True)
        print(scores_cell(g, reps), flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200)
