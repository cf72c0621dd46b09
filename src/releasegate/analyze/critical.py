"""The critical categories' own tests (issue 21 item 1): each critical category is a gate of its own, tested
one-sided at ``critical_alpha`` and not adjusted for the family.

- Pass/fail, one run: the exact McNemar test of broke against fixed (the lesson's Fraud: 6 broke, none fixed,
  p = 1/64).
- Pass/fail over several runs: the same test on each case's majority outcome (a case passes when more than
  half its runs pass); the simulation study (docs/operating-characteristics.md) measured it at <= 0.4% false
  blocks where "any drop of a case's mean" blocked 90-100% of releases that change nothing.
- Scores: the exact sign test of the cases whose mean went down against those whose mean went up.
- ``critical_rule = "any"`` (zero tolerance, the opt-in): any broken or worsened case blocks.

A critical category with no case in the data cannot be measured, so it blocks (fail closed).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from releasegate.model import CriticalSection, CriticalTest
from releasegate.policy import Policy
from releasegate.stats.critical import critical_mcnemar


def _sign_counts(base: np.ndarray, cand: np.ndarray) -> tuple[int, int]:
    return int(np.count_nonzero(cand < base)), int(np.count_nonzero(cand > base))


def _one(label: str, base: np.ndarray, cand: np.ndarray, policy: Policy, *, mcnemar: bool,
         rates: bool) -> CriticalTest:
    if base.size == 0:
        return CriticalTest(label, "no case in the data", 0, 0, 0, 1.0, 1.0, True)
    if mcnemar:
        b, c, method = base, cand, "exact McNemar"
    elif rates:
        # A mean over R runs above one half is 2 k > R passing runs: stats.critical.majority_outcome's rule
        # (an even split fails on both sides alike).
        b, c = (base > 0.5).astype(np.int8), (cand > 0.5).astype(np.int8)
        method = "exact McNemar on majority outcomes"
    else:
        # Scores: the sign test is the exact McNemar test on the indicators "went down" / "went up".
        down, up = _sign_counts(base, cand)
        b = np.r_[np.ones(down), np.zeros(up)]
        c = 1 - b
        method = "exact sign test on per-case scores"
    test = critical_mcnemar(b, c, policy.critical_alpha)
    worse, better = test.count, test.trials - test.count
    if policy.critical_rule == "any":
        # Zero tolerance counts every drop of a case's outcome (any run), as the rule did before the test.
        worse, better = _sign_counts(base, cand)
        return CriticalTest(label, "any broken case (zero tolerance)", int(base.size), worse, better,
                            test.p_regression, test.floor, worse > 0)
    return CriticalTest(label, method, int(base.size), worse, better, test.p_regression, test.floor, test.blocks)


def critical_section(base: np.ndarray, cand: np.ndarray, policy: Policy, *, mcnemar: bool, rates: bool,
                     category_codes: np.ndarray | None,
                     category_labels: Sequence[str]) -> CriticalSection | None:
    """The tests of the policy's critical categories on paired per-case outcomes (a case's mean over runs);
    None when the policy names no critical category."""
    if not policy.critical:
        return None
    labels = [str(x) for x in category_labels]
    tests = []
    for label in policy.critical:
        if category_codes is None or label not in labels:
            inside = np.zeros(base.size, dtype=bool)
        else:
            inside = category_codes == labels.index(label)
        tests.append(_one(label, base[inside], cand[inside], policy, mcnemar=mcnemar, rates=rates))
    return CriticalSection(policy.critical_rule, policy.critical_alpha, tuple(tests))
