"""The critical-category tests and churn, against exact enumeration and the lesson's case."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from releasegate.stats.critical import (
    any_broken_rule,
    churn,
    critical_majority,
    critical_mcnemar,
    critical_sign_test,
    exchangeability_test,
    majority_outcome,
)


def test_the_lessons_fraud_case_blocks():
    base = np.ones(45, dtype=int)
    cand = base.copy()
    cand[:6] = 0
    result = critical_mcnemar(base, cand, alpha=0.10)
    assert result.p_regression == 1 / 64 and result.blocks
    assert (result.count, result.trials, result.floor) == (6, 6, 1 / 64)
    assert critical_mcnemar(base, cand, alpha=0.01).blocks is False
    # "Below alpha", as every rule reads it (SPEC 5): a p of exactly 1/64 at a level of 1/64 does not block.
    assert critical_mcnemar(base, cand, alpha=1 / 64).blocks is False


def test_one_broken_case_does_not_block_by_test_but_does_under_zero_tolerance():
    base = np.ones(50, dtype=int)
    cand = base.copy()
    cand[0] = 0
    assert critical_mcnemar(base, cand).p_regression == 0.5
    assert any_broken_rule(base, cand) and not any_broken_rule(base, base)


def test_sign_test_and_majority_on_runs():
    base = np.array([[1, 1, 1, 0, 1], [1, 1, 0, 0, 1], [1, 0, 1, 0, 1]])  # 3 runs, 5 cases
    cand = np.array([[0, 1, 1, 0, 1], [0, 1, 1, 0, 1], [1, 1, 1, 1, 0]])
    assert majority_outcome(base).tolist() == [1, 1, 1, 0, 1]
    assert majority_outcome(cand).tolist() == [0, 1, 1, 0, 1]
    maj = critical_majority(base, cand)
    assert (maj.count, maj.trials, maj.p_regression) == (1, 1, 0.5)
    # Per-case means: base (1, 2/3, 2/3, 0, 1), cand (1/3, 1, 1, 1/3, 2/3): down on cases 0 and 4, up on 1-3.
    sign = critical_sign_test(base, cand)
    assert (sign.count, sign.trials) == (2, 5)
    assert sign.p_regression == pytest.approx(sum(math.comb(5, k) for k in range(2, 6)) / 32)
    assert majority_outcome(np.array([[1, 0], [0, 1]])).tolist() == [0, 0]  # even split: fail for both


def test_exchangeability_lesson_case_and_value():
    base = np.ones(45, dtype=int)
    cand = base.copy()
    cand[:6] = 0
    result = exchangeability_test(base, base.copy(), cand)
    assert result.p_regression == pytest.approx(3.0**-6, rel=1e-12) and result.blocks
    # A flaky baseline weakens the same breaks: where the rerun fails too, the candidate is only one of two
    # failures, and each such case counts with probability 2/3 under no change.
    rerun = base.copy()
    rerun[:6] = 0
    weak = exchangeability_test(base, rerun, cand)
    assert weak.p_regression == pytest.approx((2 / 3) ** 6, rel=1e-12) and not exchangeability_test(base, rerun, cand, alpha=0.05).blocks


def _enumerated_exchangeability_p(base, rerun, cand):
    """Permute the three outcomes within every informative case (all 3 orders equally likely) and count."""
    rows = np.stack([base, rerun, cand], axis=1)
    informative = [r for r in rows if 0 < r.sum() < 3]

    def stat(triples):
        # k1 + (n2 - k2): in a one-failure case the candidate failed iff it is the failure; in a one-pass case
        # iff it is not the pass. Either way: the informative cases where the candidate failed.
        return sum(t[2] == 0 for t in triples)

    observed = stat(informative)
    options = [sorted({tuple(np.roll(r, s)) for s in range(3)}) for r in informative]
    total = hits = 0
    for combo in itertools.product(*options):
        total += 1
        hits += stat(np.array(combo)) >= observed
    return hits / total


@pytest.mark.parametrize("seed", range(6))
def test_exchangeability_p_equals_full_enumeration(seed):
    rng = np.random.default_rng(seed)
    base, rerun, cand = (rng.random((3, 9)) < np.array([[0.6], [0.6], [0.45]])).astype(int)
    exact = _enumerated_exchangeability_p(base, rerun, cand)
    assert exchangeability_test(base, rerun, cand).p_regression == pytest.approx(exact, rel=1e-12)


def test_exchangeability_level_under_the_null_by_enumeration():
    """Every case one-failure or one-pass at random: the test's size at 0.10 is at most 0.10 exactly."""
    n1, n2 = 5, 4
    from releasegate.stats.critical import _binom_pmf
    size = 0.0
    for k1 in range(n1 + 1):
        for k2 in range(n2 + 1):
            base = np.ones(n1 + n2, dtype=int)
            rerun = base.copy()
            cand = base.copy()
            cand[:k1] = 0
            rerun[k1:n1] = 0
            base[n1:] = 0
            rerun[n1:] = 0
            cand[n1:] = 0
            cand[n1:n1 + k2] = 1
            base[n1 + k2:] = 1
            if exchangeability_test(base, rerun, cand).p_regression <= 0.10:
                size += _binom_pmf(n1, 1 / 3)[k1] * _binom_pmf(n2, 1 / 3)[k2]
    assert 0 < size <= 0.10


def test_churn_from_two_runs_and_from_many():
    a = np.array([1, 1, 0, 1, 0, 1, 1, 1])
    b = np.array([1, 0, 0, 1, 1, 1, 1, 1])
    result = churn(a, b, category=np.array(list("xxxxyyyy")))
    assert result.share == 2 / 8 and result.n == 8
    assert result.by_category == (("x", 0.25, 4), ("y", 0.25, 4))
    runs = np.array([[1, 1, 0], [1, 0, 0], [1, 1, 1]])
    # Case 1 passes 2 of 3 runs: pairs disagree on 2 of 3; case 2: 1 of 3 runs, also 2 of 3.
    assert churn(runs).share == pytest.approx((0 + 2 / 3 + 2 / 3) / 3)
    rate = runs.mean()
    assert churn(runs).ceiling == pytest.approx(2 * rate * (1 - rate))


def test_churn_estimate_is_unbiased_by_simulation():
    rng = np.random.default_rng(3)
    pi = rng.choice([0.0, 1.0, 0.7], size=4000, p=[0.1, 0.6, 0.3])
    runs = (rng.random((5, pi.size)) < pi).astype(int)
    truth = float(np.mean(2 * pi * (1 - pi)))
    assert churn(runs).share == pytest.approx(truth, abs=0.01)


def test_bad_inputs_are_refused():
    with pytest.raises(ValueError):
        critical_mcnemar([1, 0], [1, 2])
    with pytest.raises(ValueError):
        churn(np.ones((1, 5)))
    with pytest.raises(ValueError):
        churn([1, 0], [1])
