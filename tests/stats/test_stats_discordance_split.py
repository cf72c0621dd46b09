"""The split of the discordance between two releases into the part a rerun repeats and the part it averages away
(stats/settle.py, discordance_split): against a brute-force computation from its definition (every pair of
runs of every case), the one-way analysis of variance it is, and simulated releases whose parts are known."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from releasegate.stats.settle import discordance_split


def _brute(base: np.ndarray, cand: np.ndarray) -> tuple[float, float, float]:
    d = cand - base
    runs, n = d.shape
    pairs = [d[j, i] * d[k, i] for i in range(n) for j, k in itertools.permutations(range(runs), 2)]
    case_part = float(np.mean(pairs))
    within = float(np.mean([np.var(d[:, i], ddof=1) for i in range(n)]))
    total = float(np.mean(d.mean(axis=0) ** 2))
    return total, case_part, within


@pytest.mark.parametrize("seed", range(8))
def test_the_parts_are_their_definitions(seed):
    rng = np.random.default_rng(460 + seed)
    runs, n = int(rng.integers(2, 6)), int(rng.integers(1, 60))
    base = (rng.random((runs, n)) < 0.8).astype(float)
    cand = (rng.random((runs, n)) < 0.7).astype(float) if seed % 2 else rng.random((runs, n))
    split = discordance_split(base, cand)
    assert (split.total, split.case_part, split.run_part) == pytest.approx(_brute(base, cand), abs=1e-12)
    # total = case_part + run_part / runs holds exactly for these estimators
    assert split.total == pytest.approx(split.case_part + split.run_part / runs, abs=1e-12)


def test_the_one_way_anova():
    # The within-case mean square of the one-way ANOVA of d (cases the groups) is run_part; the between-case mean
    # square is runs x the sample variance of the case means.
    rng = np.random.default_rng(7)
    d_base = (rng.random((4, 200)) < 0.9).astype(float)
    d_cand = (rng.random((4, 200)) < 0.85).astype(float)
    split = discordance_split(d_base, d_cand)
    d = d_cand - d_base
    means = d.mean(axis=0)
    ms_within = float(((d - means) ** 2).sum() / (200 * 3))
    assert split.run_part == pytest.approx(ms_within, rel=1e-12)


@pytest.mark.parametrize(("case_share", "flaky"), [(0.2, 0.0), (0.0, 0.3), (0.1, 0.2)])
def test_simulated_releases_recover_their_parts(case_share, flaky):
    """Each case changes for good with probability case_share (its every run on the candidate flipped), and is
    flaky with probability ``flaky`` (each run of it, on either release, a fresh draw at 0.5). The true parts:
    case_part = E[D_i^2] with D_i the case's true difference, run_part = E[Var of one run's difference]."""
    rng = np.random.default_rng(46)
    n, runs = 20000, 3
    z = (rng.random(n) < 0.9).astype(float)
    changed = rng.random(n) < case_share
    zc = np.where(changed, 1 - z, z)
    is_flaky = rng.random(n) < flaky
    pb = np.where(is_flaky, 0.5, z)
    pc = np.where(is_flaky, 0.5, zc)
    base = (rng.random((runs, n)) < pb).astype(float)
    cand = (rng.random((runs, n)) < pc).astype(float)
    split = discordance_split(base, cand)
    true_case = float(np.mean((pc - pb) ** 2))
    true_run = float(np.mean(pb * (1 - pb) + pc * (1 - pc)))
    assert split.case_part == pytest.approx(true_case, abs=0.01)
    assert split.run_part == pytest.approx(true_run, abs=0.01)


def test_one_run_cannot_be_split():
    with pytest.raises(ValueError):
        discordance_split(np.ones((1, 5)), np.zeros((1, 5)))
    with pytest.raises(ValueError):
        discordance_split(np.ones((2, 5)), np.zeros((3, 5)))
