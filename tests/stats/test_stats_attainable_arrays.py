"""The attainable p-value sets as numpy arrays and the step-down's look-ups made one member at a time
(stats/discrete.py, stats/step_down.py): the same figures, bit for bit, as the tuples of Python floats searched by
bisect and the loop over the steps that summed one look-up at a time, which are kept here to compare."""

from __future__ import annotations

import bisect
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from releasegate.stats import discrete, step_down
from releasegate.stats.binomial import EXACT_MAX_N, binom_half_pmf_all
from releasegate.stats.discrete import at_most, attainable_pvalues, largest_attainable_at_most
from releasegate.stats.step_down import CONTINUOUS, largest_spend, weighted_best_case, weighted_discrete_holm

RTOL = 1e-9


def _attainable_as_it_was(n: int, midp: bool) -> tuple[float, ...]:
    """stats.discrete._attainable before it kept arrays: a tuple of Python floats."""
    if n == 0:
        return (1.0,)
    if n <= EXACT_MAX_N:
        pmf = [1] * (n + 1)
        for k in range(n):
            pmf[k + 1] = pmf[k] * (n - k) // (k + 1)
        denom = 1 << n
        tail, upper = 0, []
        for k in range(n, -1, -1):
            tail += pmf[k]
            upper.append(tail)
        upper.reverse()
        values = [(upper[k] - pmf[k] / 2) / denom for k in range(n + 1)] if midp else [u / denom for u in upper]
        return tuple(sorted(min(1.0, float(v)) for v in values))
    pmf_f = binom_half_pmf_all(n)
    upper_f = np.cumsum(pmf_f[::-1])[::-1]
    return tuple(np.sort(np.minimum(1.0, upper_f - pmf_f / 2 if midp else upper_f)).tolist())


def _at_most_as_it_was(n: int, t: float, midp: bool = False) -> float:
    values = _attainable_as_it_was(n, midp)
    i = bisect.bisect_right(values, t * (1 + RTOL))
    return values[i - 1] if i > 0 else 0.0


def _spent_as_it_was(trials: int, t: float) -> float:
    return min(1.0, t) if trials == CONTINUOUS else _at_most_as_it_was(trials, min(1.0, t))


def _steps_as_they_were(p, w, n, until=None, cap=None):
    """step_down._steps_by_loop before it looked each member up at every step at once."""
    ratio = p / w
    order = step_down._order(p, w, cap)
    out = np.full(p.size, np.nan)
    running = 0.0
    top = math.inf if cap is None else cap
    for k in range(p.size):
        lam = float(ratio[order[k]])
        total = sum(_spent_as_it_was(int(n[i]), min(top, lam * float(w[i]))) for i in order[k:])
        running = max(running, total, float(p[order[k]]))
        out[order[k]] = min(1.0, running)
        if order[k] == until:
            break
    return out, order


def _bits(values) -> bytes:
    return np.asarray(values, dtype=np.float64).tobytes()


@pytest.mark.parametrize("n", [0, 1, 2, 3, 17, 64, 1023, 1024, 1500, EXACT_MAX_N, EXACT_MAX_N + 1, 14_250, 60_000])
@pytest.mark.parametrize("midp", [False, True])
def test_the_sets_are_the_tuples_they_were(n, midp) -> None:
    if midp and 1023 < n <= EXACT_MAX_N:
        # The tuples' integer mid-p of more than 1,023 pairs overflowed a float; the set is now one exact quotient
        # each (tests/stats/test_stats_attainable_large.py checks it against scipy).
        with pytest.raises(OverflowError):
            _attainable_as_it_was(n, midp)
        got = attainable_pvalues(n, midp)
        assert got.size == n + 1 and np.all(np.isfinite(got)) and not got.flags.writeable
        return
    got = attainable_pvalues(n, midp)
    assert _bits(got) == _bits(_attainable_as_it_was(n, midp))
    assert not got.flags.writeable  # kept for the next call: nobody may write into it


@settings(max_examples=80, deadline=None, derandomize=True)
@given(st.integers(0, EXACT_MAX_N), st.booleans())
def test_the_integer_sums_are_the_tuples_they_were(n, midp) -> None:
    midp = midp and n <= 1023  # beyond, the tuples' integer mid-p overflowed a float (above)
    discrete._attainable.cache_clear()
    assert _bits(attainable_pvalues(n, midp)) == _bits(_attainable_as_it_was(n, midp))


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.integers(0, 3000), st.lists(st.floats(0.0, 1.2) | st.sampled_from([0.0, 0.05, 1.0]), max_size=8),
       st.booleans())
def test_a_look_up_is_what_bisect_on_the_tuple_found(n, ts, near) -> None:
    values = attainable_pvalues(n)
    if near and values.size:  # thresholds on and around attainable values, within the slack and just outside it
        ts = ts + [float(v) * f for v in values[:: max(1, values.size // 5)] for f in (1.0, 1 + 5e-10, 1 + 2e-9, 1 - 1e-12)]
    for t in ts:
        assert _bits([largest_attainable_at_most(n, t)]) == _bits([_at_most_as_it_was(n, t)])
    assert _bits(at_most(n, np.array(ts, dtype=float))) == _bits([_at_most_as_it_was(n, t) for t in ts])


def _family(seed: int) -> tuple[np.ndarray, np.ndarray, list[int | None]]:
    rng = np.random.default_rng(seed)
    m = int(rng.integers(1, 12))
    trials = [None if rng.random() < 0.2 else int(rng.choice([0, 1, 3, 8, 30, 200, 2500])) for _ in range(m)]
    p = np.array([rng.random() if t is None else float(rng.choice(attainable_pvalues(t))) for t in trials])
    if rng.random() < 0.3:
        p[rng.integers(0, m)] = p[0]  # ties in the step order
    w = rng.choice([0.05, 0.5, 1.0, 1.0, 3.0, 40.0], m)
    return p, w, trials


@pytest.mark.parametrize("seed", range(400))
def test_the_step_down_is_the_loop_it_was(seed) -> None:
    p, w, trials = _family(seed)
    n = np.array([CONTINUOUS if t is None else t for t in trials])
    for cap in (None, 0.05, 0.01):
        got, order = step_down._steps_by_loop(p, w, n, cap=cap)
        want, want_order = _steps_as_they_were(p, w, n, cap=cap)
        assert _bits(got) == _bits(want) and order.tolist() == want_order.tolist()
        for until in range(p.size):
            got, _ = step_down._steps_by_loop(p, w, n, until=until, cap=cap)
            want, _ = _steps_as_they_were(p, w, n, until=until, cap=cap)
            assert _bits(got) == _bits(want)
    # And through the public functions the budget calls.
    assert weighted_discrete_holm(p, w, trials, cap=0.05).adjusted == tuple(_steps_as_they_were(p, w, n, cap=0.05)[0])
    floor = 2.0 ** -8
    best = weighted_best_case(0, floor, p, w, trials, cap=0.05)
    p0 = p.copy()
    p0[0] = floor
    assert _bits([best]) == _bits([_steps_as_they_were(p0, w, n, until=0, cap=0.05)[0][0]])
    if all(t is not None for t in trials):
        assert 0.0 <= largest_spend(w, trials, 0.05) <= 0.05


def test_the_step_down_by_hand() -> None:
    # Two members, 3 and 2 trials, weights 1 and 1, p = 1/8 and 1/4, no cap. Step 1 (lambda = 1/8): F_1(1/8) = 1/8,
    # F_2(1/8) = 0 (its smallest is 1/4): 1/8. Step 2 (lambda = 1/4): F_2(1/4) = 1/4. Adjusted 1/8 and 1/4.
    out, order = step_down._steps_by_loop(np.array([0.125, 0.25]), np.array([1.0, 1.0]), np.array([3, 2]))
    assert out.tolist() == [0.125, 0.25] and order.tolist() == [0, 1]
    assert discrete._attainable.cache_info().maxsize == 256
