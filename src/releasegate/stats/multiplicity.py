"""Multiple-testing adjustments of p-values (same results as R's p.adjust and statsmodels' multipletests)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray

CORRECTIONS = ("holm", "hochberg", "bh", "bonferroni", "none")


def bonferroni_adjust(pvalues: np.ndarray) -> np.ndarray:
    """Bonferroni: min(1, m p)."""
    p = np.asarray(pvalues, dtype=float)
    adjusted: NDArray[np.float64] = np.minimum(1.0, p * p.size)
    return adjusted


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


def _all_broke_p(n_discordant: int, midp: bool) -> float:
    # The best case of an exact one-sided McNemar test: every discordant pair broke.
    return 2.0 ** -(n_discordant + (1 if midp else 0)) if n_discordant > 0 else 1.0


def best_case_adjusted(method: str, n_discordant: int, others: np.ndarray, midp: bool = False) -> float:
    """The adjusted p a test with ``n_discordant`` pairs would get if all of them broke, with the rest of the
    family at the p-values ``others`` (under ``method``, one of CORRECTIONS).

    Unlike ``best_case_multiplier`` (m for every method), this is right for the step-up methods too: under
    hochberg and bh the others' p-values can lower this test's adjusted p below m times its own (all p = 0.03
    in a family of 10: Hochberg adjusts every one to 0.03).
    """
    family = np.concatenate([[_all_broke_p(int(n_discordant), midp)], np.asarray(others, dtype=float)])
    return float(adjust_pvalues(family, method)[0])


def discordant_needed_in_family(method: str, alpha: float, others: np.ndarray, midp: bool = False,
                                limit: int = 1074) -> int | None:
    """Fewest discordant pairs (all broke) with which a test reaches adjusted p <= alpha given the rest of the
    family at ``others``; None when even ``limit`` pairs (2^-1074 is the smallest double) cannot.

    The adjusted p of the best case falls as n grows under every method here (each is monotone in the test's
    own p), so the search is a bisection over n."""
    if not 0 < alpha <= 1:
        raise ValueError("alpha must be in (0, 1]")

    def reaches(n: int) -> bool:
        return best_case_adjusted(method, n, others, midp) <= alpha

    if not reaches(limit):
        return None
    lo, hi = 0, limit  # reaches(hi) is True; reaches(0) is False (p = 1 > alpha unless alpha = 1)
    if reaches(0):
        return 0
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if reaches(mid):
            hi = mid
        else:
            lo = mid
    return hi


def can_reach(method: str, n_discordant: int, alpha: float, others: np.ndarray, midp: bool = False) -> bool:
    """Whether a test with ``n_discordant`` pairs could be significant at ``alpha`` given the rest of the
    family (its "powerless" flag is the negation)."""
    return best_case_adjusted(method, n_discordant, others, midp) <= alpha
