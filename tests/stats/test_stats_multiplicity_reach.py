"""Whether a test could reach alpha within its family, per correction: the step-up methods included."""

from __future__ import annotations

import numpy as np
import pytest

from releasegate.stats.mcnemar import discordant_needed
from releasegate.stats.multiplicity import (
    adjust_pvalues,
    best_case_adjusted,
    best_case_multiplier,
    can_reach,
    discordant_needed_in_family,
)

OTHERS = np.full(9, 0.03)  # the issue's family: ten tests, all p = 0.03


def test_hochberg_example_from_the_issue():
    assert np.allclose(adjust_pvalues(np.full(10, 0.03), "hochberg"), 0.03)
    # The old reasoning: a multiplier of 10 needs 2^-n * 10 < 0.05, i.e. 8 pairs, for every method.
    assert discordant_needed(0.05, best_case_multiplier("hochberg", 10)) == 8
    # In the family, five pairs all broke (p = 1/32) are enough under hochberg and bh, not under holm.
    assert can_reach("hochberg", 5, 0.05, OTHERS) and can_reach("bh", 5, 0.05, OTHERS)
    assert not can_reach("holm", 5, 0.05, OTHERS)
    assert discordant_needed_in_family("hochberg", 0.05, OTHERS) == 5
    assert discordant_needed_in_family("bh", 0.05, OTHERS) == 5
    assert discordant_needed_in_family("holm", 0.05, OTHERS) == 8
    assert discordant_needed_in_family("bonferroni", 0.05, OTHERS) == 8
    assert discordant_needed_in_family("none", 0.05, OTHERS) == 5


@pytest.mark.parametrize("method", ["holm", "hochberg", "bh", "bonferroni", "none"])
def test_needed_is_the_boundary(method):
    rng = np.random.default_rng(1)
    others = rng.uniform(0, 1, 6)
    n = discordant_needed_in_family(method, 0.05, others)
    assert n is not None and can_reach(method, n, 0.05, others)
    assert n == 0 or not can_reach(method, n - 1, 0.05, others)
    assert best_case_adjusted(method, n, others) <= 0.05


def test_midp_needs_one_pair_fewer_alone():
    assert discordant_needed_in_family("none", 0.05, np.array([]), midp=True) == 4
    assert discordant_needed_in_family("none", 0.05, np.array([])) == 5


STATSMODELS_NAME = {"holm": "holm", "hochberg": "simes-hochberg", "bh": "fdr_bh", "bonferroni": "bonferroni"}


@pytest.mark.parametrize("method", sorted(STATSMODELS_NAME))
@pytest.mark.parametrize(("alpha", "others", "limit"), [
    (0.05, [0.5] * 9, 5),  # ten tests: five pairs all broke (1/32 * 10) cannot reach 0.05 under any method
    (0.05, [0.5] * 9, 40),
    (0.01, [0.002, 0.3, 0.04], 40),
    (1.0, [0.5], 40),  # at alpha = 1 no pair is needed
])
def test_needed_in_family_against_statsmodels(method, alpha, others, limit):
    """The fewest pairs, all broken, that reach alpha, found by statsmodels' multipletests on every count up to
    the limit; None when none does."""
    from statsmodels.stats.multitest import multipletests

    def reaches(n):
        family = np.r_[2.0**-n if n else 1.0, others]
        return multipletests(family, method=STATSMODELS_NAME[method])[1][0] <= alpha

    want = next((n for n in range(limit + 1) if reaches(n)), None)
    assert discordant_needed_in_family(method, alpha, np.array(others), limit=limit) == want


@pytest.mark.parametrize("alpha", [0.0, -0.05, 1.5])
def test_needed_in_family_refuses_a_level_outside_zero_to_one(alpha):
    with pytest.raises(ValueError, match="alpha must be in"):
        discordant_needed_in_family("holm", alpha, OTHERS)


def test_reaching_alpha_exactly_counts():
    # Four pairs all broke give p = 1/16: at alpha = 1/16 that is significant (p <= alpha), alone or as the
    # smallest of two tests at 1/8 (Holm: 2/16 -> 1/8).
    assert can_reach("none", 4, 1 / 16, np.array([]))
    assert can_reach("holm", 4, 1 / 8, np.array([0.5]))
    assert not can_reach("holm", 3, 1 / 8, np.array([0.5]))


def test_the_best_case_without_pairs_and_the_multiplier():
    # No discordant pair: nothing can break, the p is 1 (read exact or as a mid-p) and stays 1 adjusted.
    for midp in (False, True):
        assert best_case_adjusted("none", 0, np.array([]), midp) == 1.0
        assert best_case_adjusted("holm", 0, np.array([0.5]), midp) == 1.0
    assert best_case_adjusted("none", 3, np.array([]), midp=True) == 2.0**-4
    # The factor on the smallest p: m for every correction, 1 without one.
    assert best_case_multiplier("none", 10) == 1.0
    assert [best_case_multiplier(m, 10) for m in ("holm", "hochberg", "bh", "bonferroni")] == [10.0] * 4


@pytest.mark.parametrize(("alpha", "fewest"), [(0.5, 1), (1 / 16, 4), (0.05, 5), (1.0, 0)])
def test_needed_alone_by_hand(alpha, fewest):
    # Alone and uncorrected: the fewest n with 2^-n <= alpha (a p exactly at alpha reaches it).
    assert discordant_needed_in_family("none", alpha, np.array([])) == fewest
