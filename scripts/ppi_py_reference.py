"""Freeze the PPI++ authors' package's values for tests/stats/test_stats_ppi.py (ppi_py imports numba: about 5 s
at every test run, so the values are computed once here and the test compares against the file this writes).

    .venv/bin/pip install ppi-python && PYTHONPATH=src:tests/stats python scripts/ppi_py_reference.py

writes tests/stats/ppi_py_values.py: for each case of the test (its seeds, sizes and lambdas, the same
simulated suites), ppi_py.ppi_mean_pointestimate, ppi_py.ppi_mean_ci and ppi_py.ppi._calc_lam_glm.
"""

from __future__ import annotations

import pprint
from pathlib import Path

import numpy as np
import ppi_py

from test_stats_ppi import FIXED_LAMBDAS, MEAN_CASES, PAIRED_CASES, _sample, _suite

OUT = Path(__file__).resolve().parents[1] / "tests" / "stats" / "ppi_py_values.py"


def main() -> None:
    mean, fixed, paired = {}, {}, {}
    for seed, n in MEAN_CASES:
        rng, yb, _, fb, _ = _suite(seed)
        lab = _sample(rng, yb.size, n)
        estimate = float(ppi_py.ppi_mean_pointestimate(yb[lab], fb[lab], fb[~lab])[0])
        low, high = ppi_py.ppi_mean_ci(yb[lab], fb[lab], fb[~lab], alpha=0.05)
        grads, hat, un = ((yb[lab] - estimate)[:, None], (fb[lab] - estimate)[:, None], (fb[~lab] - estimate)[:, None])
        lam = float(ppi_py.ppi._calc_lam_glm(grads, hat, un, np.eye(1), clip=True))
        mean[(seed, n)] = (estimate, float(low[0]), float(high[0]), lam)
    for lam in FIXED_LAMBDAS:
        rng, yb, _, fb, _ = _suite(5)
        lab = _sample(rng, yb.size, 120)
        low, high = ppi_py.ppi_mean_ci(yb[lab], fb[lab], fb[~lab], alpha=0.10, lam=lam)
        fixed[lam] = (float(low[0]), float(high[0]))
    for seed, n in PAIRED_CASES:
        rng, yb, yc, fb, fc = _suite(seed)
        lab = _sample(rng, yb.size, n)
        z, g = yc - yb, fc - fb
        estimate = float(ppi_py.ppi_mean_pointestimate(z[lab], g[lab], g[~lab])[0])
        low, high = ppi_py.ppi_mean_ci(z[lab], g[lab], g[~lab], alpha=0.05)
        paired[(seed, n)] = (estimate, float(low[0]), float(high[0]))
    OUT.write_text(
        '"""ppi_py\'s values for tests/stats/test_stats_ppi.py, written by scripts/ppi_py_reference.py '
        f'(ppi-python {getattr(ppi_py, "__version__", "0.2.3+")}); do not edit."""\n\n'
        f"MEAN = {pprint.pformat(mean)}\n\nFIXED_LAMBDA = {pprint.pformat(fixed)}\n\n"
        f"PAIRED = {pprint.pformat(paired)}\n", encoding="utf-8")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
