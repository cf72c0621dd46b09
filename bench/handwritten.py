"""The yardstick of the large rows (issue 32): the pandas script a user would write by hand for the note's core
answer, run in the same environment as the command it is compared with. It reads the file, joins each candidate
to the baseline on the case, crosstabs the outcomes, prints per-category pass rates and the exact McNemar p.

The exact McNemar p is summed in numpy (bench/exact_mcnemar.py): the default install has no scipy. Usage:

    python bench/handwritten.py RESULTS.csv [BASELINE]
"""

import sys

import pandas as pd

from exact_mcnemar import mcnemar_exact_p


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
