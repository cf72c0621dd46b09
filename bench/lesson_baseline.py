"""The baseline row: the lesson's ten-line pandas + scipy comparison ("Comparing releases"), verbatim except
that the URL base is the bundled example's folder. Usage: python bench/lesson_baseline.py [EXAMPLE_DIR]"""

import sys

import pandas as pd
from scipy import stats

base = (sys.argv[1] if len(sys.argv) > 1 else "src/releasegate/examples/bank-assistant") + "/"
cases = pd.read_csv(base + "eval_cases.csv")
results = pd.read_csv(base + "eval_results.csv").merge(cases, on="case_id")
wide = results.pivot(index="case_id", columns="release", values="passed")
print(results.groupby("release")["passed"].mean().round(3))
for candidate in ["r2-new-prompt", "r3-small-model"]:
    fixed = int(((wide["r1-live"] == 0) & (wide[candidate] == 1)).sum())
    broke = int(((wide["r1-live"] == 1) & (wide[candidate] == 0)).sum())
    p = stats.binomtest(fixed, fixed + broke, 0.5).pvalue
    print(f"{candidate}: fixed {fixed}, broke {broke}, McNemar p = {p:.3f}")
