"""What would settle a NOT PROVEN (stats/settle.py): the cases against the chance of the Newcombe-interval rule
on simulated releases (an independent vectorised Newcombe method 10, from the formula in the shared notes), the
runs against simulated per-case means with case-level change and run noise, and the edges."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from releasegate.stats.proportions import newcombe_paired_interval
from releasegate.stats.settle import newcombe_lower, noninferiority_chance, settle_noninferiority

MARGIN, ALPHA, P0 = 0.05, 0.05, 0.9


def _wilson(k: np.ndarray, n: int, z: float) -> tuple[np.ndarray, np.ndarray]:
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def _newcombe_low(a, b, c, d, level: float) -> np.ndarray:
    """Newcombe (1998) method 10, lower limit, with the phi correction of the notes (vectorised)."""
    n = a + b + c + d
    z = stats.norm.ppf(0.5 + level / 2)
    p1, p2 = (a + c) / n, (a + b) / n
    l1, _ = _wilson(a + c, int(n[0]), z)
    _, u2 = _wilson(a + b, int(n[0]), z)
    big_a = a * d - b * c
    margins = (a + b) * (c + d) * (a + c) * (b + d)
    root = np.sqrt(np.where(margins > 0, margins, 1.0))
    phi = np.where(big_a > n / 2, (big_a - n / 2) / root, np.where(big_a < 0, big_a / root, 0.0))
    phi = np.where(margins > 0, phi, 0.0)
    delta = p1 - p2
    return delta - np.sqrt((p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2)


def _chance(n: int, q: float, reps: int = 20_000, seed: int = 1) -> float:
    """The share of harmless releases (true difference 0, discordant share q) the rule passes."""
    rng = np.random.default_rng(seed)
    cells = rng.multinomial(n, [P0 - q / 2, q / 2, q / 2, 1 - P0 - q / 2], size=reps).astype(float)
    low = _newcombe_low(*cells.T, 1 - 2 * ALPHA)
    return float(np.mean(low > -MARGIN))


def test_the_vectorised_newcombe_is_the_librarys():
    for cells in ((350, 6, 12, 32), (345, 14, 1, 40), (59, 6, 16, 80)):
        ours = _newcombe_low(*(np.array([float(x)]) for x in cells), 0.95)[0]
        assert ours == pytest.approx(newcombe_paired_interval(*cells, 0.95).low, abs=1e-9)


@pytest.mark.parametrize("q", [0.05, 0.10, 0.18])
def test_the_cases_give_the_chances_they_promise(q):
    plan = settle_noninferiority(200, q, MARGIN, ALPHA, pass_rate=P0)
    n80, n95 = plan.cases_needed
    assert n80 < n95 and plan.method.startswith("the Newcombe-interval rule")
    # The chance on the rule itself, against simulated releases (Monte Carlo SE 0.3 points).
    assert _chance(n80, q) == pytest.approx(0.80, abs=0.012)
    assert _chance(n95, q) == pytest.approx(0.95, abs=0.008)
    assert _chance(n80 - 5, q) < 0.80 + 0.01
    assert plan.power == pytest.approx(_chance(200, q), abs=0.012)
    assert noninferiority_chance(200, q, P0, MARGIN, ALPHA) == plan.power


def test_the_normal_form_is_optimistic_at_small_discordance():
    # Why the rule itself: at 5% discordance the normal form's 80% size gives 71%.
    normal = settle_noninferiority(200, 0.05, MARGIN, ALPHA)
    assert normal.method.startswith("normal") and _chance(normal.cases_needed[0], 0.05) < 0.75
    exact = settle_noninferiority(200, 0.05, MARGIN, ALPHA, pass_rate=P0)
    assert exact.cases_needed[0] > normal.cases_needed[0]


def test_the_vectorised_limit_is_the_scalar_one():
    rng = np.random.default_rng(9)
    cells = rng.integers(0, 60, size=(300, 4)).astype(float)
    cells[:, 0] += rng.random(300) * 3  # fractional both-pass cells, as the chance uses
    cells = cells[cells.sum(1) > 0]
    for row in cells[:60]:
        n = row.sum()
        scaled = row * (200 / n)  # every row on n = 200
        ours = newcombe_lower(*(np.array([x]) for x in scaled), 200, 0.9)[0]
        assert ours == pytest.approx(newcombe_paired_interval(*scaled, 0.9).low, abs=1e-12)


def test_the_issue_s_first_time_user():
    # 200 cases at 16% churn: about an even chance today (normal form); about 350 cases for 80%, 620 for 95%.
    plan = settle_noninferiority(200, 0.16, MARGIN, ALPHA)
    assert 0.3 < plan.power < 0.6
    z80, z95 = (stats.norm.ppf(0.95) + stats.norm.ppf(t) for t in (0.8, 0.95))
    assert plan.cases_needed == (math.ceil(z80**2 * 0.16 / MARGIN**2), math.ceil(z95**2 * 0.16 / MARGIN**2))
    assert plan.runs_needed == (None, None) and plan.runs_reason == "unknown"


def _runs_chance(n: int, runs: int, case_share: float, run_share: float, reps: int = 4000, seed: int = 3) -> float:
    """Harmless releases with ``runs`` runs each: a share case_share of cases changed for good (d = +-1), a
    flaky share drawn afresh each run at P0 (run-to-run churn run_share); the paired t rule's pass rate."""
    rng = np.random.default_rng(seed)
    w = run_share / (2 * P0 * (1 - P0))
    kind = rng.choice(3, size=(reps, n), p=[case_share, w, 1 - case_share - w])
    sign = np.where(rng.random((reps, n)) < 0.5, -1.0, 1.0)
    noise = (rng.binomial(runs, P0, (reps, n)) - rng.binomial(runs, P0, (reps, n))) / runs
    d = np.where(kind == 0, sign, np.where(kind == 1, noise, 0.0))
    mean, sd = d.mean(1), d.std(1, ddof=1)
    low = mean - stats.t.ppf(1 - ALPHA, n - 1) * sd / math.sqrt(n)
    return float(np.mean(low > -MARGIN))


def test_the_runs_give_the_chances_they_promise():
    # 300 cases, one run each: 3% case-level change and 12% run-to-run churn (v = 0.15).
    n, c, r = 300, 0.03, 0.12
    plan = settle_noninferiority(n, c + r, MARGIN, ALPHA, run_share=r)
    assert plan.case_share == pytest.approx(c)
    r80, r95 = plan.runs_needed
    assert 1 < r80 <= r95 and plan.runs_reason == ""
    assert _runs_chance(n, r80, c, r) >= 0.77
    assert _runs_chance(n, r80 - 1, c, r) < 0.80 + 0.03
    assert _runs_chance(n, r95, c, r) >= 0.93


def test_runs_cannot_settle_case_level_change():
    plan = settle_noninferiority(200, 0.16, MARGIN, ALPHA, run_share=0.02)
    assert plan.runs_needed == (None, None) and plan.runs_reason == "case-level change"
    # Already enough: the runs as they are.
    easy = settle_noninferiority(2000, 0.05, MARGIN, ALPHA, runs=3, run_share=0.03)
    assert easy.runs_needed == (3, 3) and easy.power > 0.99


def test_edges():
    none = settle_noninferiority(100, 0.0, MARGIN, ALPHA)
    assert none.power == 1.0 and none.cases_needed == (0, 0)
    with pytest.raises(ValueError):
        settle_noninferiority(0, 0.1, MARGIN, ALPHA)
    with pytest.raises(ValueError):
        settle_noninferiority(100, 0.1, 0.0, ALPHA)
    with pytest.raises(ValueError):
        settle_noninferiority(100, 0.1, MARGIN, ALPHA, targets=(0.3,))


@pytest.mark.parametrize("n", [1, 3, 6])
def test_every_case_discordant_weighs_only_the_tables_with_every_case_discordant(n):
    """q = 1: D = n for sure and broke ~ Bin(n, 1/2); the chance is the scipy-weighted share of those n + 1
    tables whose Newcombe bound is above -margin (a count below n once weighed 1 each, up to a chance of 1)."""
    for margin in (0.3, 0.6, 0.9):
        want = sum(stats.binom.pmf(broke, n, 0.5) for broke in range(n + 1)
                   if newcombe_paired_interval(0, broke, n - broke, 0, 1 - 2 * ALPHA).low > -margin)
        assert noninferiority_chance(n, 1.0, 0.5, margin, ALPHA) == pytest.approx(want, abs=1e-12)


# Reference: every discordant count D = 0..n weighed by scipy.stats.binom.pmf(D, n, q), every broke | D by
# binom.pmf(broke, D, 1/2), each table's bound from stats.proportions.newcombe_paired_interval (the scalar
# method 10) at 90% (differential check, scipy 1.17.1). With few expected discordant
# cases the 7-sd window alone left out up to 1.6e-7 of the weight, not the 1e-11 the docstring promises.
@pytest.mark.parametrize(("n", "q", "p0", "margin", "want"), [
    (100, 1e-4, 0.9, 0.05, 0.9999877255495755),
    (10, 1e-3, 0.9, 0.05, 1.490836878072554e-08),
    (30, 3e-4, 0.9, 0.05, 9.719222878640424e-06),
    (13, 0.999, 0.4995, 0.02, 0.04648649928173651),
    (60, 0.02, 0.9, 0.05, 0.5871975482406853),
])
def test_the_chance_leaves_out_less_than_1e_11_of_the_weight(n, q, p0, margin, want):
    assert noninferiority_chance(n, q, p0, margin, ALPHA) == pytest.approx(want, abs=1e-11)
