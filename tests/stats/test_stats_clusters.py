"""Tests for releasegate.stats.clusters: cluster bootstrap, CR2/Bell-McCaffrey, Durkalski, cluster sign flip,
design effect."""

from __future__ import annotations

import ast
import itertools
import math
import time
from pathlib import Path

import numpy as np
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st

from releasegate.stats import clusters
from releasegate.stats.clusters import (
    _bell_mccaffrey_df,
    cluster_bootstrap_interval,
    cluster_signflip_test,
    cr2_test,
    design_effect,
    durkalski_test,
    smallest_cluster_p,
)
from releasegate.stats.continuous import paired_t_test, signflip_test

# stat-vectors.json, clustered_se: 24 cases in 6 clusters of sizes 3,5,4,2,6,4; d = cand - base (binary)
CLUSTER = np.array([0, 0, 0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 4, 4, 4, 4, 4, 4, 5, 5, 5, 5])
BASE = np.array([1, 1, 1, 1, 1, 0, 1, 0, 0, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1])
CAND = np.array([0, 0, 0, 1, 1, 0, 1, 0, 1, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1, 1, 1, 1, 1])
D = (CAND - BASE).astype(float)
BROKE = (BASE == 1) & (CAND == 0)
FIXED = (BASE == 0) & (CAND == 1)

SETTINGS = settings(max_examples=50, derandomize=True, deadline=None)


def _rel(a: float, b: float, tol: float = 1e-9) -> bool:
    return math.isclose(a, b, rel_tol=tol, abs_tol=0.0)


@st.composite
def clustered(draw, min_size=1, max_size=40, max_clusters=8, binary=False):
    """(d, cluster) with repeated clusters, ties and zeros."""
    n = draw(st.integers(min_size, max_size))
    if binary:
        elem = st.integers(-1, 1).map(float)
    else:
        elem = st.one_of(
            st.integers(-1, 1).map(float),
            st.floats(-1.0, 1.0, allow_nan=False, allow_subnormal=False).map(lambda v: round(v, 6)),
        )
    d = np.array(draw(st.lists(elem, min_size=n, max_size=n)))
    cl = np.array(draw(st.lists(st.integers(0, max_clusters - 1), min_size=n, max_size=n)))
    return d, cl


@st.composite
def discordance(draw):
    """Per-case (broke, fixed, cluster) with at most one of broke/fixed per case."""
    n = draw(st.integers(1, 40))
    outcome = np.array(draw(st.lists(st.integers(-1, 1), min_size=n, max_size=n)))
    cl = np.array(draw(st.lists(st.integers(0, 7), min_size=n, max_size=n)))
    return (outcome == -1).astype(int), (outcome == 1).astype(int), cl


def _relabel_and_shuffle(d, cl, rnd_seed):
    rng = np.random.default_rng(rnd_seed)
    perm = rng.permutation(d.size)
    labels = rng.permutation(64)[cl]  # a different integer code per cluster, not contiguous
    return d[perm], np.array([f"g{v}" for v in labels[perm]])


# ------------------------------------------------------------------------------------------ reference vectors


def test_vectors_d_and_discordance():
    assert D.mean() == -0.125  # clustered_se.mean_d
    np.testing.assert_array_equal(np.bincount(CLUSTER, weights=D), [-3.0, 0.0, 2.0, 0.0, -3.0, 1.0])


def test_cr2_matches_vectors():
    r = cr2_test(D, CLUSTER)
    # clustered_se: se_cluster_CR2, CR2_bell_mccaffrey_df, CR2_t_test, CR1, CR0 (Miller appendix A)
    assert r.defined and r.n_clusters == 6 and r.n == 24
    assert r.estimate == -0.125
    assert _rel(r.se, 0.20993799874578298)
    assert _rel(r.df, 4.454390451832906)
    assert _rel(r.t, -0.595413887656252)
    assert _rel(r.p_two_sided, 0.5805119092066212)
    assert _rel(r.low, -0.685164143214502)
    assert _rel(r.high, 0.43516414321450203)
    assert _rel(r.cr1_se, 0.2086975982133)
    assert _rel(r.cr0_se, 0.19051397039762377)
    assert _rel(r.p_regression, r.p_two_sided / 2)


def test_durkalski_matches_vectors():
    r = durkalski_test(BROKE, FIXED, CLUSTER)
    # clustered_se.durkalski_clustered_mcnemar
    assert _rel(r.chi2, 0.391304347826087)
    assert _rel(r.p_two_sided, 0.5316145768816123)
    assert r.broke == 6 and r.fixed == 3 and r.n_clusters == 6 and not r.degenerate
    assert r.z < 0  # more broke than fixed: the regression direction
    assert _rel(r.p_two_sided, scipy.stats.chi2.sf(r.chi2, 1))
    assert _rel(r.p_regression, scipy.stats.norm.cdf(r.z))
    assert _rel(r.p_regression, r.p_two_sided / 2)


def test_cluster_signflip_matches_vectors():
    r = cluster_signflip_test(D, CLUSTER)
    # clustered_se.cluster_signflip_exact_p_two_sided / _one_sided_regression
    assert r.p_two_sided == 0.75
    assert r.p_regression == 0.375
    assert r.exact and r.n_clusters == 6
    assert r.smallest_p == 2.0**-5


def test_design_effect_matches_cr0_over_iid():
    # CR0 variance (clustered_se.se_cluster_miller_appendixA) over the iid variance with the same divisor
    e = D - D.mean()
    expected = (0.19051397039762377 * 24) ** 2 / np.sum(e**2)
    assert _rel(design_effect(D, CLUSTER), expected, 1e-12)
    assert design_effect(D, CLUSTER) > 1


# ------------------------------------------------------------------------------------------ CR2 details


def _dense_df(sizes: np.ndarray) -> float:
    """tr(M)^2 / tr(M^2) with the G x G matrix M written out as in notes/statistics.md."""
    n = sizes.sum()
    q = 1.0 - sizes / n
    m = (np.diag(sizes) - np.outer(sizes, sizes) / n) / (n**2 * np.sqrt(np.outer(q, q)))
    return np.trace(m) ** 2 / np.trace(m @ m)


def test_bell_mccaffrey_closed_form_equals_dense_matrix():
    rng = np.random.default_rng(3)
    for g in (2, 3, 6, 25, 300):
        sizes = rng.integers(1, 40, g).astype(float)
        assert _rel(_bell_mccaffrey_df(sizes / sizes.sum()), _dense_df(sizes), 1e-10)
    assert _rel(_bell_mccaffrey_df(np.array([3, 5, 4, 2, 6, 4]) / 24), 4.454390451832906)


def test_cr2_many_clusters_is_fast():
    rng = np.random.default_rng(4)
    g = 20_000
    cl = rng.integers(0, g, 200_000)
    d = rng.normal(0, 1, cl.size)
    t0 = time.perf_counter()
    r = cr2_test(d, cl)
    assert time.perf_counter() - t0 < 1.0
    assert r.n_clusters == np.unique(cl).size and 0.5 * g < r.df < g


@SETTINGS
@given(st.integers(2, 60), st.integers(1, 12))
def test_cr2_balanced_clusters_have_g_minus_1_df(g, m):
    d = np.random.default_rng(g * 100 + m).normal(0, 1, g * m)
    r = cr2_test(d, np.repeat(np.arange(g), m))
    assert r.df == pytest.approx(g - 1, rel=1e-10)


def test_cr2_single_cluster_is_undefined():
    r = cr2_test([0.1, -0.2, 0.3], [7, 7, 7])
    assert (
        not r.defined and r.n_clusters == 1 and math.isnan(r.p_two_sided) and r.estimate == pytest.approx(0.2 / 3)
    )


def test_cr2_zero_standard_error():
    r = cr2_test(np.zeros(6), [0, 0, 1, 1, 2, 2])
    assert r.p_two_sided == r.p_regression == r.p_improvement == 1.0 and r.low == r.high == 0.0
    r = cr2_test(np.full(6, -0.5), [0, 0, 1, 1, 2, 2])
    assert r.p_two_sided == 0.0 and r.p_regression == 0.0 and r.low == r.high == -0.5
    # Non-constant d whose cluster means all equal the overall mean: no between-cluster variation.
    r = cr2_test([-1.0, 1.0, -1.0, 1.0], [0, 0, 1, 1])
    assert r.se == 0.0 and r.p_two_sided == 1.0


# ------------------------------------------------------------------------------------------ Durkalski details


def test_durkalski_degenerate():
    r = durkalski_test(np.zeros(5), np.zeros(5), [0, 1, 2, 3, 4])
    assert r.degenerate and r.p_two_sided == r.p_regression == r.p_improvement == 1.0 and r.chi2 == 0.0
    # one broke and one fixed in the same cluster cancel: D_g = 0 everywhere
    r = durkalski_test([1, 0, 0], [0, 1, 0], [0, 0, 1])
    assert r.degenerate and r.p_two_sided == 1.0 and r.broke == 1 and r.fixed == 1


def test_durkalski_input_checks():
    with pytest.raises(ValueError, match="both broke and fixed"):
        durkalski_test([1, 0], [1, 0], [0, 1])
    with pytest.raises(ValueError, match="0/1"):
        durkalski_test([2, 0], [0, 0], [0, 1])
    with pytest.raises(ValueError, match="labels"):
        durkalski_test([1, 0], [0, 0], [0, 1, 2])
    assert durkalski_test([True, False], [False, True], ["a", "b"]).chi2 == 0.0


# ------------------------------------------------------------------------------------------ bootstrap


def test_bootstrap_vector_data():
    r = cluster_bootstrap_interval(D, CLUSTER)
    assert r.estimate == -0.125 and r.n_clusters == 6 and r.n_resamples == 10_000 and r.seed == 0
    assert r.low < -0.125 < r.high
    # Ratio of sums of integers over at most 6 * 6 cases: the limits lie in [-1, 1].
    assert -1 <= r.low and r.high <= 1


def test_bootstrap_10k_resamples_1000_clusters_is_fast():
    rng = np.random.default_rng(8)
    cl = rng.integers(0, 1000, 20_000)
    d = rng.normal(0, 1, cl.size)
    t0 = time.perf_counter()
    r = cluster_bootstrap_interval(d, cl, n_resamples=10_000)
    assert time.perf_counter() - t0 < 1.0
    assert r.n_clusters == 1000 and r.low < r.estimate < r.high


def test_bootstrap_width_matches_cluster_se_with_many_clusters():
    rng = np.random.default_rng(12)
    g = 300
    cl = np.repeat(np.arange(g), 5)
    d = rng.normal(0, 1, g)[cl] * 0.5 + rng.normal(0, 1, cl.size)
    b = cluster_bootstrap_interval(d, cl, n_resamples=4000, seed=1)
    half = 1.959963984540054 * cr2_test(d, cl).cr0_se
    assert (b.high - b.low) / 2 == pytest.approx(half, rel=0.1)


def test_bootstrap_does_not_depend_on_block_and_uses_seed():
    rng = np.random.default_rng(2)
    cl = rng.integers(0, 37, 200)
    d = rng.normal(-0.1, 1, 200)
    ref = cluster_bootstrap_interval(d, cl, n_resamples=2000, seed=5)
    assert cluster_bootstrap_interval(d, cl, n_resamples=2000, seed=5, block=7) == ref
    assert cluster_bootstrap_interval(d, cl, n_resamples=2000, seed=6) != ref


def test_bootstrap_single_cluster_collapses():
    r = cluster_bootstrap_interval([0.1, 0.4, -0.2], [1, 1, 1])
    assert r.low == r.high == pytest.approx(0.1)


def test_grouped_items_widen_the_interval():
    # The notebook's "grouped items" situation: 40 items that are 5 groups of 8, with a strong per-group
    # effect on the difference itself.
    rng = np.random.default_rng(2024)
    group = np.repeat(np.arange(5), 8)
    d = rng.normal(scale=1.0, size=5)[group] + rng.normal(scale=0.3, size=40) + 0.15
    naive = paired_t_test(d)
    boot = cluster_bootstrap_interval(d, group)
    cr2 = cr2_test(d, group)
    naive_width = naive.high - naive.low
    assert boot.high - boot.low > 1.5 * naive_width
    assert cr2.high - cr2.low > 1.5 * naive_width
    assert cr2.p_two_sided > naive.p_two_sided
    assert design_effect(d, group) > 3


def test_input_checks():
    with pytest.raises(ValueError, match="labels"):
        cr2_test([0.1, 0.2], [0])
    with pytest.raises(ValueError, match="empty"):
        cluster_bootstrap_interval([], [])
    with pytest.raises(ValueError, match="NaN"):
        cr2_test([0.1, 0.2], [0.0, math.nan])
    with pytest.raises(ValueError, match="NaN"):
        design_effect([0.1, math.nan], [0, 1])
    with pytest.raises(ValueError, match="n_resamples"):
        cluster_bootstrap_interval([0.1], [0], n_resamples=0)


def test_string_labels_and_gapped_codes_equal_dense_codes():
    labels = np.array([f"passage-{c}" for c in CLUSTER])
    gapped = CLUSTER * 10 + 3
    for fn in (cr2_test, cluster_signflip_test, design_effect, cluster_bootstrap_interval):
        assert fn(D, labels) == fn(D, CLUSTER) == fn(D, gapped)


# ------------------------------------------------------------------------------------------ sign flip


def test_cluster_signflip_equals_brute_force():
    rng = np.random.default_rng(6)
    cl = rng.integers(0, 9, 60)
    d = rng.integers(-1, 2, 60).astype(float)
    sums = np.bincount(cl, weights=d)
    flips = np.array([np.dot(s, sums) for s in itertools.product((-1.0, 1.0), repeat=sums.size)])
    r = cluster_signflip_test(d, cl)
    assert r.p_two_sided == pytest.approx(np.mean(np.abs(flips) >= abs(sums.sum())), abs=1e-15)
    assert r.p_regression == pytest.approx(np.mean(flips <= sums.sum()), abs=1e-15)


def test_cluster_signflip_monte_carlo_above_limit():
    rng = np.random.default_rng(7)
    cl = np.repeat(np.arange(30), 4)
    d = rng.normal(-0.3, 1, 30)[cl]
    r = cluster_signflip_test(d, cl, n_resamples=5000, seed=3)
    assert not r.exact and r.n_resamples == 5000 and r.n_clusters == 30
    assert r == cluster_signflip_test(d, cl, n_resamples=5000, seed=3)
    exact = cluster_signflip_test(d[:80], cl[:80])  # 20 clusters: exact
    assert exact.exact and exact.n_resamples <= 2**20


def test_smallest_cluster_p():
    assert smallest_cluster_p(5) == 0.0625
    assert smallest_cluster_p(6) == 2.0**-5
    assert smallest_cluster_p(6, two_sided=False) == 2.0**-6
    assert smallest_cluster_p(1) == 1.0 and smallest_cluster_p(0) == 1.0
    # The exact test attains it when every cluster moves the same way.
    assert cluster_signflip_test(-np.ones(5), np.arange(5)).p_two_sided == smallest_cluster_p(5)


def test_no_scipy_stats_import():
    tree = ast.parse(Path(clusters.__file__).read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            assert not any(a.name.startswith("scipy.stats") for a in node.names)
        if isinstance(node, ast.ImportFrom):
            assert not (node.module or "").startswith("scipy.stats")
            assert not (node.module == "scipy" and any(a.name == "stats" for a in node.names))


# ------------------------------------------------------------------------------------------ properties


@SETTINGS
@given(clustered(), discordance())
def test_p_values_in_unit_interval(data, disc):
    d, cl = data
    ps = []
    r = cr2_test(d, cl)
    if r.defined:
        ps += [r.p_two_sided, r.p_regression, r.p_improvement]
    s = cluster_signflip_test(d, cl, n_resamples=200)
    ps += [s.p_two_sided, s.p_regression, s.p_improvement]
    k = durkalski_test(*disc)
    ps += [k.p_two_sided, k.p_regression, k.p_improvement]
    assert all(0.0 <= p <= 1.0 for p in ps)


@SETTINGS
@given(clustered(), st.integers(0, 2**16))
def test_relabel_and_shuffle_invariance(data, seed):
    d, cl = data
    d2, cl2 = _relabel_and_shuffle(d, cl, seed)
    a, b = cr2_test(d, cl), cr2_test(d2, cl2)
    if a.defined:
        for field in ("estimate", "se", "df", "p_two_sided", "low", "high", "cr1_se"):
            assert getattr(b, field) == pytest.approx(getattr(a, field), rel=1e-9, abs=1e-12)
    assert design_effect(d2, cl2) == pytest.approx(design_effect(d, cl), rel=1e-9)
    for k in (20, 3):  # exact, and Monte Carlo for most draws
        assert cluster_signflip_test(d2, cl2, max_exact_clusters=k, n_resamples=300) == cluster_signflip_test(
            d, cl, max_exact_clusters=k, n_resamples=300
        )
    ba = cluster_bootstrap_interval(d, cl, n_resamples=500)
    bb = cluster_bootstrap_interval(d2, cl2, n_resamples=500)
    assert bb.low == pytest.approx(ba.low, rel=1e-9, abs=1e-12)
    assert bb.high == pytest.approx(ba.high, rel=1e-9, abs=1e-12)


@SETTINGS
@given(discordance(), st.integers(0, 2**16))
def test_durkalski_relabel_and_shuffle_invariance(disc, seed):
    broke, fixed, cl = disc
    perm = np.random.default_rng(seed).permutation(cl.size)
    a = durkalski_test(broke, fixed, cl)
    b = durkalski_test(broke[perm], fixed[perm], np.array([f"c{v}" for v in cl[perm]]))
    assert a == b


@SETTINGS
@given(clustered())
def test_mirror(data):
    d, cl = data
    a, m = cr2_test(d, cl), cr2_test(-d, cl)
    if a.defined:
        assert m.estimate == -a.estimate and m.p_two_sided == a.p_two_sided
        assert m.low == -a.high and m.high == -a.low
        assert m.p_regression == a.p_improvement and m.p_improvement == a.p_regression
    for k in (20, 2):
        s, sm = (
            cluster_signflip_test(d, cl, max_exact_clusters=k),
            cluster_signflip_test(-d, cl, max_exact_clusters=k),
        )
        assert sm.p_two_sided == s.p_two_sided
        assert sm.p_regression == s.p_improvement and sm.p_improvement == s.p_regression
    b, bm = (
        cluster_bootstrap_interval(d, cl, n_resamples=500),
        cluster_bootstrap_interval(-d, cl, n_resamples=500),
    )
    assert bm.estimate == -b.estimate
    assert bm.low == -b.high and bm.high == -b.low


@SETTINGS
@given(discordance())
def test_durkalski_mirror(disc):
    broke, fixed, cl = disc
    a, m = durkalski_test(broke, fixed, cl), durkalski_test(fixed, broke, cl)
    assert m.chi2 == a.chi2 and m.p_two_sided == a.p_two_sided and m.z == -a.z
    assert m.p_regression == a.p_improvement


@SETTINGS
@given(st.lists(st.integers(-1, 1), min_size=1, max_size=60))
def test_one_case_per_cluster_durkalski_is_mcnemar(outcome):
    outcome = np.array(outcome)
    broke, fixed = (outcome == -1).astype(int), (outcome == 1).astype(int)
    b, c = int(broke.sum()), int(fixed.sum())
    r = durkalski_test(broke, fixed, np.arange(outcome.size))
    if b + c == 0:
        assert r.degenerate and r.p_two_sided == 1.0
    else:
        assert r.chi2 == pytest.approx((b - c) ** 2 / (b + c), rel=1e-12, abs=1e-15)


@SETTINGS
@given(st.lists(st.floats(-1, 1, allow_nan=False, allow_subnormal=False), min_size=2, max_size=40))
def test_one_case_per_cluster_cr2_is_the_paired_t(d):
    # Derivation: with n_g = 1, S_g = e_i and V_CR2 = sum e_i^2 / (1 - 1/n) / n^2 = s^2 / n, the iid se;
    # balanced clusters give df = G - 1 = n - 1. So CR2 with singleton clusters IS the paired t test, and
    # CR0 = se * sqrt((n - 1) / n), CR1 = CR0 * sqrt(n / (n - 1)) = se.
    d = np.array(d)
    n = d.size
    r, t = cr2_test(d, np.arange(n)), paired_t_test(d)
    assert r.df == pytest.approx(n - 1, rel=1e-10)
    assert r.se == pytest.approx(t.se, rel=1e-9, abs=1e-300)
    assert r.cr0_se == pytest.approx(t.se * math.sqrt((n - 1) / n), rel=1e-9, abs=1e-300)
    assert r.cr1_se == pytest.approx(t.se, rel=1e-9, abs=1e-300)
    if t.se > 1e-12 * np.max(np.abs(d)):
        assert r.p_two_sided == pytest.approx(t.p_two_sided, rel=1e-7, abs=1e-12)
        assert r.low == pytest.approx(t.low, rel=1e-9, abs=1e-12)
    assert design_effect(d, np.arange(n)) == 1.0
    assert design_effect(d, np.arange(n), floor=False) == pytest.approx(1.0, rel=1e-12)


@SETTINGS
@given(st.lists(st.floats(-1, 1, allow_nan=False, allow_subnormal=False), min_size=1, max_size=30))
def test_one_case_per_cluster_signflip_is_the_case_signflip(d):
    d = np.array(d)
    a = cluster_signflip_test(d, np.arange(d.size), max_exact_clusters=8, n_resamples=300, seed=4)
    b = signflip_test(d, exact_max_n=8, n_resamples=300, seed=4)
    assert (a.p_two_sided, a.p_regression, a.p_improvement, a.exact) == (
        b.p_two_sided,
        b.p_regression,
        b.p_improvement,
        b.exact,
    )


@SETTINGS
@given(clustered(), st.integers(0, 1000))
def test_bootstrap_contains_estimate_and_is_seeded(data, seed):
    d, cl = data
    r = cluster_bootstrap_interval(d, cl, n_resamples=400, seed=seed)
    tol = 1e-12 * max(1.0, float(np.max(np.abs(d))))
    assert r.low - tol <= r.estimate <= r.high + tol
    assert r == cluster_bootstrap_interval(d, cl, n_resamples=400, seed=seed, block=64)


@SETTINGS
@given(clustered())
def test_design_effect_floor(data):
    d, cl = data
    raw = design_effect(d, cl, floor=False)
    assert raw >= 0.0
    assert design_effect(d, cl) == max(1.0, raw)


def test_percentile_interval_is_numpy_linear_quantile():
    v = np.random.default_rng(1).normal(size=10_000)
    for conf in (0.95, 0.9, 0.5):
        lo, hi = clusters.mirrored_percentile_interval(v, conf)
        ref = np.quantile(v, [(1 - conf) / 2, (1 + conf) / 2])
        assert (lo, hi) == pytest.approx(tuple(ref), rel=1e-12, abs=1e-14)


def test_bootstrap_several_levels_from_one_set_of_resamples():
    rng = np.random.default_rng(8)
    cl = rng.integers(0, 30, 300)
    d = rng.normal(0.0, 1.0, 30)[cl] * 0.1 + rng.normal(0.0, 0.2, 300)
    both = clusters.cluster_bootstrap_intervals(d, cl, (0.95, 0.9), n_resamples=3000, seed=2)
    assert both[0] == cluster_bootstrap_interval(d, cl, n_resamples=3000, seed=2, confidence=0.95)
    assert both[1] == cluster_bootstrap_interval(d, cl, n_resamples=3000, seed=2, confidence=0.9)
    assert both[0].low < both[1].low < both[1].high < both[0].high
