"""The family under discrete Holm (issue 21 item 2; with no critical category and no error column the one
error budget of issue 34 is this family, every weight 1), the default correction: family-wise error by exhaustive
enumeration, its relation to Holm, powerless flags right under step-up methods, and its operating
characteristics on simulated releases through the library's own plan."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from releasegate.analyze.comparisons import compare_binary
from releasegate.analyze.budget import apply_budget
from releasegate.plan.evaluate import operating_characteristics
from releasegate.plan.gate import plan_gate
from releasegate.plan.simulate import ReleaseScenario
from releasegate.policy import Policy
from releasegate.stats.discrete import discrete_holm, discrete_holm_mixed
from releasegate.stats.multiplicity import holm_adjust


def _tail(k: int, n: int) -> float:
    """One-sided exact McNemar p of k broke among n discordant pairs, from scratch: P(Bin(n, 1/2) >= k)."""
    return sum(math.comb(n, i) for i in range(k, n + 1)) / 2**n


def _fwer(ns: tuple[int, ...], adjust, alpha: float = 0.05) -> float:
    """Exact family-wise error under the global null: every outcome of independent Bin(n_j, 1/2) counts."""
    total = 0.0
    for ks in itertools.product(*(range(n + 1) for n in ns)):
        prob = math.prod(math.comb(n, k) / 2**n for n, k in zip(ns, ks))
        p = np.array([_tail(k, n) for k, n in zip(ks, ns)])
        if np.any(np.asarray(adjust(ns, p)) <= alpha):
            total += prob
    return total


def _discrete(ns, p):
    return discrete_holm_mixed(ns, p, [True] * len(ns)).adjusted


def _holm(ns, p):
    return holm_adjust(p)


@pytest.mark.parametrize("ns", [(8, 8, 8, 6), (1, 7, 8, 5), (3, 12, 4), (10, 2, 2, 2, 6)])
def test_discrete_holm_controls_the_family_wise_error_and_uses_more_of_it_than_holm(ns):
    discrete, holm = _fwer(ns, _discrete), _fwer(ns, _holm)
    assert discrete <= 0.05 + 1e-12
    assert discrete >= holm - 1e-12


def test_the_measured_share_of_the_level_on_8_8_8_6():
    # issue 21's report: on (8, 8, 8, 6) Holm spends 0.0117 of alpha, discrete Holm 0.0271.
    assert _fwer((8, 8, 8, 6), _holm) == pytest.approx(0.0117, abs=5e-5)
    assert _fwer((8, 8, 8, 6), _discrete) == pytest.approx(0.0271, abs=5e-5)


def test_mixed_families_reduce_to_discrete_holm_and_to_holm():
    ns = np.array([5, 9, 0, 14])
    p = np.array([_tail(5, 5), _tail(6, 9), 1.0, _tail(10, 14)])
    assert discrete_holm_mixed(ns, p, [True] * 4).adjusted == pytest.approx(discrete_holm(ns, p).adjusted)
    assert discrete_holm_mixed(ns, p, [False] * 4).adjusted == pytest.approx(holm_adjust(p))
    # A member that can reach any p only raises the others' adjusted p (F_j(t) <= t).
    mixed = discrete_holm_mixed(ns, p, [True, True, True, False]).adjusted
    assert all(m >= d - 1e-15 for m, d in zip(mixed, discrete_holm(ns, p).adjusted))
    assert all(m <= h + 1e-15 for m, h in zip(mixed, holm_adjust(p)))


def _category(label: str, broke: int, fixed: int, same: int = 40) -> tuple[np.ndarray, np.ndarray]:
    base = np.r_[np.ones(broke), np.zeros(fixed), np.ones(same)]
    cand = np.r_[np.zeros(broke), np.ones(fixed), np.ones(same)]
    return base, cand


def adjust_family(overall, categories, policy):
    budgeted = apply_budget(overall, categories, policy)
    return budgeted.overall, budgeted.categories


def _family(counts, policy):
    cats = [compare_binary(f"c{i}", *_category(f"c{i}", b, f), policy) for i, (b, f) in enumerate(counts)]
    base = np.concatenate([_category("", b, f)[0] for b, f in counts])
    cand = np.concatenate([_category("", b, f)[1] for b, f in counts])
    return adjust_family(compare_binary("overall", base, cand, policy), cats, policy)


def test_powerless_is_right_under_hochberg():
    # issue 21: nine categories each with 5 broke and none fixed (p = 1/32 = 0.031); "powerless" must be what
    # the step-up gives, not m times the floor. The categories share one weight (1/9 each beside the overall
    # test's 1, issue 46): Hochberg reads each at p / (w m / W) = (1/32) / (5/9) = 0.05625 for every one, so
    # none fires, and all broke would fire from 9 changed cases on (9 x 1.8 x 2^-9 < 0.05).
    policy = Policy(correction="hochberg")
    _, cats = _family([(5, 0)] * 9, policy)
    assert all(c.p_adjusted == pytest.approx(0.05625) and c.powerless and c.discordant_needed == 9 for c in cats)
    # Under weighted Holm the overall test steps first (all 45 broke) and passes its weight on: each category is
    # then read at p x 9 = 0.28125.
    _, holm = _family([(5, 0)] * 9, Policy(correction="holm"))
    assert all(c.p_adjusted == pytest.approx(9 / 32) and c.powerless and c.discordant_needed == 9 for c in holm)


def test_discrete_holm_is_the_default_and_spends_the_level_where_it_can_be_used():
    assert Policy().correction == "discrete-holm"
    # Eight categories that cannot change (no discordant pair) leave the level to the two tests that can (the
    # overall and c0, both 6 broke of 6: 2^-6 each). The overall test (weight 1) steps first, where c0 (weight
    # 1/9) is read below its floor and spends nothing, then c0 with the overall's weight passed on: 1/64 each.
    # Weighted Holm counts every member as reaching any p: c0 is read at p x 9 after the overall test.
    counts = [(6, 0)] + [(0, 0)] * 8
    _, discrete = _family(counts, Policy())
    _, holm = _family(counts, Policy(correction="holm"))
    assert holm[0].p_adjusted == pytest.approx(9 / 64) and holm[0].powerless
    assert discrete[0].p_adjusted == pytest.approx(1 / 64) and not discrete[0].powerless


REPS = 250
_REGRESSION = {"overall_regression", "category_regression"}


def _rate(correction: str, **scenario) -> float:
    sc = ReleaseScenario(n=400, p0=0.9, categories=9, **scenario)
    gate = plan_gate(Policy(correction=correction), rules=_REGRESSION)
    (cell,) = operating_characteristics(gate, [sc], reps=REPS, seed=2102)
    return cell.block.rate


def test_operating_characteristics_against_holm():
    # Measured (issue 21, 4,000 reps, overall + nine categories): false blocks Holm 0.5%, discrete Holm 3.4%
    # at 10% churn; a 3-point drop added on top: 16.5% -> 34% (400 reps here).
    assert _rate("discrete-holm", churn=0.10) <= 0.08
    assert _rate("discrete-holm", churn=0.10, drop=0.03) >= _rate("holm", churn=0.10, drop=0.03) + 0.07


def test_a_family_too_large_for_the_discrete_step_down_is_adjusted_with_holm():
    from releasegate.analyze.budget import DISCRETE_MAX_FAMILY

    counts = [(1, 0)] * DISCRETE_MAX_FAMILY  # with the overall: one member more than the discrete limit
    _, cats = _family(counts, Policy())
    _, holm = _family(counts, Policy(correction="holm"))
    assert [c.p_adjusted for c in cats] == [c.p_adjusted for c in holm]
