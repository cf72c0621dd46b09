"""A harmless release for the three verdicts' tests (issue 34): generated, seeded."""

from __future__ import annotations

import numpy as np

CATEGORIES = ("billing", "cards", "fraud", "loans")


def harmless_release(n: int = 200, churn: float = 0.16, seed: int = 27) -> str:
    """A candidate that changes nothing on average, at a baseline pass rate of 0.9: each case is both-pass,
    broken, fixed or both-fail with chances (0.9 - churn/2, churn/2, churn/2, 0.1 - churn/2), so a share
    ``churn`` changes outcome, as many fixed as broken in expectation (seeded: the test's dataset is fixed)."""
    rng = np.random.default_rng(seed)
    cells = rng.choice(4, size=n, p=[0.9 - churn / 2, churn / 2, churn / 2, 0.1 - churn / 2])
    base, cand = np.isin(cells, (0, 1)), np.isin(cells, (0, 2))
    rows = ["release,case_id,passed,category"]
    for release, outcome in (("r1", base), ("r2", cand)):
        rows += [f"{release},c{i:03d},{int(outcome[i])},{CATEGORIES[i % 4]}" for i in range(n)]
    return "\n".join(rows) + "\n"
