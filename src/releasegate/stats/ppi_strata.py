"""Where a stratified gold sample helps the PPI++ paired difference (issue 35 item 5): Neyman allocation of the
labels over strata known on every case (whether the judge's verdict changed between the releases, say).

Stratified PPI (Fisch, Maynez, Hofer, Dhingra, Globerson & Cohen 2024, "Stratified Prediction-Powered Inference
for Hybrid Language Model Evaluation", NeurIPS) estimates the difference as sum_h W_h theta_h, each stratum's
own PPI++ mean of the per-case difference Z with its own lam_h, W_h = N_h / N its share of the cases. To first
order (the judge-only term lam^2 Var(g) / N dropped: small when the suite is much larger than the sample) its
variance at n labels is sum_h W_h^2 s_h^2 / n_h, s_h the SD of the residual Z - lam_h g in stratum h, and the
allocation that minimises it is Neyman's (1934, JRSS 97:558): n_h / n = W_h s_h / sum_k W_k s_k, giving
(sum_h W_h s_h)^2 / n. A simple random sample with one lam has s^2 / n, s the SD of Z - lam g over every
case; the ratio (sum_h W_h s_h)^2 / s^2 (at most 1 up to the sample's noise) is the share of the random
sample's labels a stratified one needs for the same width: the design effect.
"""

from __future__ import annotations

from collections.abc import Sequence

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from releasegate.stats.ppi import power_tuned_lambda

# Below this many labelled cases in a stratum its residual SD is not estimated (the allocation is undefined).
MIN_PER_STRATUM = 5


@dataclass(frozen=True)
class StratifiedAllocation:
    """Neyman allocation over ``strata`` (names): each stratum's cases ``cases`` (N_h), labelled cases in the
    sample ``labelled``, residual SD ``residual_sd`` (s_h) and Neyman share ``shares`` of the labels; the
    ``design_effect`` (the labels a stratified sample needs per label of a random one, for the same width).
    ``defined`` is False when a stratum holds fewer than ``MIN_PER_STRATUM`` labelled cases or every residual
    is 0 (nothing is claimed)."""

    strata: tuple[str, ...]
    cases: tuple[int, ...]
    labelled: tuple[int, ...]
    residual_sd: tuple[float, ...]
    shares: tuple[float, ...]
    design_effect: float
    defined: bool


def _residual_sd(z: np.ndarray, g: np.ndarray, labelled: np.ndarray) -> float:
    lam = power_tuned_lambda(z[labelled], g[labelled], g[~labelled])
    return float(np.std(z[labelled] - lam * g[labelled]))


def neyman_allocation(z: ArrayLike, g: ArrayLike, codes: ArrayLike, names: Sequence[str]) -> StratifiedAllocation:
    """The allocation of the module docstring. ``z``: the human's per-case difference (candidate - baseline),
    NaN where the case is not labelled on both releases; ``g``: the judge's per-case difference on every case;
    ``codes``: each case's stratum (0..len(names)-1)."""
    z, g, codes = np.asarray(z, float), np.asarray(g, float), np.asarray(codes, int)
    if not (z.shape == g.shape == codes.shape) or z.ndim != 1:
        raise ValueError("z, g and codes must be one-dimensional and aligned")
    labelled = np.isfinite(z)
    n_cases = z.size
    cases, counts, sds = [], [], []
    for k in range(len(names)):
        inside = codes == k
        cases.append(int(inside.sum()))
        counts.append(int((inside & labelled).sum()))
        sds.append(_residual_sd(z[inside], g[inside], labelled[inside]) if counts[-1] >= MIN_PER_STRATUM
                   else math.nan)
    overall = _residual_sd(z, g, labelled) if labelled.sum() >= MIN_PER_STRATUM else math.nan
    weights = np.array(cases, float) / n_cases
    s = np.array(sds)
    spread = float(np.sum(weights * s)) if np.all(np.isfinite(s)) else math.nan
    defined = math.isfinite(spread) and spread > 0 and math.isfinite(overall) and overall > 0
    if not defined:
        return StratifiedAllocation(tuple(names), tuple(cases), tuple(counts), tuple(sds),
                                    tuple(math.nan for _ in names), math.nan, False)
    shares = tuple(float(x) for x in weights * s / spread)
    return StratifiedAllocation(tuple(names), tuple(cases), tuple(counts), tuple(sds), shares,
                                spread ** 2 / overall ** 2, True)
