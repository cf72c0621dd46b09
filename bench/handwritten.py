"""The yardstick of the large rows (issue 32): the pandas script a user would write by hand for the note's core
answer, run in the same environment as the command it is compared with. It reads the file, joins each candidate
to the baseline on the case, crosstabs the outcomes, prints per-category pass rates and the exact McNemar p.

The default install has no scipy, so the exact two-sided binomial p (k of n changes being fixes, p = 1/2) is
summed here: log pmf(k + 1) - log pmf(k) = log(n - k) - log(k + 1), from log pmf(0) = -n log 2, and the
smaller tail doubled (the distribution is symmetric). Usage:

    python bench/handwritten.py RESULTS.csv [BASELINE]
"""

import sys

import numpy as np
import pandas as pd


def mcnemar_exact_p(fixed: int, broke: int) -> float:
    n, k = fixed + broke, min(fixed, broke)
    if 2 * k == n:
        return 1.0
    steps = np.log(np.arange(n, n - k, -1)) - np.log(np.arange(1, k + 1))
    log_pmf = -n * np.log(2.0) + np.concatenate([[0.0], np.cumsum(steps)])
    top = log_pmf.max()
    return min(1.0, 2.0 * float(np.exp(top) * np.exp(log_pmf - top).sum()))


path, baseline = sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "r1-live"
results = pd.read_csv(path)
print(results.groupby("release")["passed"].mean().round(3))
base = results[results["release"] == baseline]
for candidate in [r for r in results["release"].unique() if r != baseline]:
    pairs = base.merge(results[results["release"] == candidate], on="case_id", suffixes=("_base", "_cand"))
    print(pd.crosstab(pairs["passed_base"], pairs["passed_cand"]))
    print(pairs.groupby("category_base")[["passed_base", "passed_cand"]].mean().round(3))
    fixed = int(((pairs["passed_base"] == 0) & (pairs["passed_cand"] == 1)).sum())
    broke = int(((pairs["passed_base"] == 1) & (pairs["passed_cand"] == 0)).sum())
    print(f"{candidate}: fixed {fixed}, broke {broke}, McNemar p = {mcnemar_exact_p(fixed, broke):.3g}")
