"""Multiple-testing adjustments of p-values (same results as R's p.adjust and statsmodels' multipletests)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

CORRECTIONS = ("holm", "hochberg", "bh", "bonferroni", "none")


def bonferroni_adjust(pvalues: np.ndarray) -> np.ndarray:
    """Bonferroni: min(1, m p)."""
    p = np.asarray(pvalues, dtype=float)
    return np.minimum(1.0, p * p.size)


def holm_adjust(pvalues: np.ndarray) -> np.ndarray:
    """Holm (1979) step-down: p_(i) (m - i + 1), running maximum, capped at 1. Strong FWER control under any
    dependence. statsmodels' default 'hs' is Holm-Sidak, not this."""
    p = np.asarray(pvalues, dtype=float)
    m = p.size
    if m == 0:
        return p.copy()
    order = np.argsort(p, kind="stable")
    stepped = np.maximum.accumulate((m - np.arange(m)) * p[order])
    out = np.empty(m)
    out[order] = np.minimum(1.0, stepped)
    return out


def hochberg_adjust(pvalues: np.ndarray) -> np.ndarray:
    """Hochberg (1988) step-up: p_(i) (m - i + 1), running minimum from the largest. FWER under independence or
    positive dependence (statsmodels 'simes-hochberg')."""
    p = np.asarray(pvalues, dtype=float)
    m = p.size
    if m == 0:
        return p.copy()
    order = np.argsort(p, kind="stable")[::-1]
    stepped = np.minimum.accumulate((np.arange(m) + 1) * p[order])
    out = np.empty(m)
    out[order] = np.minimum(1.0, stepped)
    return out


def bh_adjust(pvalues: np.ndarray) -> np.ndarray:
    """Benjamini & Hochberg (1995) false discovery rate: p_(i) m / i, running minimum from the largest."""
    p = np.asarray(pvalues, dtype=float)
    m = p.size
    if m == 0:
        return p.copy()
    order = np.argsort(p, kind="stable")[::-1]
    ranks = m - np.arange(m)
    stepped = np.minimum.accumulate(p[order] * m / ranks)
    out = np.empty(m)
    out[order] = np.minimum(1.0, stepped)
    return out


_METHODS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "holm": holm_adjust,
    "hochberg": hochberg_adjust,
    "bh": bh_adjust,
    "bonferroni": bonferroni_adjust,
    "none": lambda p: np.asarray(p, dtype=float).copy(),
}


def adjust_pvalues(pvalues: np.ndarray, method: str) -> np.ndarray:
    """Adjust a family of p-values with one of ``CORRECTIONS``."""
    try:
        return _METHODS[method](pvalues)
    except KeyError:
        raise ValueError(f"unknown correction {method!r}; expected one of {', '.join(CORRECTIONS)}") from None


def best_case_multiplier(method: str, family_size: int) -> float:
    """The factor by which the smallest p of the family is multiplied: m for every method here, 1 for none.

    A test whose floor p times this factor reaches alpha cannot be significant whatever the data say.
    """
    return 1.0 if method == "none" else float(family_size)
