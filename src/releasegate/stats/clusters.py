"""Clustered inference for the mean paired difference: cluster bootstrap, CR2 with Bell-McCaffrey df, the
Durkalski clustered McNemar test, the exact cluster sign-flip test and the design effect.

Orientation everywhere: d = candidate - baseline, negative = regression. ``cluster`` is one label per case:
integer codes 0..G-1 are the usual form, but any sortable labels work (they are mapped with
``np.unique(..., return_inverse=True)``; a code with no case is not a cluster). Reference for the whole module:
Miller 2024, "Adding Error Bars to Evals", arXiv 2411.00640; Cameron, Gelbach & Miller 2008.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from releasegate.stats.common import CELL_BUDGET, as_1d_float, check_confidence, degenerate_p_values, t_p_values
from releasegate.stats.continuous import signflip_core
from releasegate.stats.distributions import chi2_1df_sf, normal_cdf, t_quantile

# A standard error this small relative to the data's scale is rounding noise around an exact zero.
_ZERO_SE_RTOL = 1e-12


def _cluster_codes(cluster: ArrayLike, n: int) -> tuple[np.ndarray, int]:
    """Integer codes 0..G-1 (in sorted label order) and G for a per-case cluster label array."""
    labels = np.asarray(cluster)
    if labels.ndim != 1:
        raise ValueError(f"cluster must be one-dimensional, got shape {labels.shape}")
    if labels.size != n:
        raise ValueError(f"cluster has {labels.size} labels for {n} cases")
    if labels.dtype.kind == "f" and np.isnan(labels).any():
        raise ValueError("cluster contains NaN labels")
    try:
        uniq, codes = np.unique(labels, return_inverse=True)
    except TypeError as exc:  # mixed, unorderable labels
        raise ValueError(f"cluster labels cannot be sorted: {exc}") from None
    return codes.reshape(-1), int(uniq.size)


def prepare_clusters(d: ArrayLike, cluster: ArrayLike) -> tuple[np.ndarray, np.ndarray, int]:
    x = as_1d_float(d, "d")
    if x.size == 0:
        raise ValueError("d is empty: clustered statistics need at least one case")
    codes, g = _cluster_codes(cluster, x.size)
    return x, codes, g


def cluster_sums_and_sizes(x: np.ndarray, codes: np.ndarray, g: int) -> tuple[np.ndarray, np.ndarray]:
    return np.bincount(codes, weights=x, minlength=g), np.bincount(codes, minlength=g).astype(np.float64)


def smallest_cluster_p(n_clusters: int, two_sided: bool = True) -> float:
    """Smallest p-value an exact cluster sign-flip test can reach with G clusters: 2^(1-G) two-sided, 2^-G
    one-sided (capped at 1; G <= 0 gives 1).

    With few clusters no test that respects the clustering can be significant, whatever the effect: G = 5
    cannot go below 0.0625 two-sided (Miller 2024, arXiv 2411.00640; Cameron, Gelbach & Miller 2008).
    """
    g = int(n_clusters)
    if g <= 0:
        return 1.0
    return min(1.0, 2.0 ** ((1 - g) if two_sided else -g))


# ---------------------------------------------------------------------------------------------- bootstrap


@dataclass(frozen=True, slots=True)
class ClusterBootstrapResult:
    """Cluster bootstrap percentile interval of the mean of d (ratio of resampled sums)."""

    estimate: float
    low: float
    high: float
    n: int
    n_clusters: int
    n_resamples: int
    seed: int | None
    confidence: float


def mirrored_percentile_interval(values: np.ndarray, confidence: float) -> tuple[float, float]:
    """Two-sided percentile interval, linear interpolation (numpy's default, R type 7).

    Written out rather than np.quantile so that the two limits use mirrored positions with the same weight:
    negating the data then negates and swaps the limits exactly.
    """
    v = np.sort(values)
    b = v.size
    h = (1.0 - confidence) / 2.0 * (b - 1)
    i = math.floor(h)
    w = h - i
    j = b - 1 - i
    if w == 0.0 or i + 1 >= b:
        return float(v[i]), float(v[j])
    return float(v[i] + w * (v[i + 1] - v[i])), float(v[j] - w * (v[j] - v[j - 1]))


def cluster_bootstrap_interval(
    d: np.ndarray,
    cluster: np.ndarray,
    n_resamples: int = 10_000,
    seed: int | None = 0,
    confidence: float = 0.95,
    block: int = 1000,
) -> ClusterBootstrapResult:
    """Cluster (block) bootstrap percentile interval for the mean of d = candidate - baseline.

    Method: resample whole clusters with replacement (Miller 2024, arXiv 2411.00640, section 2.3; Cameron,
    Gelbach & Miller 2008; Davison & Hinkley 1997, section 3.8); each resample's statistic is the ratio of
    sums, sum of the drawn clusters' sums of d over the sum of their sizes, so large clusters weigh as many
    cases as they hold. Percentile interval with linear interpolation.

    Only the G per-cluster (sum, size) pairs are resampled, by an integer index draw over clusters from
    ``numpy.random.default_rng(seed)``, in blocks of at most ``block`` resamples (fewer when G is large) so
    memory stays bounded. Clusters are first put in a canonical order (size, |sum|, sum signed by the overall
    direction), so the same seed gives the same interval whatever the labels or row order, and -d gives
    exactly the mirrored interval; the result does not depend on ``block``.

    One cluster: every resample equals the estimate, so the interval is [estimate, estimate]; bootstrap
    intervals under-cover below about 20 clusters (the caller should warn; see ``smallest_cluster_p``).
    """
    return cluster_bootstrap_intervals(d, cluster, (confidence,), n_resamples, seed, block)[0]


def cluster_bootstrap_intervals(
    d: np.ndarray,
    cluster: np.ndarray,
    confidences: tuple[float, ...] = (0.95,),
    n_resamples: int = 10_000,
    seed: int | None = 0,
    block: int = 1000,
) -> tuple[ClusterBootstrapResult, ...]:
    """``cluster_bootstrap_interval`` at several confidence levels from one set of resamples.

    The same draws as the single-level function (same seed, same intervals), so the 95% interval shown and the
    (1 - 2 alpha) interval the non-inferiority rule reads come from one bootstrap at the cost of one.
    """
    confidences = tuple(check_confidence(c) for c in confidences)
    n_resamples, block = int(n_resamples), int(block)
    if n_resamples < 1:
        raise ValueError("n_resamples must be at least 1")
    if block < 1:
        raise ValueError("block must be at least 1")
    x, codes, g = prepare_clusters(d, cluster)
    sums, sizes = cluster_sums_and_sizes(x, codes, g)
    n = int(x.size)
    estimate = float(sums.sum() / n)
    direction = float(np.sign(sums.sum()))
    order = np.lexsort((sums * direction, np.abs(sums), sizes))
    sums, sizes = sums[order], sizes[order]

    rng = np.random.default_rng(seed)
    rows = max(1, min(block, CELL_BUDGET // g))
    stats = np.empty(n_resamples)
    done = 0
    while done < n_resamples:
        r = min(rows, n_resamples - done)
        idx = rng.integers(0, g, size=(r, g))
        stats[done : done + r] = sums[idx].sum(axis=1) / sizes[idx].sum(axis=1)
        done += r
    out = []
    for confidence in confidences:
        low, high = mirrored_percentile_interval(stats, confidence)
        out.append(ClusterBootstrapResult(estimate, low, high, n, g, n_resamples, seed, confidence))
    return tuple(out)


# ---------------------------------------------------------------------------------------------- CR2


@dataclass(frozen=True, slots=True)
class CR2Result:
    """Cluster-robust t test of the mean of d with the CR2 standard error and Bell-McCaffrey df.

    ``p_two_sided`` two-sided, ``p_regression`` one-sided for mean < 0, ``p_improvement`` for mean > 0; the
    interval is estimate +/- t_{df, (1+confidence)/2} * se. ``cr1_se`` (CR0 * sqrt(G/(G-1)), Inspect's
    clustered stderr) and ``cr0_se`` (Miller 2024's appendix A form) are given for comparison.
    ``defined`` is False with a single cluster (no between-cluster variance): se, df, t, p, interval NaN.
    """

    estimate: float
    se: float
    df: float
    t: float
    p_two_sided: float
    p_regression: float
    p_improvement: float
    low: float
    high: float
    n: int
    n_clusters: int
    cr1_se: float
    cr0_se: float
    confidence: float
    defined: bool


def _bell_mccaffrey_df(p: np.ndarray) -> float:
    """df = tr(M)^2 / tr(M^2) for the intercept-only model, in O(G) from the cluster shares p_g = n_g / n.

    With M_gh = (delta_gh n_g - n_g n_h / n) / (n^2 sqrt((1 - p_g)(1 - p_h))), n M = diag(p/(1-p)) - u u^T with
    u = p / sqrt(1 - p); df is scale-free, so tr(nM) = sum p = 1 and
    tr((nM)^2) = sum p^2 (1 - 2p) / (1 - p)^2 + (sum p^2 / (1 - p))^2. No G x G (let alone n x n) matrix.
    """
    q = 1.0 - p
    tr_m2 = float(np.sum(p**2 * (1.0 - 2.0 * p) / q**2) + np.sum(p**2 / q) ** 2)
    return 1.0 / tr_m2


def cr2_test(d: np.ndarray, cluster: np.ndarray, confidence: float = 0.95) -> CR2Result:
    """Cluster-robust t test of the mean of d: CR2 (bias-reduced linearisation) standard error with
    Bell-McCaffrey Satterthwaite degrees of freedom (Bell & McCaffrey 2002; Pustejovsky & Tipton 2018,
    J Bus Econ Stat 36:672; the same numbers as R clubSandwich ``coef_test(..., vcov = "CR2", test =
    "Satterthwaite")`` on an intercept-only model).

    For a mean, with S_g = sum over cluster g of (d_i - mean d) and p_g = n_g / n:
    V = sum_g S_g^2 / (1 - p_g) / n^2 and df = tr(M)^2 / tr(M^2) (computed in closed form, O(G)); balanced
    clusters give df = G - 1 exactly. With one case per cluster CR2 equals the paired t test (same se, df,
    p and interval).

    Edge cases: one cluster -> ``defined=False``. se = 0 (all d equal, or every cluster's mean equal to the
    overall mean, up to rounding): estimate 0 -> every p 1 and interval [0, 0]; otherwise two-sided p 0 and
    the interval collapses to the estimate.
    """
    confidence = check_confidence(confidence)
    x, codes, g = prepare_clusters(d, cluster)
    n = int(x.size)
    nan = math.nan
    constant = bool(np.all(x == x[0]))
    estimate = float(x[0]) if constant else float(x.mean())
    if g < 2:
        return CR2Result(estimate, nan, nan, nan, nan, nan, nan, nan, nan, n, g, nan, nan, confidence, False)
    scale = float(np.max(np.abs(x)))
    # Work on d / max|d| so that squaring tiny or huge values neither underflows nor overflows.
    resid_sums, sizes = cluster_sums_and_sizes((x - estimate) / (scale or 1.0), codes, g)
    p = sizes / n
    ss = resid_sums**2
    if constant:
        ss = np.zeros_like(ss)
    cr0 = scale * math.sqrt(float(ss.sum())) / n
    cr1 = cr0 * math.sqrt(g / (g - 1))
    se = scale * math.sqrt(float(np.sum(ss / (1.0 - p)))) / n
    df = _bell_mccaffrey_df(p)
    if se <= _ZERO_SE_RTOL * scale or scale == 0.0:
        est = 0.0 if abs(estimate) <= _ZERO_SE_RTOL * scale else estimate
        t, p_two, p_reg, p_imp = degenerate_p_values(est)
        return CR2Result(est, 0.0, df, t, p_two, p_reg, p_imp, est, est, n, g, 0.0, 0.0, confidence, True)
    t = estimate / se
    p_two, p_reg, p_imp = t_p_values(t, df)
    q = t_quantile(0.5 + confidence / 2.0, df)
    return CR2Result(
        estimate=estimate,
        se=se,
        df=df,
        t=t,
        p_two_sided=p_two,
        p_regression=p_reg,
        p_improvement=p_imp,
        low=estimate - q * se,
        high=estimate + q * se,
        n=n,
        n_clusters=g,
        cr1_se=cr1,
        cr0_se=cr0,
        confidence=confidence,
        defined=True,
    )


# ---------------------------------------------------------------------------------------------- Durkalski


@dataclass(frozen=True, slots=True)
class DurkalskiResult:
    """Clustered McNemar test. ``z`` = sum_g (fixed_g - broke_g) / sqrt(sum_g D_g^2) (negative = regression),
    ``chi2`` = z^2 on 1 df; ``p_two_sided`` two-sided, ``p_regression`` = P(Z <= z), ``p_improvement`` = P(Z >= z).
    ``degenerate`` is True when every cluster has D_g = broke_g - fixed_g = 0: every p is then 1.
    """

    chi2: float
    z: float
    p_two_sided: float
    p_regression: float
    p_improvement: float
    n_clusters: int
    broke: int
    fixed: int
    degenerate: bool


def _as_indicator(v: ArrayLike, name: str, n: int | None = None) -> np.ndarray:
    arr = np.asarray(v)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {arr.shape}")
    if n is not None and arr.size != n:
        raise ValueError(f"{name} has {arr.size} values for {n} cases")
    if arr.dtype == bool:
        return arr.astype(np.int64)
    try:
        num = arr.astype(np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must hold 0/1 values") from None
    if not np.all((num == 0.0) | (num == 1.0)):
        raise ValueError(f"{name} must hold 0/1 values")
    return num.astype(np.int64)


def durkalski_test(broke: np.ndarray, fixed: np.ndarray, cluster: np.ndarray) -> DurkalskiResult:
    """Durkalski clustered McNemar test (Durkalski, Palesch, Lipsitz & Rust 2003, Stat Med 22:2417).

    Inputs are per-case 0/1 (or bool) indicators: ``broke`` = baseline pass and candidate fail, ``fixed`` =
    baseline fail and candidate pass (a case cannot be both); ``cluster`` as for the rest of the module.
    With D_g = broke_g - fixed_g per cluster: chi2 = (sum_g D_g)^2 / sum_g D_g^2 on 1 df (p via
    ``chi2_1df_sf``); the one-sided regression p uses the signed root z = -sum D_g / sqrt(sum D_g^2)
    against the standard normal. One case per cluster gives the uncorrected McNemar chi2 (b - c)^2 / (b + c).

    Degenerate: every D_g = 0 (no discordance, or broke and fixed cancelling inside each cluster) -> chi2 0,
    every p 1, ``degenerate=True``.
    """
    b = _as_indicator(broke, "broke")
    if b.size == 0:
        raise ValueError("broke is empty: clustered statistics need at least one case")
    f = _as_indicator(fixed, "fixed", b.size)
    if np.any((b == 1) & (f == 1)):
        raise ValueError("a case cannot be both broke and fixed")
    codes, g = _cluster_codes(cluster, b.size)
    dg = np.bincount(codes, weights=(b - f).astype(np.float64), minlength=g)
    n_broke, n_fixed = int(b.sum()), int(f.sum())
    denom = float(np.sum(dg**2))
    if denom == 0.0:
        return DurkalskiResult(0.0, 0.0, 1.0, 1.0, 1.0, g, n_broke, n_fixed, True)
    total = float(dg.sum())
    chi2 = total**2 / denom
    z = -total / math.sqrt(denom)
    return DurkalskiResult(
        chi2=chi2,
        z=z,
        p_two_sided=chi2_1df_sf(chi2),
        p_regression=normal_cdf(z),
        p_improvement=normal_cdf(-z),
        n_clusters=g,
        broke=n_broke,
        fixed=n_fixed,
        degenerate=False,
    )


# ---------------------------------------------------------------------------------------------- sign flip


@dataclass(frozen=True, slots=True)
class ClusterSignFlipResult:
    """Sign-flip test over cluster sums. ``p_two_sided`` two-sided, ``p_regression`` one-sided for mean < 0,
    ``p_improvement`` for mean > 0; ``exact`` as in ``SignFlipResult``; ``smallest_p`` = 2^(1-G), the
    smallest two-sided p the design can reach.
    """

    p_two_sided: float
    p_regression: float
    p_improvement: float
    exact: bool
    n_resamples: int
    n_clusters: int
    smallest_p: float


def cluster_signflip_test(
    d: np.ndarray,
    cluster: np.ndarray,
    max_exact_clusters: int = 20,
    n_resamples: int = 10_000,
    seed: int | None = 0,
) -> ClusterSignFlipResult:
    """Cluster sign-flip (wild cluster, Rademacher) permutation test of the mean of d.

    Under H0 each cluster's sum of d is symmetric about 0; the statistic is sum_g T_g (= n * mean, n fixed).
    All 2^G sign assignments are enumerated when at most ``max_exact_clusters`` clusters have a non-zero sum
    (clusters summing to 0 flip to themselves and change no p-value); otherwise ``n_resamples`` seeded random
    flips with p = (count + 1) / (B + 1). Canonical for few clusters, where the asymptotic methods
    under-cover (Canay, Santos & Shaikh 2021, Econometrica 89:1; Miller 2024, arXiv 2411.00640). The result
    depends only on the multiset of cluster sums.
    """
    x, codes, g = prepare_clusters(d, cluster)
    sums = np.bincount(codes, weights=x, minlength=g)
    p_two, p_reg, p_imp, exact, b = signflip_core(
        sums, float(sums.sum()), int(n_resamples), seed, int(max_exact_clusters)
    )
    return ClusterSignFlipResult(p_two, p_reg, p_imp, exact, b, g, smallest_cluster_p(g))


# ---------------------------------------------------------------------------------------------- design effect


def design_effect(d: np.ndarray, cluster: np.ndarray, floor: bool = True) -> float:
    """Design effect of the clustering on the variance of the mean of d: Var_cluster / Var_iid.

    Computed as sum_g S_g^2 / sum_i e_i^2 with e_i = d_i - mean d and S_g the sum of e over cluster g, i.e.
    the CR0 (Liang-Zeger) variance of the mean over the iid variance with the same divisor. It is the factor
    the minimum detectable difference needs (MDE scales with sqrt(deff)), and for balanced clusters of size m
    it equals 1 + (m - 1) rho with rho the within-cluster correlation of the residuals (Kish 1965;
    Miller 2024, arXiv 2411.00640, section 2.3). One case per cluster gives exactly 1.

    ``floor=True`` (default) reports max(1, ratio), like flooring the ICC at 0: a power statement should not
    bank on negatively correlated clusters. All d equal (no variance) -> 1.
    """
    x, codes, g = prepare_clusters(d, cluster)
    if np.all(x == x[0]):
        return 1.0
    e = (x - x.mean()) / float(np.max(np.abs(x)))  # scaled: the ratio is scale-free, squares stay finite
    s = np.bincount(codes, weights=e, minlength=g)
    ratio = float(np.sum(s**2) / np.sum(e**2))
    return max(1.0, ratio) if floor else ratio
