"""The one-sided bound on a paired difference that inverts the exact McNemar test of a regression.

The exact (conditional) McNemar test of "the candidate is worse" reads the ``broke`` cases among the
``changed = broke + fixed`` cases that changed outcome: X ~ Bin(changed, theta), theta the share of changes
that are breaks, and the one-sided p is P(X >= broke | theta = 1/2). Its inversion is the Clopper-Pearson
(1934) one-sided lower bound of theta at confidence 1 - a,

    theta_low = the theta with P(X >= broke | theta) = a   (the a quantile of Beta(broke, fixed + 1)),

and, with the share of cases that changed held at what was observed (psi = changed / cases, as the test
conditions on it), the difference candidate - baseline = psi (1 - 2 theta) has the upper bound
psi (1 - 2 theta_low). That bound is below zero exactly when theta_low > 1/2, that is when the test's one-sided
p is below a: the interval and the test are one method and never disagree (Fay 2010, The R Journal 2:53,
"exactci": a test and the confidence set that inverts it; Agresti & Min 2005, Stat Med 24:729, section 2 for
the conditional interval of paired proportions).

theta_low comes from the regularized incomplete beta function I_theta(broke, fixed + 1), the upper binomial
tail (Abramowitz & Stegun 26.5.24), evaluated by its continued fraction (A&S 26.5.8, modified Lentz) on the
side where it converges, and solved by bisection to a relative width of 1e-12. Pure Python: ``scipy.stats``
(beta.ppf) costs a quarter of a second to import and the tool never imports it (docs/methods.md); the tests
check the bound against scipy's and statsmodels' Clopper-Pearson limits.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

_TINY = 1e-300
_EPS = 1e-15
_MAX_TERMS = 100_000  # the fraction takes about sqrt(broke + fixed) terms; the cap turns a hang into an error


@dataclass(frozen=True, slots=True)
class DifferenceBound:
    """The upper bound ``bound`` of candidate - baseline at one-sided ``confidence`` that inverts the exact
    McNemar test of ``broke`` against ``fixed`` among ``cases``; ``share_low`` the lower bound of the share of
    changed cases that broke. No changed case: the bound is 0 (the test's p is 1)."""

    broke: int
    fixed: int
    cases: int
    confidence: float
    share_low: float
    bound: float


def _continued_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of I_x(a, b) (A&S 26.5.8) by the modified Lentz method; fast for
    x < (a + 1) / (a + b + 2)."""
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    h = d
    for m in range(1, _MAX_TERMS + 1):
        m2 = 2 * m
        for num in (m * (b - m) * x / ((qam + m2) * (a + m2)), -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))):
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > _TINY else _TINY)
            c = 1.0 + num / c
            c = c if abs(c) > _TINY else _TINY
            h *= c * d
        if abs(c * d - 1.0) <= _EPS:
            return h
    raise ArithmeticError(f"incomplete beta continued fraction did not converge (a={a}, b={b}, x={x})")


def regularized_beta(a: float, b: float, x: float) -> float:
    """I_x(a, b) for a, b > 0 and 0 <= x <= 1 (scipy.special.betainc(a, b, x))."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = (a * math.log(x) + b * math.log1p(-x) + math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b))
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _continued_fraction(a, b, x) / a
    return 1.0 - math.exp(log_front) * _continued_fraction(b, a, 1.0 - x) / b


def binomial_upper_tail(k: int, n: int, theta: float) -> float:
    """P(X >= k) for X ~ Bin(n, theta) (1 for k <= 0, 0 for k > n): I_theta(k, n - k + 1)."""
    if k <= 0:
        return 1.0
    if k > n:
        return 0.0
    return regularized_beta(float(k), float(n - k + 1), theta)


def share_lower_bound(broke: int, changed: int, confidence: float) -> float:
    """The Clopper-Pearson one-sided lower bound of the share of ``changed`` that broke at ``confidence``:
    the theta with P(X >= broke | theta) = 1 - confidence (0 when nothing broke)."""
    if broke <= 0:
        return 0.0
    target = 1.0 - confidence
    low, high = 0.0, 1.0
    while high - low > 1e-12 * max(high, 1e-300):
        mid = 0.5 * (low + high)
        if binomial_upper_tail(broke, changed, mid) < target:
            low = mid
        else:
            high = mid
    return 0.5 * (low + high)


def regression_bound(broke: int, fixed: int, cases: int, confidence: float) -> DifferenceBound:
    """The upper bound of candidate - baseline that inverts the exact one-sided McNemar test (module
    docstring): below zero exactly when that test's p is below 1 - ``confidence``."""
    broke, fixed, cases = int(broke), int(fixed), int(cases)
    if broke < 0 or fixed < 0 or broke + fixed > cases:
        raise ValueError("broke and fixed are counts of at most the cases between them")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence!r}")
    changed = broke + fixed
    if changed == 0:
        return DifferenceBound(broke, fixed, cases, confidence, math.nan, 0.0)
    theta = share_lower_bound(broke, changed, confidence)
    return DifferenceBound(broke, fixed, cases, confidence, theta, changed / cases * (1.0 - 2.0 * theta))
