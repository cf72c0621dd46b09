"""95% coverage of the clustered intervals for the mean pass-rate difference, on releasegate.plan's simulated
releases (400 cases, p0 0.9, churn 10%, a 3-point drop added on top, cluster shifts with ICC 0.2): today's
percentile cluster bootstrap, the CR2 t interval, and the inverted cluster sign-flip. Seeded.

    PYTHONPATH=src python bench/few_clusters.py [replications]
"""

from __future__ import annotations

import sys

import numpy as np

from releasegate.plan.simulate import ReleaseScenario, draw_releases
from releasegate.stats.cluster_signflip_interval import cluster_signflip_interval
from releasegate.stats.clusters import cluster_bootstrap_interval, cr2_test


def main(reps: int = 300) -> None:
    truth = -0.03
    for g in (6, 10, 20, 40):
        sc = ReleaseScenario(n=400, churn=0.10, drop=0.03, clusters=g, icc=0.2)
        hits = {"bootstrap": 0, "CR2": 0, "sign-flip": 0}
        zero_se = 0
        for s in draw_releases(sc, reps, np.random.default_rng(1000 + g)):
            d = s.cand.astype(float) - s.base
            boot = cluster_bootstrap_interval(d, s.cluster, n_resamples=2000, seed=0)
            cr2 = cr2_test(d, s.cluster)
            flip = cluster_signflip_interval(d, s.cluster, n_resamples=4000)
            hits["bootstrap"] += boot.low <= truth <= boot.high
            hits["CR2"] += cr2.low <= truth <= cr2.high
            hits["sign-flip"] += flip.low <= truth <= flip.high
            zero_se += cr2.se == 0
        line = ", ".join(f"{k} {v / reps:.3f}" for k, v in hits.items())
        print(f"{g:>2} clusters: {line} (Monte Carlo se {np.sqrt(0.95 * 0.05 / reps):.3f}; CR2 se = 0 in "
              f"{zero_se})", flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 300)
