"""The attainable p-value sets beyond 1,023 discordant pairs (stats/discrete.py): the integer mid-p of 1,024 to
2,000 pairs once raised OverflowError (its integer sums made into floats); every set here is checked against
scipy's binomial tails, exact and mid-p, and the sets of up to 1,023 pairs against their figures captured before
that change, bit for bit."""

from __future__ import annotations

import hashlib
import math
from fractions import Fraction
from itertools import accumulate

import numpy as np
import pytest

from releasegate.stats import discrete
from releasegate.stats.binomial import EXACT_MAX_N
from releasegate.stats.discrete import (
    at_most,
    attainable_pvalues,
    discrete_bonferroni,
    discrete_holm,
    largest_attainable_at_most,
    tarone_bonferroni,
    tarone_holm,
)

# SHA-256 of the sets of n = 0..1,023 pairs, each set's float64 bytes in turn, as stats.discrete._attainable gave
# them before the mid-p of more pairs was computed otherwise (captured from that version's code).
CAPTURED = {False: "4425123ba96acabfcc1a3db46baf90b6e053ee51132a9541f83ca2746522f682",
            True: "ad72dcfda6a6c910d5db24a5154396416734543ab5fa181608b27f4f8bd75184"}
# And a few of those figures themselves: the mid-p set's smallest three (subnormal for 1,022 and 1,023 pairs).
CAPTURED_SMALLEST_MIDP = {1022: ("0x0.8000000000000p-1022", "0x1.0000000000000p-1013", "0x1.ff80400000000p-1005"),
                          1023: ("0x0.4000000000000p-1022", "0x1.0040000000000p-1014", "0x1.0040200000000p-1005")}
LARGE = (1024, 1025, 1500, EXACT_MAX_N, EXACT_MAX_N + 1, 10_000)


@pytest.mark.parametrize("midp", [False, True])
def test_the_sets_of_up_to_1023_pairs_are_the_figures_captured_before(midp) -> None:
    digest = hashlib.sha256()
    for n in range(1024):
        discrete._attainable.cache_clear()
        digest.update(attainable_pvalues(n, midp).tobytes())
    assert digest.hexdigest() == CAPTURED[midp]
    for n, smallest in CAPTURED_SMALLEST_MIDP.items():
        assert tuple(float(v).hex() for v in attainable_pvalues(n, midp=True)[:3]) == smallest


def _scipy_sets(n: int) -> tuple[np.ndarray, np.ndarray]:
    """The one-sided exact p P(X >= k) and its mid-p P(X > k) + P(X = k) / 2, X ~ Bin(n, 1/2), k = 0..n, sorted."""
    from scipy.stats import binom

    k = np.arange(n + 1)
    exact = binom.sf(k - 1, n, 0.5)
    return np.sort(exact), np.sort(exact - binom.pmf(k, n, 0.5) / 2)


@pytest.mark.parametrize("n", LARGE)
def test_the_sets_beyond_1023_pairs_are_scipys_binomial_tails(n) -> None:
    exact, midp = _scipy_sets(n)
    for flag, want in ((False, exact), (True, midp)):
        got = attainable_pvalues(n, midp=flag)
        assert got.shape == (n + 1,) and not got.flags.writeable
        assert np.all(np.isfinite(got)) and np.all(np.diff(got) >= 0) and 0.0 <= got[0] and got[-1] <= 1.0
        # Where the tails are doubles above the smallest normal one they agree to scipy's own precision; below,
        # both lose them to zero (2^-n is no double past 1,074 pairs).
        seen = want > 1e-300
        np.testing.assert_allclose(got[seen], want[seen], rtol=1e-10)
        assert np.all(got[~seen] <= 1e-300)
    # The mid-p set lies between the exact set's neighbours: P(X >= k + 1) <= mid-p_k <= P(X >= k).
    ex, mid = attainable_pvalues(n), attainable_pvalues(n, midp=True)
    assert np.all(mid <= ex) and np.all(mid[1:] >= ex[:-1])


@pytest.mark.parametrize("n", [1024, 2000])
def test_the_two_sided_exact_p_values_are_twice_the_one_sided_set(n) -> None:
    # The two-sided exact McNemar p of k of n broken is min(1, 2 P(X >= k)) for k >= n / 2 (scipy's binomtest);
    # its mid-p version, min(1, 2 mid-p_k).
    from scipy.stats import binom, binomtest

    ex, mid = attainable_pvalues(n), attainable_pvalues(n, midp=True)
    for k in (n // 2 + 1, n // 2 + 20, n // 2 + 60, int(0.6 * n), int(0.7 * n)):
        one = ex[n - k]  # ascending: P(X >= k) is the (n - k)-th smallest
        assert min(1.0, 2 * one) == pytest.approx(binomtest(k, n, 0.5).pvalue, rel=1e-10)
        want_mid = 2 * (binom.sf(k, n, 0.5) + binom.pmf(k, n, 0.5) / 2)
        assert min(1.0, 2 * mid[n - k]) == pytest.approx(want_mid, rel=1e-10)


@pytest.mark.parametrize("n", [1024, 1025, 2000])
def test_the_integer_mid_p_beyond_1023_pairs_is_rounded_once(n) -> None:
    counts = [math.comb(n, k) for k in range(n + 1)]
    upper = list(accumulate(reversed(counts)))[::-1]  # 2^n P(X >= k)
    want = sorted(float(Fraction(2 * u - c, 2 ** (n + 1))) for u, c in zip(upper, counts))
    assert attainable_pvalues(n, midp=True).tolist() == want


@pytest.mark.parametrize("n", LARGE)
def test_every_look_up_reads_the_large_sets(n) -> None:
    # at_most, largest_attainable_at_most and the procedures that read the sets (their floors, their sums)
    # all work at these sizes, exact and mid-p.
    for midp in (False, True):
        values = attainable_pvalues(n, midp)
        ts = np.array([0.0, 1e-300, 1e-12, 0.001, 0.01, 0.05, 0.5, 1.0])
        found = at_most(n, ts, midp)
        for t, f in zip(ts, found):
            below = values[values <= t * (1 + 1e-9)]
            assert f == (below[-1] if below.size else 0.0) == largest_attainable_at_most(n, float(t), midp)
        p = float(values[values <= 0.01][-1])
        family = ([n, n // 2, 30], [p, 0.2, 0.5])
        for procedure in (discrete_holm, discrete_bonferroni):
            adjusted = procedure(*family, midp=midp).adjusted
            assert all(0.0 <= a <= 1.0 for a in adjusted) and adjusted[0] >= p
        for procedure in (tarone_holm, tarone_bonferroni):
            result = procedure(*family, alpha=0.05, midp=midp)
            assert result.testable[0] and result.rejected[0]
